//! Tests of the `mcpwire` binary: every option, every exit status, stdin streaming, bad inputs
//! and a 50 MB input.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const VALID: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n";
const DUPLICATE: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"method\":\"tools/call\"}\n";
const NOT_JSON: &[u8] = b"{\"jsonrpc\":\"2.0\",}\n";

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpora")
        .join(rel)
}

fn mcpwire() -> Command {
    let mut c = Command::cargo_bin("mcpwire").expect("binary built");
    c.env_remove("NO_COLOR");
    c
}

fn temp_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Parses jsonl stdout into records and the summary.
fn jsonl(stdout: &[u8]) -> (Vec<Value>, Value) {
    let mut recs: Vec<Value> = std::str::from_utf8(stdout)
        .expect("utf-8 output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let summary = recs.pop().expect("a summary line");
    assert!(
        summary.get("summary").is_some(),
        "last line is the summary: {summary}"
    );
    (recs, summary["summary"].clone())
}

#[test]
fn help_and_version_exit_0() {
    mcpwire()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("check"));
    mcpwire()
        .args(["check", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--transport"));
    mcpwire().args(["stats", "--help"]).assert().success();
    mcpwire().arg("--version").assert().success();
}

#[test]
fn usage_errors_exit_2() {
    mcpwire().assert().code(2);
    mcpwire()
        .arg("check")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("FILE"));
    mcpwire().args(["frobnicate", "x"]).assert().code(2);
    let f = corpus("spec/tools.jsonl");
    for bad in [
        &["--transport", "tcp"][..],
        &["--profile", "2024-01-01"],
        &["--format", "xml"],
        &["--direction", "sideways"],
        &["--max-frame-bytes", "lots"],
        &["--no-such-flag"],
    ] {
        mcpwire().arg("check").args(bad).arg(&f).assert().code(2);
    }
}

#[test]
fn valid_input_exits_0_with_jsonl_records() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "ok.jsonl", &[VALID, VALID].concat());
    let out = mcpwire()
        .args(["check", "--format", "jsonl"])
        .arg(&f)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 2);
    let r = &recs[0];
    // Members in the contract's order (checked on the raw text; Value sorts keys).
    let raw = std::str::from_utf8(&out).unwrap().lines().next().unwrap();
    let keys = [
        "frame",
        "offset",
        "len",
        "shape",
        "id",
        "method",
        "result_type",
        "error_code",
        "valid",
        "violations",
    ];
    let pos: Vec<usize> = keys
        .iter()
        .map(|k| raw.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{raw}");
    assert_eq!(r.as_object().unwrap().len(), keys.len());
    assert_eq!(r["frame"], 1);
    assert_eq!(r["offset"], 0);
    assert_eq!(r["len"], VALID.len() - 1);
    assert_eq!(r["shape"], "request");
    assert_eq!(r["id"], "1");
    assert_eq!(r["method"], "tools/list");
    assert_eq!(r["result_type"], Value::Null);
    assert_eq!(r["error_code"], Value::Null);
    assert_eq!(r["valid"], true);
    assert_eq!(recs[1]["offset"], VALID.len());
    assert_eq!(summary["frames"], 2);
    assert_eq!(summary["valid"], 2);
    assert_eq!(summary["invalid"], 0);
    assert_eq!(summary["bytes"], 2 * VALID.len());
    assert!(summary["seconds"].is_f64());
}

#[test]
fn invalid_frame_exits_1_with_violation() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "bad.jsonl", &[VALID, DUPLICATE, NOT_JSON].concat());
    let out = mcpwire()
        .args(["check", "--format", "jsonl"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[1]["valid"], false);
    assert_eq!(recs[1]["violations"][0]["kind"], "duplicate-key");
    assert_eq!(recs[1]["violations"][0]["code"], -32600);
    // Not JSON: shape invalid, -32700, offset absolute in the file (the `}` of line 3).
    let v = &recs[2];
    assert_eq!(v["shape"], "invalid");
    assert_eq!(v["violations"][0]["code"], -32700);
    let line3 = (VALID.len() + DUPLICATE.len()) as u64;
    assert_eq!(v["violations"][0]["offset"], line3 + 17);
    assert_eq!(summary["invalid"], 2);
}

