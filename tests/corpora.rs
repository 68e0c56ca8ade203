//! Every corpus file's `mcpwire check --format jsonl` output must match its checked-in insta
//! snapshot (tests/snapshots/corpora__*.snap). Timing fields of the summary are redacted.
//!
//! To review a change: `INSTA_UPDATE=always cargo test --test corpora` (or `cargo insta
//! review`), then inspect `git diff tests/snapshots`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// Real messages that DESIGN.md's strictness policy rejects on purpose (the official TS SDK
/// echoes an escaped lone surrogate `\ud83d`; DESIGN.md: "no lone surrogates", and serde_json
/// rejects them too): (path suffix, frame, kind). Anything else invalid in real traffic fails.
pub const KNOWN_POLICY_REJECTIONS: &[(&str, u64, &str)] = &[
    (
        "stdio_ts-client_everything_2025-11-25/client-to-server.jsonl",
        11,
        "lone-surrogate",
    ),
    (
        "stdio_ts-client_everything_2025-11-25/server-to-client.jsonl",
        18,
        "lone-surrogate",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora")
}

/// Corpus files with traffic (not the README, descriptions, tools or the bench corpora).
fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_str().unwrap();
            if p.is_dir() {
                if name != "tools" && name != "bench" {
                    walk(&p, out);
                }
            } else if [".jsonl", ".sse", ".json"]
                .iter()
                .any(|e| name.ends_with(e))
            {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root(), &mut v);
    v
}

fn transport(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("sse") => "sse",
        Some("json") => "http-body",
        _ => "stdio",
    }
}

fn redact(stdout: &[u8]) -> String {
    let mut out = String::new();
    for line in std::str::from_utf8(stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("summary").is_none() {
            out.push_str(line); // records verbatim, members in the contract's order
        } else {
            let mut v = v;
            v["summary"]["seconds"] = Value::from("[seconds]");
            v["summary"]["bytes_per_second"] = Value::from("[bytes_per_second]");
            out.push_str(&serde_json::to_string(&v).unwrap());
        }
        out.push('\n');
    }
    out
}

#[test]
fn corpus_check_output_matches_snapshots() {
    let files = corpus_files();
    assert!(
        files.len() >= 40,
        "corpora/ looks incomplete: {} files",
        files.len()
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    settings.set_omit_expression(true);
    for f in files {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        let out = Command::cargo_bin("mcpwire")
            .unwrap()
            .current_dir(root())
            .args([
                "check",
                "--format",
                "jsonl",
                "--profile",
                "auto",
                "--transport",
                transport(&f),
            ])
            .arg(&rel)
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(
            code == 0 || code == 1,
            "{rel}: exit {code}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = format!("exit: {code}\n{}", redact(&out.stdout));
        settings.set_info(&rel);
        let name = rel.replace(['/', '.'], "_");
        settings.bind(|| insta::assert_snapshot!(name, text));
    }
}

/// Holds whatever the snapshots say: the real SDK sessions are all valid (a false positive on
/// real SDK traffic is a bug).
#[test]
fn real_sessions_are_valid() {
    for f in corpus_files() {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        let out = Command::cargo_bin("mcpwire")
            .unwrap()
            .args(["check", "--format", "jsonl", "--transport", transport(&f)])
            .arg(&f)
            .output()
            .unwrap();
        if !rel.starts_with("real/") {
            continue;
        }
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines().filter(|l| l.contains("\"valid\":false")) {
            let r: Value = serde_json::from_str(line).unwrap();
            let kind = r["violations"][0]["kind"].as_str().unwrap();
            let known = KNOWN_POLICY_REJECTIONS
                .iter()
                .any(|(f, n, k)| rel.ends_with(f) && r["frame"] == *n && kind == *k);
            assert!(known, "{rel}: false positive on real SDK traffic: {line}");
        }
    }
}
