//! Every corpus file's `mcpwire check --format jsonl` output must match its checked-in insta
//! snapshot (tests/snapshots/corpora__*.snap). Timing fields of the summary are redacted.
//!
//! To review a change: `INSTA_UPDATE=always cargo test --test corpora` (or `cargo insta
//! review`), then inspect `git diff tests/snapshots`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora")
}

/// Corpus files with traffic (not the README, descriptions, tools or the bench corpora).
fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_str().unwrap();
            if p.is_dir() {
                if name != "tools" && name != "bench" {
                    walk(&p, out);
                }
            } else if [".jsonl", ".sse", ".json"].iter().any(|e| name.ends_with(e)) {
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
        let mut v: Value = serde_json::from_str(line).unwrap();
        if let Some(s) = v.get_mut("summary") {
            s["seconds"] = Value::from("[seconds]");
            s["bytes_per_second"] = Value::from("[bytes_per_second]");
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    out
}

#[test]
fn corpus_check_output_matches_snapshots() {
    let files = corpus_files();
    assert!(files.len() >= 40, "corpora/ looks incomplete: {} files", files.len());
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    settings.set_omit_expression(true);
    for f in files {
        let rel = f.strip_prefix(root()).unwrap().to_str().unwrap().replace('\\', "/");
        let out = Command::cargo_bin("mcpwire")
            .unwrap()
            .current_dir(root())
            .args(["check", "--format", "jsonl", "--profile", "auto", "--transport", transport(&f)])
            .arg(&rel)
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(code == 0 || code == 1, "{rel}: exit {code}: {}", String::from_utf8_lossy(&out.stderr));
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
        let rel = f.strip_prefix(root()).unwrap().to_str().unwrap().replace('\\', "/");
        let out = Command::cargo_bin("mcpwire")
            .unwrap()
            .args(["check", "--format", "jsonl", "--transport", transport(&f)])
            .arg(&f)
            .output()
            .unwrap();
        if rel.starts_with("real/") {
            assert_eq!(out.status.code(), Some(0), "{rel}: {}", String::from_utf8_lossy(&out.stdout));
        }
    }
}