#[test]
fn human_output_has_file_line_col_and_caret() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "bad.jsonl", &[VALID, NOT_JSON].concat());
    let out = mcpwire()
        .args(["check"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let loc = format!("{}:2:18:", f.display());
    assert!(text.contains(&loc), "no {loc} in:\n{text}");
    assert!(text.contains('^'), "no caret in:\n{text}");
    assert!(text.contains("by shape"), "{text}");
    assert!(text.contains("tools/list"), "{text}");
    assert!(!text.contains('\x1b'), "colour on a pipe:\n{text}");
}

#[test]
fn no_color_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "bad.jsonl", NOT_JSON);
    mcpwire()
        .env("NO_COLOR", "1")
        .arg("check")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\x1b").not());
}

#[test]
fn missing_file_and_directory_exit_2_but_other_files_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let ok = temp_file(&dir, "ok.jsonl", VALID);
    let missing = dir.path().join("does-not-exist.jsonl");
    mcpwire()
        .arg("check")
        .arg(&missing)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does-not-exist.jsonl"));
    mcpwire()
        .arg("check")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("directory"));
    let out = mcpwire()
        .args(["check", "--format", "jsonl"])
        .arg(&missing)
        .arg(&ok)
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["file"], ok.display().to_string());
    assert_eq!(summary["io_errors"], 1);
    mcpwire().args(["stats"]).arg(&missing).assert().code(2);
}

#[test]
fn empty_file_has_no_frames_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "empty.jsonl", b"");
    for t in ["stdio", "sse", "http-body"] {
        let out = mcpwire()
            .args(["check", "--format", "jsonl", "--transport", t])
            .arg(&f)
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let (recs, summary) = jsonl(&out);
        assert!(recs.is_empty(), "{t}");
        assert_eq!(summary["frames"], 0);
    }
}

#[test]
fn stdin_dash_reads_the_stream() {
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "-"])
        .write_stdin([VALID, DUPLICATE].concat())
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let (recs, _) = jsonl(&out);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[1]["violations"][0]["kind"], "duplicate-key");
}

