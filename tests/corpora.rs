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

/// The profile a corpus file is judged under: the revision its path names (real sessions,
/// legacy spec examples), 2026-07-28 for the 2026-07-28 spec examples, else `auto`.
fn profile(rel: &str) -> &'static str {
    const REVISIONS: [&str; 5] = [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ];
    if let Some(r) = REVISIONS.iter().find(|r| rel.contains(*r)) {
        return r;
    }
    if rel.starts_with("spec/") {
        return "2026-07-28";
    }
    "auto"
}

/// Options a corpus file needs beyond its profile: the Tasks extension examples are judged as
/// by a peer that advertised the extension.
fn extra_args(rel: &str) -> &'static [&'static str] {
    if rel.ends_with("extension-tasks.jsonl") {
        &["--tasks-extension"]
    } else {
        &[]
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
                profile(&rel),
                "--transport",
                transport(&f),
            ])
            .args(extra_args(&rel))
            .arg(&rel)
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(
            code == 0 || code == 1,
            "{rel}: exit {code}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = format!(
            "profile: {}\nexit: {code}\n{}",
            profile(&rel),
            redact(&out.stdout)
        );
        settings.set_info(&rel);
        let name = rel.replace(['/', '.'], "_");
        settings.bind(|| insta::assert_snapshot!(name, text));
    }
}

/// Raw ids of the requests the real server answered with -32601 (Method not found) in the
/// `server-to-client.jsonl` next to `c2s` (stdio sessions): flagging those requests as
/// unknown or removed methods agrees with the real peer.
fn answered_method_not_found(c2s: &Path) -> Vec<String> {
    let s2c = c2s.with_file_name("server-to-client.jsonl");
    let Ok(text) = std::fs::read_to_string(s2c) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["error"]["code"] == -32601)
        .map(|v| v["id"].to_string())
        .collect()
}

/// Every real SDK session is valid under its revision's profile and under `auto`, with every
/// violation accounted for (a false positive on real SDK traffic is a bug): only the known
/// policy rejections, and requests the real server itself answered with -32601.
#[test]
fn real_sessions_are_valid() {
    let mut agreed = 0;
    let mut known = 0;
    for f in corpus_files() {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        if !rel.starts_with("real/") {
            continue;
        }
        let mnf = answered_method_not_found(&f);
        for p in [profile(&rel), "auto"] {
            let out = Command::cargo_bin("mcpwire")
                .unwrap()
                .args(["check", "--format", "jsonl", "--profile", p])
                .args(["--transport", transport(&f)])
                .arg(&f)
                .output()
                .unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            let mut invalid = 0;
            for line in text.lines().filter(|l| l.contains("\"valid\":false")) {
                invalid += 1;
                let r: Value = serde_json::from_str(line).unwrap();
                let vs = r["violations"].as_array().unwrap();
                assert!(!vs.is_empty(), "{rel}: invalid without violations: {line}");
                for v in vs {
                    let kind = v["kind"].as_str().unwrap();
                    if KNOWN_POLICY_REJECTIONS
                        .iter()
                        .any(|(f, n, k)| rel.ends_with(f) && r["frame"] == *n && kind == *k)
                    {
                        known += 1;
                        continue;
                    }
                    let id = r["id"].as_str().unwrap_or("");
                    if matches!(kind, "unknown-method" | "removed-method")
                        && mnf.iter().any(|m| m == id)
                    {
                        agreed += 1;
                        continue;
                    }
                    panic!("{rel} [--profile {p}]: false positive on real SDK traffic: {line}");
                }
            }
            let want = if invalid > 0 { 1 } else { 0 };
            assert_eq!(out.status.code(), Some(want), "{rel} [--profile {p}]");
        }
    }
    // 2 lone-surrogate frames and 3 -32601 agreements (2026 `ping` x2,
    // `capture/unknown-method`), each under two profiles.
    assert_eq!(known, 4, "known policy rejections seen");
    assert_eq!(agreed, 6, "-32601 agreements seen");
}