/// `-` is processed as a stream: the record of the first frame comes out while stdin is
/// still open (the input is never read whole first).
#[test]
fn stdin_is_streamed_not_slurped() {
    let bin = assert_cmd::cargo::cargo_bin("mcpwire");
    let mut child = StdCommand::new(bin)
        .args(["check", "--format", "jsonl", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        while let Some(Ok(l)) = lines.next() {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    stdin.write_all(VALID).unwrap();
    stdin.flush().unwrap();
    let first = rx.recv_timeout(Duration::from_secs(30));
    // Close stdin before asserting so the child always exits.
    stdin.write_all(VALID).unwrap();
    drop(stdin);
    let first = first.expect("a record before stdin was closed");
    let v: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["frame"], 1);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn transports_sse_and_http_body() {
    let sse = corpus("real/sse/http_py-client_pyserver_2026-07-28/server-to-client.019-post.sse");
    let out = mcpwire()
        .args([
            "check",
            "--format",
            "jsonl",
            "--transport",
            "sse",
            "--profile",
            "2026-07-28",
        ])
        .arg(&sse)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let (recs, _) = jsonl(&out);
    assert!(recs.len() >= 2, "{recs:?}");
    assert!(recs.iter().any(|r| r["shape"] == "result"));
    // The first event's data starts after "event: message\r\ndata: ".
    assert_eq!(recs[0]["offset"], "event: message\r\ndata: ".len());

    let body = corpus(
        "real/http-body/http_py-client_pyserver_2026-07-28/client-to-server.tools-call.request.json",
    );
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--transport", "http-body"])
        .arg(&body)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let (recs, _) = jsonl(&out);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["method"], "tools/call");
}

#[test]
fn every_profile_and_direction_value_is_accepted() {
    let f = corpus("real/stdio/stdio_py-client_pyserver_2026-07-28/client-to-server.jsonl");
    for p in ["2026-07-28", "auto"] {
        for d in ["client-to-server", "auto"] {
            mcpwire()
                .args(["check", "--profile", p, "--direction", d])
                .arg(&f)
                .assert()
                .code(0);
        }
    }
    let legacy = corpus("real/stdio/stdio_py-client_pyserver_2025-03-26/server-to-client.jsonl");
    for d in ["server-to-client", "auto"] {
        mcpwire()
            .args(["check", "--profile", "legacy", "--direction", d])
            .arg(&legacy)
            .assert()
            .code(0);
    }
}

#[test]
fn max_frame_bytes_discards_an_oversize_line_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{{\"x\":\"{}\"}}}}\n",
        "a".repeat(300)
    );
    let f = temp_file(&dir, "big.jsonl", &[VALID, big.as_bytes(), VALID].concat());
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--max-frame-bytes", "100"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[1]["violations"][0]["kind"], "frame-too-large");
    assert_eq!(recs[1]["violations"][0]["code"], -32600);
    assert_eq!(recs[1]["offset"], VALID.len());
    assert_eq!(recs[2]["valid"], true);
    assert_eq!(summary["valid"], 2);
    // One byte under the limit is fine.
    mcpwire()
        .args(["check", "--max-frame-bytes"])
        .arg((VALID.len() - 1).to_string())
        .arg(temp_file(&dir, "ok.jsonl", VALID))
        .assert()
        .code(0);
}

#[test]
fn stats_table_and_jsonl() {
    let f = corpus("real/stdio/stdio_py-client_pyserver_2026-07-28/client-to-server.jsonl");
    let out = mcpwire()
        .args(["stats"])
        .arg(&f)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for want in [
        "message sizes",
        "by shape",
        "by method",
        "ids by type",
        "revisions seen",
        "2026-07-28",
    ] {
        assert!(text.contains(want), "no {want} in:\n{text}");
    }
    let legacy = corpus("real/stdio/stdio_py-client_everything_2024-11-05/server-to-client.jsonl");
    let out = mcpwire()
        .args(["stats", "--format", "jsonl"])
        .arg(&f)
        .arg(&legacy)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "one per file and a total");
    let s = &lines[0];
    assert_eq!(s["frames"], 45);
    assert_eq!(s["sizes"]["min"], 106);
    assert_eq!(s["sizes"]["max"], 1145);
    assert_eq!(s["ids"]["string"], 1);
    assert!(s["revisions"]["2026-07-28"].as_u64().unwrap() > 0);
    assert_eq!(
        s["shapes"]["request"].as_u64().unwrap() + s["shapes"]["notification"].as_u64().unwrap(),
        45
    );
    assert!(lines[1]["revisions"]["2024-11-05"].as_u64().unwrap() >= 1);
    assert!(lines[2].get("file").is_none());
    assert_eq!(lines[2]["frames"], 45 + 92);
}

/// A generated input over 50 MB (never committed): streamed in chunks, every frame counted.
#[test]
fn fifty_megabyte_input() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.jsonl");
    let line = b"{\"jsonrpc\":\"2.0\",\"id\":12345,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello hello hello hello hello hello hello\"}}}\n";
    let n = 50 * 1000 * 1000 / line.len() + 1;
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        for _ in 0..n {
            f.write_all(line).unwrap();
        }
    }
    assert!(std::fs::metadata(&p).unwrap().len() > 50_000_000);
    let out = mcpwire()
        .args(["check"])
        .arg(&p)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with(&format!("{n} frames: {n} valid, 0 invalid")),
        "{text}"
    );
}
