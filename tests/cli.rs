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
    // The summary names the unreadable input, so jsonl consumers need not parse stderr.
    let unreadable = summary["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1);
    assert_eq!(unreadable[0]["file"], missing.display().to_string());
    assert_eq!(unreadable[0]["frames"], 0);
    assert!(!unreadable[0]["error"].as_str().unwrap().is_empty());
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

/// A parse error on the third `data:` line of an event (a BOM, a comment line and CRLF
/// between the values): the record's violation offset and the human `file:line:col` point at
/// the offending byte itself (before: the first value's offset plus the index in the joined
/// data, 9 bytes short here, on the wrong line).
#[test]
fn sse_multi_line_event_error_is_located_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let input: &[u8] = b"\xef\xbb\xbfdata: {\"jsonrpc\":\"2.0\",\r\n: keep-alive\r\ndata:  \"id\":1, \"method\":\"ping\",\r\ndata: \"params\":{,}}\r\n\r\n";
    let f = temp_file(&dir, "multi.sse", input);
    let (code, recs, _) = check_jsonl(&["--transport", "sse"], &f);
    assert_eq!(code, 1);
    let bad = input.windows(3).position(|w| w == b"{,}").unwrap() + 1;
    assert_eq!(bad, 91);
    assert_eq!(recs[0]["offset"], 9, "the first value's offset");
    assert_eq!(recs[0]["violations"][0]["offset"], bad, "{recs:?}");
    let text = stdout_of(&["check", "--transport", "sse"], &f, 1);
    assert!(text.contains("multi.sse:4:17: unexpected byte"), "{text}");
    assert!(text.contains("data: \"params\":{,}}"), "{text}");
    // A last `data` line without colon (an empty value): its snippet shows the field name,
    // the caret after it (re-trial: the snippet line was empty).
    let f = temp_file(&dir, "bare.sse", b"data: {\"a\":\r\ndata\r\n\r\n");
    let text = stdout_of(&["check", "--transport", "sse"], &f, 1);
    assert!(
        text.contains("bare.sse:2:5: frame ends inside a JSON value"),
        "{text}"
    );
    assert!(text.contains("2 | data\n"), "{text}");
    // The error on the first line, after the stream's BOM: the snippet shows `data: ` too
    // (the BOM itself is invisible; the header's column counts its 3 bytes).
    let f = temp_file(&dir, "bom.sse", b"\xef\xbb\xbfdata: {,}\r\n\r\n");
    let text = stdout_of(&["check", "--transport", "sse"], &f, 1);
    assert!(text.contains("bom.sse:1:11: unexpected byte"), "{text}");
    assert!(text.contains("1 | data: {,}"), "{text}");
}

/// A 2026-07-28 request with the per-request `_meta` envelope.
const REQUEST_2026: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#;
/// The same request without `_meta`: valid for legacy revisions, -32602 under 2026-07-28.
const REQUEST_NO_META: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n";

/// Runs `mcpwire ARGS INPUT`, expects exit status `code`; returns stdout as text.
fn stdout_of(args: &[&str], input: &Path, code: i32) -> String {
    let out = mcpwire().args(args).arg(input).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `check --format jsonl` with `args` on `input`; returns exit code, records, summary.
fn check_jsonl(args: &[&str], input: &Path) -> (i32, Vec<Value>, Value) {
    let out = mcpwire()
        .args(["check", "--format", "jsonl"])
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    let (recs, summary) = jsonl(&out.stdout);
    (out.status.code().unwrap(), recs, summary)
}

fn kinds(rec: &Value) -> Vec<String> {
    rec["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_profile_and_direction_value_is_accepted() {
    let f = corpus("real/stdio/stdio_py-client_pyserver_2026-07-28/server-to-client.jsonl");
    for p in ["2026-07-28", "auto"] {
        for d in ["server-to-client", "auto"] {
            mcpwire()
                .args(["check", "--profile", p, "--direction", d])
                .arg(&f)
                .assert()
                .code(0);
        }
    }
    for (p, f) in [
        ("legacy", "stdio_py-client_pyserver_2025-03-26"),
        ("2025-03-26", "stdio_py-client_pyserver_2025-03-26"),
        ("2025-06-18", "stdio_py-client_everything_2025-06-18"),
        ("2024-11-05", "stdio_py-client_everything_2024-11-05"),
    ] {
        for d in ["server-to-client", "client-to-server", "auto", "c2s", "s2c"] {
            let file = if d == "client-to-server" || d == "c2s" {
                "client-to-server.jsonl"
            } else {
                "server-to-client.jsonl"
            };
            mcpwire()
                .args(["check", "--profile", p, "--direction", d])
                .arg(corpus(&format!("real/stdio/{f}/{file}")))
                .assert()
                .code(0);
        }
    }
    // 2025-11-25: the TS session is valid but for the known lone-surrogate echo.
    let (code, recs, _) = check_jsonl(
        &["--profile", "2025-11-25"],
        &corpus("real/stdio/stdio_ts-client_everything_2025-11-25/server-to-client.jsonl"),
    );
    assert_eq!(code, 1);
    let bad: Vec<_> = recs.iter().filter(|r| r["valid"] == false).collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(kinds(bad[0]), ["lone-surrogate"]);
}

#[test]
fn bad_profile_value_is_a_usage_error() {
    let f = corpus("spec/tools.jsonl");
    for bad in ["2026-07-29", "latest", "", "LEGACY"] {
        mcpwire()
            .args(["check", "--profile", bad])
            .arg(&f)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--profile"));
    }
}

#[test]
fn profile_decides_meta_rules() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "x.jsonl", REQUEST_NO_META);
    let (code, recs, _) = check_jsonl(&["--profile", "2026-07-28"], &f);
    assert_eq!(code, 1);
    let vs = recs[0]["violations"].as_array().unwrap();
    assert_eq!(recs[0]["valid"], false);
    assert!(vs.iter().all(|v| v["code"] == -32602), "{vs:?}");
    assert_eq!(
        kinds(&recs[0]),
        ["missing-protocol-version", "missing-client-capabilities"]
    );
    // Offsets are absolute: this frame starts at byte 0 and the `params` value at 55.
    assert_eq!(&REQUEST_NO_META[55..57], b"{}");
    assert_eq!(vs[0]["offset"], 55);
    for p in ["legacy", "2025-11-25", "2024-11-05", "auto"] {
        let (code, recs, _) = check_jsonl(&["--profile", p], &f);
        assert_eq!((code, &recs[0]["valid"]), (0, &Value::Bool(true)), "{p}");
    }
    let ok = temp_file(&dir, "y.jsonl", REQUEST_2026);
    assert_eq!(check_jsonl(&["--profile", "2026-07-28"], &ok).0, 0);
    // The spec's meta-omitted examples all fail under 2026-07-28 with -32602.
    let (code, recs, _) = check_jsonl(
        &["--profile", "2026-07-28"],
        &corpus("spec/negative/meta-omitted.jsonl"),
    );
    assert_eq!(code, 1);
    assert!(!recs.is_empty());
    for r in &recs {
        assert!(
            r["violations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v["code"] == -32602),
            "{r}"
        );
    }
}

#[test]
fn direction_option_and_inference_from_the_file_name() {
    // Under 2026-07-28 requests flow client to server only.
    let dir = tempfile::tempdir().unwrap();
    let plain = temp_file(&dir, "traffic.jsonl", REQUEST_2026);
    let s2c = temp_file(&dir, "server-to-client.jsonl", REQUEST_2026);
    let c2s = temp_file(&dir, "client-to-server.jsonl", REQUEST_2026);
    let p = ["--profile", "2026-07-28"];
    let run = |d: &str, f: &Path| check_jsonl(&[&p[..], &["--direction", d]].concat(), f);
    let (code, recs, _) = run("server-to-client", &plain);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[0]), ["server-request"]);
    assert_eq!(recs[0]["violations"][0]["code"], -32600);
    assert_eq!(run("client-to-server", &plain).0, 0);
    // auto: unknown for a plain name (direction rules skipped), else from the name.
    assert_eq!(run("auto", &plain).0, 0);
    assert_eq!(run("auto", &c2s).0, 0);
    let (code, recs, _) = run("auto", &s2c);
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&recs[0]),
        kinds(&run("server-to-client", &plain).1[0])
    );
    // An explicit direction wins over the name.
    assert_eq!(run("client-to-server", &s2c).0, 0);
    // SSE streams flow from the server.
    let sse = temp_file(
        &dir,
        "001-post.sse",
        &[
            b"data: ",
            REQUEST_2026.strip_suffix(b"\n").unwrap(),
            b"\n\n",
        ]
        .concat(),
    );
    let (code, _, _) = check_jsonl(&[&p[..], &["--transport", "sse"]].concat(), &sse);
    assert_eq!(code, 1);
}

/// One `{headers, body}` record, as in captures/http_*/requests.jsonl (`body` a string).
fn header_record(headers: &[(&str, &str)], body: &[u8]) -> String {
    let h: serde_json::Map<String, Value> = headers
        .iter()
        .map(|(k, v)| (k.to_string(), Value::from(*v)))
        .collect();
    let body = std::str::from_utf8(body).unwrap().trim_end();
    let rec = serde_json::json!({"method": "POST", "headers": h, "body": body});
    format!("{rec}\n")
}

#[test]
fn headers_file_checks_header_mirroring() {
    let dir = tempfile::tempdir().unwrap();
    let good = header_record(
        &[
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ],
        REQUEST_2026,
    );
    let bad = header_record(
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ],
        REQUEST_2026,
    );
    let get = "{\"method\":\"GET\",\"headers\":{\"accept\":\"text/event-stream\"}}\n";
    let f = temp_file(&dir, "ok.jsonl", format!("{good}{get}").as_bytes());
    let (code, recs, summary) = check_jsonl(&["--headers"], &f);
    assert_eq!(code, 0, "{recs:?}");
    assert_eq!(recs.len(), 1, "the GET record has no body and is skipped");
    assert_eq!(recs[0]["method"], "tools/list");
    assert_eq!(summary["frames"], 1);

    let f = temp_file(&dir, "bad.jsonl", format!("{good}{bad}").as_bytes());
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--headers"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs[0]["valid"], true);
    assert_eq!(recs[1]["valid"], false);
    assert_eq!(recs[1]["offset"], good.len());
    let v = &recs[1]["violations"][0];
    assert_eq!(v["code"], -32020, "{}", recs[1]);
    assert_eq!(v["kind"], "header-mismatch");
    // The offset is absolute in the headers file and inside the second record.
    let off = v["offset"].as_u64().unwrap() as usize;
    assert!(off > good.len() && off < good.len() + bad.len(), "{off}");
    assert_eq!(summary["invalid"], 1);

    // Human output names the headers file with line:col.
    mcpwire()
        .args(["check", "--headers"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("bad.jsonl:2:"))
        .stdout(predicate::str::contains("header-mismatch"));

    // Together with FILE arguments: both are checked and records carry the file name.
    let traffic = temp_file(&dir, "t.jsonl", VALID);
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--headers"])
        .arg(&f)
        .arg(&traffic)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 3);
    assert!(recs[0]["file"].as_str().unwrap().ends_with("t.jsonl"));
    assert!(recs[2]["file"].as_str().unwrap().ends_with("bad.jsonl"));
    assert_eq!(summary["files"], 2);
}

#[test]
fn headers_file_bad_records_and_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "h.jsonl",
        b"not json\n{\"headers\":5,\"body\":\"{}\"}\n{\"headers\":{},\"body\":\"{\\\"jsonrpc\\\":\"}\n",
    );
    let (code, recs, _) = check_jsonl(&["--headers"], &f);
    assert_eq!(code, 1);
    assert_eq!(recs.len(), 3);
    assert_eq!(kinds(&recs[0]), ["invalid-header-record"]);
    assert_eq!(recs[0]["violations"][0]["code"], -32700);
    assert_eq!(kinds(&recs[1]), ["invalid-header-record"]);
    assert_eq!(recs[1]["violations"][0]["code"], -32600);
    // A body that is not JSON: its core violation, once.
    assert_eq!(recs[2]["violations"].as_array().unwrap().len(), 1);
    assert_eq!(recs[2]["violations"][0]["code"], -32700);
    mcpwire()
        .args(["check", "--headers"])
        .arg(dir.path().join("missing.jsonl"))
        .assert()
        .code(2);
    // --headers needs a value.
    mcpwire().args(["check", "--headers"]).assert().code(2);
}

/// Regression (fresh-user trial): a POST record with an empty body (`""` or `null`), or
/// Spec trial, session 22: `check --headers` judged the whole file as one session, so under
/// `auto` a legacy POST (its own `MCP-Protocol-Version: 2025-11-25`, a session id) after a
/// modern request was held to 2026-07-28 rules (-32602 for the missing `_meta`). State is
/// now kept per `Mcp-Session-Id`, as `proxy http` keeps it: a record without one is judged
/// on its own, a legacy `initialize` without one hands its state to the next new session.
#[test]
fn headers_file_keeps_state_per_session_id() {
    let modern = r#"{"headers":[["MCP-Protocol-Version","2026-07-28"],["Mcp-Method","tools/list"]],"body":{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}}"#;
    let legacy = |sid: &str, id: u32| {
        format!(
            r#"{{"headers":[["MCP-Protocol-Version","2025-11-25"],["Mcp-Session-Id","{sid}"]],"body":{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}}}"#
        )
    };
    // A legacy `initialize` without a session id (2024-11-05: no tasks), then `tasks/get`
    // without `taskId` in the session its response opened (judged as 2024-11-05, which
    // requires nothing of a method it does not define) and in another (revision unknown:
    // the legacy union, whose `tasks/get` requires `taskId`).
    let init = r#"{"headers":[],"body":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}"#;
    let task = |sid: &str| {
        format!(
            r#"{{"headers":[["Mcp-Session-Id","{sid}"]],"body":{{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{{}}}}}}"#
        )
    };
    let lines = [
        modern.to_owned(),
        legacy("abc", 7),
        modern.to_owned(),
        init.to_owned(),
        task("s2"),
        task("s3"),
        task("s2"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "h.jsonl", (lines.join("\n") + "\n").as_bytes());
    let (code, recs, _) = check_jsonl(&["--headers"], &f);
    let got: Vec<Vec<String>> = recs.iter().map(kinds).collect();
    let mut want = vec![Vec::<String>::new(); 7];
    want[5] = vec!["missing-param".to_owned()];
    assert_eq!(got, want, "{recs:?}");
    assert_eq!(code, 1);
}

/// Re-trial, session 22: two `initialize` requests before their sessions' first records gave
/// the first new session the second's revision (a 2025-03-26 batch refused as 2025-06-18),
/// and an active session was dropped after 1,024 others (oldest first, not least recently
/// used), so its later batches passed. Waiting `initialize` states now go first come, first
/// served, and the least recently used session is dropped.
#[test]
fn headers_file_pairs_initializations_in_order_and_keeps_active_sessions() {
    let init = |v: &str| {
        format!(
            r#"{{"headers":[],"body":{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
        )
    };
    let batch = |sid: &str| {
        format!(
            r#"{{"headers":[["Mcp-Session-Id","{sid}"]],"body":[{{"jsonrpc":"2.0","id":2,"method":"ping"}}]}}"#
        )
    };
    let ping = |sid: &str| {
        format!(
            r#"{{"headers":[["Mcp-Session-Id","{sid}"]],"body":{{"jsonrpc":"2.0","id":3,"method":"ping"}}}}"#
        )
    };
    let mut lines = vec![
        init("2025-03-26"),
        init("2025-06-18"),
        batch("SA"),
        batch("SB"),
    ];
    for i in 0..1_100 {
        lines.push(ping(&format!("X{i}")));
        if i % 100 == 99 {
            lines.push(batch("SB"));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "h.jsonl", (lines.join("\n") + "\n").as_bytes());
    let (_, recs, _) = check_jsonl(&["--headers"], &f);
    let flagged: Vec<u64> = recs
        .iter()
        .filter(|r| kinds(r).iter().any(|k| k == "batch"))
        .map(|r| r["frame"].as_u64().unwrap())
        .collect();
    // SA (2025-03-26) may batch; SB (2025-06-18) may not, at frame 4 and at each of its 11
    // later batches, however many sessions came between.
    assert_eq!(flagged.len(), 12, "{flagged:?}");
    assert_eq!(flagged[0], 4, "{flagged:?}");
}

/// Second re-trial, session 22: a session dropped after 1,024 others that came back took a
/// waiting `initialize` of another client, and one `initialize` never answered with a
/// session shifted every later pairing. A returning session now starts fresh, and a new
/// session takes the waiting `initialize` that asked for the version its
/// `MCP-Protocol-Version` header names (else the oldest).
#[test]
fn headers_file_pairs_initializations_by_version_and_never_twice() {
    let init = |v: &str| {
        format!(
            r#"{{"headers":[],"body":{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}}}"#
        )
    };
    let note = |sid: &str, v: &str| {
        format!(
            r#"{{"headers":[["Mcp-Session-Id","{sid}"],["MCP-Protocol-Version","{v}"]],"body":{{"jsonrpc":"2.0","method":"notifications/initialized"}}}}"#
        )
    };
    let batch = |sid: &str| {
        format!(
            r#"{{"headers":[["Mcp-Session-Id","{sid}"]],"body":[{{"jsonrpc":"2.0","id":2,"method":"ping"}}]}}"#
        )
    };
    let flagged = |lines: &[String]| -> Vec<u64> {
        let dir = tempfile::tempdir().unwrap();
        let f = temp_file(&dir, "h.jsonl", (lines.join("\n") + "\n").as_bytes());
        let (_, recs, _) = check_jsonl(&["--headers"], &f);
        recs.iter()
            .filter(|r| kinds(r).iter().any(|k| k == "batch"))
            .map(|r| r["frame"].as_u64().unwrap())
            .collect()
    };
    // An unanswered 2025-06-18 initialize, then SA (2025-03-26, may batch) and SB
    // (2025-06-18, may not): only SB's batch, at frame 7, is refused.
    let lines = [
        init("2025-06-18"),
        init("2025-03-26"),
        note("SA", "2025-03-26"),
        batch("SA"),
        init("2025-06-18"),
        note("SB", "2025-06-18"),
        batch("SB"),
    ];
    assert_eq!(flagged(&lines), [7]);
    // S0 (2025-03-26) dropped after 1,024 other sessions comes back after a 2025-06-18
    // initialize: it starts fresh (its batch passes) and Snew takes the initialize.
    let mut lines = vec![init("2025-03-26"), note("S0", "2025-03-26")];
    lines.extend((1..=1024).map(|i| note(&format!("S{i}"), "2025-03-26")));
    lines.extend([
        init("2025-06-18"),
        batch("S0"),
        note("Snew", "2025-06-18"),
        batch("Snew"),
    ]);
    let n = lines.len() as u64;
    assert_eq!(flagged(&lines), [n]);
}

/// without a method, gave no record at all (exit 0), a lowercase `post` without a body was
/// skipped while `POST` was an error, and a PUT with a body passed unseen. Each is a record
/// now; GET and DELETE (no message) are still skipped, and `frame` is the line number.
#[test]
fn headers_file_empty_bodies_and_other_methods_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "h.jsonl",
        concat!(
            r#"{"method":"POST","headers":{"mcp-method":"tools/call"},"body":""}"#,
            "\n",
            r#"{"method":"POST","headers":{},"body":null}"#,
            "\n",
            r#"{"headers":{},"body":""}"#,
            "\n",
            r#"{"method":"post","headers":{}}"#,
            "\n",
            r#"{"method":"GET","headers":{}}"#,
            "\n",
            r#"{"method":"delete","headers":{}}"#,
            "\n",
            r#"{"method":"PUT","headers":{},"body":"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}"}"#,
            "\n",
        )
        .as_bytes(),
    );
    let (code, recs, summary) = check_jsonl(&["--headers"], &f);
    assert_eq!(code, 1);
    let got: Vec<(u64, Vec<String>)> = recs
        .iter()
        .map(|r| (r["frame"].as_u64().unwrap(), kinds(r)))
        .collect();
    let want = |k: &str| vec![k.to_owned()];
    assert_eq!(
        got,
        [
            (1, want("empty")),
            (2, want("empty")),
            (3, want("empty")),
            (4, want("invalid-header-record")),
            (7, want("invalid-header-record")),
        ]
    );
    assert!(recs[0]["violations"][0]["code"] == -32700);
    assert!(
        recs[4]["violations"][0]["message"]
            .as_str()
            .unwrap()
            .contains("\"PUT\""),
        "{}",
        recs[4]
    );
    assert_eq!(summary["invalid"], 5);
}

#[test]
fn tasks_extension_accepts_task_results() {
    let f = corpus("spec/extension-tasks.jsonl");
    assert_eq!(check_jsonl(&["--profile", "2026-07-28"], &f).0, 1);
    assert_eq!(
        check_jsonl(&["--profile", "2026-07-28", "--tasks-extension"], &f).0,
        0
    );
}

#[test]
fn framing_errors_are_records_not_silent_loss() {
    let dir = tempfile::tempdir().unwrap();
    // A last line without LF is reported, never parsed or dropped.
    let f = temp_file(&dir, "a.jsonl", &[VALID, b"{\"jsonrpc\":\"2.0\"}"].concat());
    let (code, recs, _) = check_jsonl(&[], &f);
    assert_eq!(code, 1);
    assert_eq!(recs.len(), 2);
    assert_eq!(kinds(&recs[1]), ["unterminated-line"]);
    assert_eq!(recs[1]["offset"], VALID.len());
    assert_eq!(recs[1]["len"], 17);
    // An SSE event without its blank line.
    let f = temp_file(&dir, "b.sse", b"data: {}\n");
    let (code, recs, _) = check_jsonl(&["--transport", "sse"], &f);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[0]), ["unterminated-event"]);
    // An HTTP body over the limit.
    let f = temp_file(&dir, "c.json", VALID);
    let n = (VALID.len() - 2).to_string();
    let (code, recs, _) = check_jsonl(&["--transport", "http-body", "--max-frame-bytes", &n], &f);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[0]), ["body-too-large"]);
    assert_eq!(recs[0]["violations"][0]["code"], -32600);
}

/// Regression tests from a new-user trial: the 2024-11-05 `endpoint` event is not a message
/// (it was reported as `unexpected-byte`), and an SSE data line over the line limit is
/// `event-too-large` with -32600 (it was `line-too-long`, -32700).
#[test]
fn sse_endpoint_event_and_overlong_data_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "e.sse",
        b"event: endpoint\ndata: /messages?session_id=abc\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
    );
    let (code, recs, _) = check_jsonl(&["--transport", "sse", "--profile", "2024-11-05"], &f);
    assert_eq!(code, 0, "{recs:?}");
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["shape"], "result");
    // `--max-frame-bytes 100`: the line limit is 164; a data value of 200 bytes.
    let big = format!("data: {}\n\ndata: {{}}\n\n", "a".repeat(200));
    let f = temp_file(&dir, "big.sse", big.as_bytes());
    let (code, recs, _) = check_jsonl(&["--transport", "sse", "--max-frame-bytes", "100"], &f);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[0]), ["event-too-large"]);
    assert_eq!(recs[0]["violations"][0]["code"], -32600);
    assert_eq!(recs[0]["offset"], 0);
}

/// Trial doubt (session 12): SSE events of another type than `message` were skipped with
/// no trace, so a server that wrote `event: Message` checked as "0 frames" and exit 0. They
/// are still not frames (MCP clients do not read them), but `check` and `stats` count them
/// by type; events without data (priming) are not counted.
#[test]
fn sse_events_of_other_types_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "s.sse",
        b"event: endpoint\ndata: /messages?session_id=abc\n\nid: 0\ndata:\n\n\
          event: Message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\
          event: Message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n\
          data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
    );
    let (code, recs, sum) = check_jsonl(&["--transport", "sse", "--profile", "2024-11-05"], &f);
    assert_eq!(code, 0, "{recs:?}");
    assert_eq!(recs.len(), 1);
    assert_eq!(
        sum["sse_other_events"],
        serde_json::json!({"Message": 2, "endpoint": 1})
    );
    let text = stdout_of(
        &["check", "--transport", "sse", "--profile", "2024-11-05"],
        &f,
        0,
    );
    assert!(
        text.contains("SSE events of other types (skipped, not frames):"),
        "{text}"
    );
    assert!(text.contains("Message"), "{text}");
    let st = stdout_of(&["stats", "--transport", "sse", "--format", "jsonl"], &f, 0);
    let st: Value = serde_json::from_str(st.trim()).unwrap();
    assert_eq!(st["sse_other_events"]["Message"], 2);
    // A stdio input has none.
    let g = temp_file(&dir, "v.jsonl", VALID);
    let (_, _, sum) = check_jsonl(&[], &g);
    assert_eq!(sum["sse_other_events"], serde_json::json!({}));
}

/// Hostile trial (session 13), exact input: four events whose `data` field name is misspelt
/// checked as "0 frames", exit 0, with no trace. The lines are still ignored (the event
/// stream standard says so), but counted: `sse_unknown_fields` and a human line.
#[test]
fn sse_misspelt_field_names_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "lost.sse",
        b"Data: M\n\ndata : M\n\n\xef\xbb\xbf\xef\xbb\xbfdata: M\n\n data: M\n\n",
    );
    let (code, recs, sum) = check_jsonl(&["--transport", "sse"], &f);
    assert_eq!((code, recs.len()), (0, 0));
    assert_eq!(sum["sse_unknown_fields"], 4);
    let text = stdout_of(&["check", "--transport", "sse"], &f, 0);
    assert!(
        text.contains("SSE lines with an unknown field name (ignored, values lost; e.g. a misspelt `Data:`): 4"),
        "{text}"
    );
    let st = stdout_of(&["stats", "--transport", "sse", "--format", "jsonl"], &f, 0);
    let st: Value = serde_json::from_str(st.trim()).unwrap();
    assert_eq!(st["sse_unknown_fields"], 4);
    // None on a clean stream, and none for stdio.
    let g = temp_file(&dir, "ok.sse", b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n");
    let (_, _, sum) = check_jsonl(&["--transport", "sse"], &g);
    assert_eq!(sum["sse_unknown_fields"], 0);
    let text = stdout_of(&["check", "--transport", "sse"], &g, 0);
    assert!(!text.contains("unknown field"), "{text}");
}

/// The per-type counts are bounded: at most 32 type names, the rest under "(more types)";
/// a name is kept whole up to 64 bytes and cut there (at a character boundary) with "…".
/// Each limit at the boundary and one either side.
#[test]
fn sse_other_event_counts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let names = |n: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("event: t{i}\ndata: x\n\n").into_bytes())
            .collect()
    };
    for (n, named, more) in [(31, 31, None), (32, 32, None), (33, 32, Some(1))] {
        let f = temp_file(&dir, &format!("n{n}.sse"), &names(n));
        let (code, _, sum) = check_jsonl(&["--transport", "sse"], &f);
        assert_eq!(code, 0);
        let m = sum["sse_other_events"].as_object().unwrap().clone();
        assert_eq!(m.len(), named + usize::from(more.is_some()), "{n}: {m:?}");
        assert_eq!(m.get("(more types)").and_then(Value::as_u64), more, "{n}");
    }
    // Two files of 20 types each: the run's total keeps 32 names too.
    let a = temp_file(&dir, "a.sse", &names(20));
    let b: Vec<u8> = (20..40)
        .flat_map(|i| format!("event: t{i}\ndata: x\n\n").into_bytes())
        .collect();
    let b = temp_file(&dir, "b.sse", &b);
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--transport", "sse"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let (_, sum) = jsonl(&out.stdout);
    let m = sum["sse_other_events"].as_object().unwrap().clone();
    assert_eq!(m.len(), 33, "{m:?}");
    assert_eq!(m["(more types)"], 8);
    for (len, want) in [
        (63, "a".repeat(63)),
        (64, "a".repeat(64)),
        (65, format!("{}…", "a".repeat(64))),
    ] {
        let f = temp_file(
            &dir,
            &format!("l{len}.sse"),
            format!("event: {}\ndata: x\n\n", "a".repeat(len)).as_bytes(),
        );
        let (_, _, sum) = check_jsonl(&["--transport", "sse"], &f);
        assert_eq!(sum["sse_other_events"][&want], 1, "{len}");
    }
    // A name of 1 MiB: only its first 64 bytes are kept.
    let f = temp_file(
        &dir,
        "huge.sse",
        format!("event: {}\ndata: x\n\n", "b".repeat(1 << 20)).as_bytes(),
    );
    let (_, _, sum) = check_jsonl(&["--transport", "sse"], &f);
    assert_eq!(sum["sse_other_events"][&format!("{}…", "b".repeat(64))], 1);
    // A cut never splits a character: "é" (2 bytes) across the 64-byte mark.
    let name = format!("{}é", "a".repeat(63));
    let f = temp_file(
        &dir,
        "utf8.sse",
        format!("event: {name}\ndata: x\n\n").as_bytes(),
    );
    let (_, _, sum) = check_jsonl(&["--transport", "sse"], &f);
    let want = format!("{}…", "a".repeat(63));
    assert_eq!(sum["sse_other_events"][&want], 1);
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
    // The total as `{"total":{…}}` (trial doubt: a bare object told apart only by its
    // missing `file`).
    let total = &lines[2]["total"];
    assert!(total.get("file").is_none(), "{}", lines[2]);
    assert_eq!(total["frames"], 45 + 92);
}

/// Hostile trial (session 13): `stats --format jsonl DIR FILE` wrote no line for the
/// directory and the total had no error count; now every input has a line (`error` and
/// `io_errors: 1` for the unreadable one), the total counts it, and the exit status is 2.
#[test]
fn stats_reports_unreadable_inputs_in_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let good = temp_file(&dir, "good.jsonl", VALID);
    let out = mcpwire()
        .args(["stats", "--format", "jsonl"])
        .arg(dir.path())
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["io_errors"], 1);
    assert!(
        lines[0]["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0]["frames"], 0);
    assert_eq!(lines[1]["io_errors"], 0);
    assert!(lines[1].get("error").is_none(), "{}", lines[1]);
    assert_eq!(lines[2]["total"]["io_errors"], 1);
    assert_eq!(lines[2]["total"]["frames"], lines[1]["frames"]);
    let out = mcpwire().arg("stats").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("unreadable: "), "{text}");
}

/// An input with no frame has no message sizes: `null` in JSON lines and "no frame read
/// whole" in the table, not a row of zeros that reads as four zero-byte frames (regression: session 8 note).
#[test]
fn stats_of_empty_input_has_no_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let empty = temp_file(&dir, "empty.jsonl", b"");
    let text = stdout_of(&["stats"], &empty, 0);
    assert!(text.contains("0 frames"), "{text}");
    assert!(
        text.contains("message sizes: no frame read whole"),
        "{text}"
    );
    assert!(!text.contains("min 0"), "{text}");
    let line = stdout_of(&["stats", "--format", "jsonl"], &empty, 0);
    let s: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(s["frames"], 0);
    assert!(s["sizes"].is_null(), "{s}");
    let one = temp_file(&dir, "one.jsonl", REQUEST_NO_META);
    let line = stdout_of(&["stats", "--format", "jsonl"], &one, 0);
    let s: Value = serde_json::from_str(line.trim()).unwrap();
    let n = REQUEST_NO_META.len() as u64 - 1;
    for k in ["min", "median", "p99", "max"] {
        assert_eq!(s["sizes"][k], n, "{s}");
    }
    // Trial finding: an oversize frame counted its detection length (limit + 2) as its size.
    let big = [&b"x"[..]; 64].concat();
    let input = [REQUEST_NO_META, &big, b"\n"].concat();
    let f = temp_file(&dir, "big.jsonl", &input);
    let line = stdout_of(
        &["stats", "--format", "jsonl", "--max-frame-bytes", "60"],
        &f,
        0,
    );
    let s: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(s["frames"], 2, "{s}");
    assert_eq!(s["sizes"]["max"], n, "{s}");
    let only_big = temp_file(&dir, "only-big.jsonl", &[&big[..], b"\n"].concat());
    let args = ["stats", "--max-frame-bytes", "60"];
    let text = stdout_of(&args, &only_big, 0);
    assert!(
        text.contains("message sizes: no frame read whole"),
        "{text}"
    );
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

/// Runs `check` over `input` (a file) with stdout read up to its first line and then closed,
/// as `mcpwire check … | head -1` does; returns the exit code and that line.
fn check_with_stdout_closed_after_one_line(args: &[&str], input: &Path) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("mcpwire");
    let mut child = StdCommand::new(bin)
        .arg("check")
        .args(args)
        .arg(input)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe's read end is closed while the child still has
    // megabytes to write.
    let code = child.wait().unwrap().code().expect("exited, not signalled");
    (code, first)
}

/// Regression: `mcpwire check --format jsonl dup.jsonl | head -1` exited 0 although every
/// frame was invalid (EPIPE was treated as success). With the pipe closed early the status
/// is the verdict so far: 1 when a judged frame was invalid, else 2 (an I/O error) — never 0.
#[test]
fn closed_stdout_never_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let dup = temp_file(
        &dir,
        "dup.jsonl",
        &br#"{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}
"#
        .repeat(20_000),
    );
    for format in ["jsonl", "human"] {
        let (code, first) = check_with_stdout_closed_after_one_line(&["--format", format], &dup);
        assert!(
            !first.is_empty(),
            "{format}: some output before the pipe closed"
        );
        assert_eq!(code, 1, "{format}: invalid frames were judged before EPIPE");
    }
    // All frames valid so far, but the run could not finish: an I/O error, not success.
    let ok = temp_file(&dir, "ok.jsonl", &VALID.repeat(20_000));
    let (code, first) = check_with_stdout_closed_after_one_line(&["--format", "jsonl"], &ok);
    assert!(first.contains("\"valid\":true"), "{first}");
    assert_eq!(code, 2);
}

/// Regression: `--format jsonl` did one `write(2)` per frame (52 750 writes for 50 MB). Output
/// to a file argument is buffered: far fewer writes to fd 1 than frames. Counted with
/// `strace`; skipped where it is not installed or not permitted.
#[test]
fn jsonl_output_is_buffered_not_one_write_per_frame() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp_file(&dir, "ok.jsonl", &VALID.repeat(20_000));
    let trace = dir.path().join("trace");
    let bin = assert_cmd::cargo::cargo_bin("mcpwire");
    let status = StdCommand::new("strace")
        .args(["-f", "-e", "trace=write", "-o"])
        .arg(&trace)
        .arg(bin)
        .args(["check", "--format", "jsonl"])
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let Ok(status) = status else {
        eprintln!("skipped: strace not found");
        return;
    };
    let Ok(log) = std::fs::read_to_string(&trace) else {
        eprintln!("skipped: strace gave no trace ({status})");
        return;
    };
    if !log.contains("write(") {
        eprintln!("skipped: strace could not trace ({status})");
        return;
    }
    assert_eq!(status.code(), Some(0));
    let writes = log.lines().filter(|l| l.contains("write(1,")).count();
    // 20 000 records of ~180 bytes = ~3.6 MB: a 64 KiB buffer gives ~60 writes.
    assert!(
        (1..=500).contains(&writes),
        "{writes} writes to stdout for 20 000 frames"
    );
}

/// `--format jsonl` output bypasses the colour adapter (it took 42 % of the time on small
/// frames, scanning for escape codes the records never hold, session 22): a method holding
/// an escaped ESC (and a `:` beside it) still comes out as valid JSON with the ESC escaped,
/// never as a raw byte.
#[test]
fn jsonl_records_hold_no_raw_escape_codes() {
    let dir = tempfile::tempdir().unwrap();
    let input = temp_file(
        &dir,
        "esc.jsonl",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"x\\u001b[31m:\\u001b]8;;\",\"params\":{\"a\":\"\\u001b\"}}\n\
          {\"jsonrpc\":\"2.0\",\"method\":\"\xc2\x9b31m\xe2\x80\xa8\x7f\xc2\x85\xc3\xa9\"}\n",
    );
    let out = mcpwire()
        .args(["check", "--format", "jsonl"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.stdout.contains(&0x1b), "raw ESC in the output");
    let (recs, summary) = jsonl(&out.stdout);
    assert_eq!(recs[0]["method"], "x\u{1b}[31m:\u{1b}]8;;");
    assert_eq!(summary["methods"]["x\u{1b}[31m:\u{1b}]8;;"], 1, "{summary}");
    // Re-trial, session 22: DEL, the C1 controls (U+009B starts a terminal escape sequence
    // on its own) and U+2028 came out raw; they are escaped now, in `stats` too, and the
    // text reads back the same. Other non-ASCII text stays as it is.
    let m = "\u{9b}31m\u{2028}\u{7f}\u{85}\u{e9}";
    assert_eq!(recs[1]["method"], m);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(r"\u009b31m\u2028\u007f\u0085" /* then é */),
        "{text}"
    );
    let stats = mcpwire()
        .args(["stats", "--format", "jsonl"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(stats.stdout).unwrap();
    for raw in ['\u{9b}', '\u{2028}', '\u{7f}', '\u{85}', '\u{1b}'] {
        assert!(!text.contains(raw), "{raw:?} raw in {text}");
    }
    let st: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(st["methods"][m], 1, "{st}");
}

/// Regression: `--max-frame-bytes 0` was accepted and made every frame `frame-too-large`. It
/// is a usage error (exit 2) for `check`, `stats` and both proxies; 1 is the smallest limit.
#[test]
fn max_frame_bytes_0_is_a_usage_error() {
    let f = corpus("spec/tools.jsonl");
    for cmd in [&["check"][..], &["stats"]] {
        mcpwire()
            .args(cmd)
            .args(["--max-frame-bytes", "0"])
            .arg(&f)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("--max-frame-bytes"));
    }
    for proxy in [
        &["proxy", "stdio", "--max-frame-bytes", "0", "--", "true"][..],
        &[
            "proxy",
            "http",
            "--max-frame-bytes",
            "0",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "http://127.0.0.1:9/mcp",
        ],
    ] {
        mcpwire()
            .args(proxy)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--max-frame-bytes"));
    }
    // One byte either side of the boundary: 1 is accepted (and every frame is too large).
    mcpwire()
        .args(["check", "--max-frame-bytes", "1", "--format", "jsonl"])
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("frame-too-large"));
}

/// Regression: `--headers -` looked for a file named `-`. It reads the records from stdin,
/// like a `-` FILE; both at once is an error (exit 2).
#[test]
fn headers_dash_reads_stdin() {
    let good = header_record(
        &[
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
        ],
        REQUEST_2026,
    );
    let out = mcpwire()
        .args(["check", "--format", "jsonl", "--headers", "-"])
        .write_stdin(good)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let (recs, summary) = jsonl(&out);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["valid"], true, "{}", recs[0]);
    assert_eq!(summary["io_errors"], 0);
    mcpwire()
        .args(["check", "--headers", "-", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("standard input"));
    // New-user trial (session 12): `-` twice read nothing the second time, silently.
    mcpwire()
        .args(["check", "-", "-"])
        .write_stdin("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("more than once"));
}

/// Regression: `check --help` printed "(see [`input::infer_direction`])" for `--direction
/// auto`, and the top-level help named only the stdio proxy.
#[test]
fn help_states_the_direction_rule_and_both_proxies() {
    mcpwire()
        .args(["check", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("infer_direction").not())
        .stdout(predicate::str::contains("*.response.json"));
    mcpwire()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("proxy http"));
}

/// `legacy` is the union of the pre-2026 revisions, so it knows `elicitation/create` (added in
/// 2025-06-18, server-to-client) and flags it sent client-to-server; `2024-11-05` does not
/// know the method and, legacy method sets being open, does not flag it (README, `--profile`).
#[test]
fn legacy_union_knows_later_methods_that_2024_11_05_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "req.jsonl",
        br#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}
"#,
    );
    let run = |profile: &str, code: i32| {
        let out = mcpwire()
            .args(["check", "--format", "jsonl", "--profile", profile])
            .args(["--direction", "client-to-server"])
            .arg(&f)
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone();
        jsonl(&out).0.remove(0)
    };
    let legacy = run("legacy", 1);
    assert_eq!(legacy["violations"][0]["kind"], "wrong-direction");
    assert_eq!(
        legacy["violations"][0]["message"],
        "request \"elicitation/create\" is not sent client-to-server in legacy (only server-to-client)"
    );
    let old = run("2024-11-05", 0);
    assert_eq!(old["valid"], true);
}

/// The human summary says "1 frame", not "1 frames" (new-user trial), in `check` and `stats`.
#[test]
fn one_frame_is_singular_in_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let human = |cmd: &str, f: &Path| stdout_of(&[cmd], f, 0);
    let f = temp_file(&dir, "one.jsonl", VALID);
    let text = human("check", &f);
    assert!(text.starts_with("1 frame: 1 valid, 0 invalid"), "{text}");
    let text = human("stats", &f);
    assert!(text.contains(": 1 frame, "), "{text}");
    let f = temp_file(&dir, "two.jsonl", &[VALID, VALID].concat());
    assert!(human("check", &f).starts_with("2 frames: 2 valid"));
}

/// The human snippet shows the input line the header names, with the caret at the header's
/// column: an SSE data value with its `data:` prefix, an unterminated last line with its
/// bytes; a discarded frame says it has no text instead of an empty snippet (new-user trial:
/// the SSE caret stood 6 columns left of the header's, and those two snippets were empty).
#[test]
fn human_snippet_matches_the_header_column() {
    let dir = tempfile::tempdir().unwrap();
    let human = |args: &[&str], f: &Path| stdout_of(&[&["check"], args].concat(), f, 1);
    // Caret column of the first `^` line, counted in the snippet's source line.
    let caret_col = |text: &str, src_prefix: &str| {
        let src = text.lines().find(|l| l.contains(src_prefix)).unwrap();
        let caret = text.lines().find(|l| l.contains('^')).unwrap();
        let bar = src.find('|').unwrap() + 2;
        (caret.find('^').unwrap() - bar + 1, src[bar..].to_owned())
    };
    for (sep, col) in [("data: ", 43), ("data:", 42)] {
        let ev = format!(
            "event: message\n{sep}{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}},\"id\":2}}\n\n"
        );
        let f = temp_file(&dir, "dup.sse", ev.as_bytes());
        let text = human(&["--transport", "sse"], &f);
        assert!(text.contains(&format!("dup.sse:2:{col}: ")), "{text}");
        let (c, src) = caret_col(&text, sep);
        assert_eq!(c, col, "{text}");
        assert!(src.starts_with(sep), "{text}");
    }
    let f = temp_file(
        &dir,
        "noeol.jsonl",
        &[VALID, b"{\"jsonrpc\":\"2.0\",\"id\":1"].concat(),
    );
    let text = human(&[], &f);
    assert!(text.contains("noeol.jsonl:2:1: "), "{text}");
    assert!(text.contains("2 | {\"jsonrpc\":\"2.0\",\"id\":1"), "{text}");
    let text = human(&["--max-frame-bytes", "10"], &f);
    assert!(text.contains("[frame-too-large]"), "{text}");
    assert!(text.contains("no frame text to show"), "{text}");
}

/// `stats` counts the id of a frame rejected only by the duplicate-key policy as `check`
/// shows it, and a frame that is not JSON as `unreadable`, not `absent` (new-user trial).
#[test]
fn stats_ids_of_rejected_frames() {
    let dir = tempfile::tempdir().unwrap();
    let input = [
        &br#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#[..],
        b"\n",
        br#"{"jsonrpc":"2.0","id":"x","method":"a","method":"b"}"#,
        b"\nnot json\n",
        br#"{"jsonrpc":"2.0","method":"n"}"#,
        b"\n",
    ]
    .concat();
    let f = temp_file(&dir, "ids.jsonl", &input);
    let out = stdout_of(&["stats", "--format", "jsonl"], &f, 0);
    let s: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(s["frames"], 4);
    assert_eq!(s["ids"]["integer"], 1, "{s}");
    assert_eq!(s["ids"]["string"], 1, "{s}");
    assert_eq!(s["ids"]["unreadable"], 1, "{s}");
    assert_eq!(s["ids"]["absent"], 1, "{s}");
}

/// Trial finding: under `auto`, one result with a `resultType` member switched an input that
/// an `initialize` handshake had settled on 2025-06-18 to 2026-07-28 rules for the rest of the
/// file (every later frame flagged). The exact input of the trial.
#[test]
fn auto_keeps_the_revision_initialize_settled() {
    let dir = tempfile::tempdir().unwrap();
    let input = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"custom/thing","params":{}}
{"jsonrpc":"2.0","id":1,"result":{"resultType":"whatever","value":1}}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}
{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
{"jsonrpc":"2.0","id":3,"method":"ping"}
"#;
    let f = temp_file(&dir, "era.jsonl", input);
    let (code, recs, summary) = check_jsonl(&[], &f);
    let bad: Vec<_> = recs.iter().filter(|r| r["valid"] != true).collect();
    assert_eq!((code, bad.len()), (0, 0), "{bad:?}");
    assert_eq!(summary["valid"], 8);
    // The server's side alone: the initialize result settles 2025-06-18 too.
    let s2c: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let s2c = [s2c[1], b"\n", s2c[4], b"\n", s2c[6], b"\n"].concat();
    let f = temp_file(&dir, "server-to-client.jsonl", &s2c);
    let (code, _, summary) = check_jsonl(&[], &f);
    assert_eq!((code, &summary["valid"]), (0, &Value::from(3)), "{summary}");
    // Where nothing decided yet, `resultType` still marks 2026-07-28.
    let f = temp_file(
        &dir,
        "server-to-client-2.jsonl",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}\n",
    );
    let (_, recs, _) = check_jsonl(&[], &f);
    assert_eq!(kinds(&recs[1]), ["missing-result-type"]);
}

/// Trial finding: method names went to the human report as they were, so a peer could send
/// escape sequences to the reader's terminal and forge report lines with CR / LF.
#[test]
fn method_names_cannot_write_escapes_or_lines_to_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "esc.jsonl",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"x\\u001b[31mRED\\u001b[0m\\r\\nFAKE LINE\\u202e\"}\n",
    );
    for cmd in ["check", "stats"] {
        let text = stdout_of(&[cmd], &f, 0);
        assert!(
            text.contains(r"x\u{1b}[31mRED\u{1b}[0m\u{d}\u{a}FAKE LINE\u{202e}"),
            "{cmd}: {text}"
        );
        assert!(
            !text.contains(['\u{1b}', '\r', '\u{202e}']),
            "{cmd}: {text:?}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("FAKE")),
            "{cmd}: {text}"
        );
    }
}

/// Trial finding: a lone CR after the last LF (`{}\n\r`) made the file invalid
/// (`unterminated-line`), though a lone CR line is a blank line.
#[test]
fn a_last_lone_cr_is_a_blank_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "cr.jsonl",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\r",
    );
    let (code, recs, _) = check_jsonl(&[], &f);
    assert_eq!((code, recs.len()), (0, 1));
}

/// Re-trial finding (same class as `auto_keeps_the_revision_initialize_settled`): one request
/// whose `_meta` names a protocol version (here not even a string) after an `initialize`
/// handshake switched the rest of the input to 2026-07-28 rules. That request is judged under
/// 2026-07-28; the requests after it stay legacy.
#[test]
fn auto_judges_a_modern_request_alone_once_initialize_settled() {
    let dir = tempfile::tempdir().unwrap();
    let input = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}
{"jsonrpc":"2.0","id":3,"method":"tools/list"}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}
"#;
    let f = temp_file(&dir, "p2_auto.jsonl", input);
    let (code, recs, _) = check_jsonl(&["--direction", "c2s"], &f);
    assert_eq!(code, 1);
    let invalid: Vec<u64> = recs
        .iter()
        .filter(|r| r["valid"] != true)
        .map(|r| r["frame"].as_u64().unwrap())
        .collect();
    assert_eq!(invalid, [4], "{recs:?}");
}

/// Re-trial findings: the Arabic letter mark (a bidi control) and invisible characters
/// (zero width space, word joiner, BOM) reached the terminal raw, so `tools/list\u{200b}`
/// read as `tools/list`; and file names went raw into `file:line:col` headers, so a file name
/// with a newline forged a report line.
#[test]
fn invisible_characters_and_file_names_are_escaped_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "evil\u{1b}[31m\nFORGED:1:1: ok.jsonl",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\\u200b\\u061c\\u2060\\ufeff\",\"id\":1}\n",
    );
    let text = stdout_of(
        &["check", "--profile", "2026-07-28", "--direction", "c2s"],
        &f,
        1,
    );
    assert!(
        text.contains(r"tools/list\u{200b}\u{61c}\u{2060}\u{feff}"),
        "{text}"
    );
    assert!(
        text.contains(r"evil\u{1b}[31m\u{a}FORGED:1:1: ok.jsonl:1:"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("FORGED")), "{text}");
    assert!(
        !text.contains(['\u{200b}', '\u{61c}', '\u{2060}', '\u{feff}', '\u{1b}']),
        "{text:?}"
    );
    let text = stdout_of(&["stats"], &f, 0);
    assert!(!text.lines().any(|l| l.starts_with("FORGED")), "{text}");
    assert!(!text.contains(['\u{200b}', '\u{1b}']), "{text:?}");
}

/// Re-trial finding: in an event with more than 1,025 `data:` lines, offsets past the first
/// 1,025 lines were wrong (the framer keeps 1,024 later starts by default, and the CLI fell
/// back to counting from the first value). The CLI keeps every start: exact offsets.
#[test]
fn sse_offsets_are_exact_past_1025_data_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = b"data: {\"jsonrpc\":\"2.0\",\n".to_vec();
    for _ in 0..1100 {
        input.extend_from_slice(b"data:  \n");
    }
    input.extend_from_slice(b"data: \"id\":1,\"method\":\"ping\",,}\n\n");
    let f = temp_file(&dir, "long.sse", &input);
    let (code, recs, _) = check_jsonl(&["--transport", "sse"], &f);
    assert_eq!(code, 1);
    let bad = input.windows(2).position(|w| w == b",,").unwrap() + 1;
    assert_eq!(recs[0]["violations"][0]["offset"], bad, "{recs:?}");
    let text = stdout_of(&["check", "--transport", "sse"], &f, 1);
    assert!(text.contains("long.sse:1102:30: "), "{text}");
    assert!(
        text.contains("data: \"id\":1,\"method\":\"ping\",,}"),
        "{text}"
    );
}

/// Trial finding (session 10): names that are not UTF-8 read alike in jsonl (`bad\xff` and
/// `bad\xfe` were both `bad\u{FFFD}`). A `file_base64` field carries the name's bytes in
/// `check` records, `stats` reports and `summary.unreadable`; UTF-8 names have none.
#[cfg(unix)]
#[test]
fn non_utf8_file_names_are_told_apart_in_jsonl() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let frame = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    let names: Vec<PathBuf> = [&b"bad\xff"[..], b"bad\xfe", b"ok"]
        .iter()
        .map(|n| dir.path().join(OsStr::from_bytes(n)))
        .collect();
    for p in &names {
        std::fs::write(p, frame).unwrap();
    }
    let missing = dir.path().join(OsStr::from_bytes(b"gone\xff"));
    let b64 = |p: &Path| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(p.as_os_str().as_bytes())
    };
    let out = Command::cargo_bin("mcpwire")
        .unwrap()
        .args(["check", "--format", "jsonl"])
        .args(&names)
        .arg(&missing)
        .output()
        .unwrap();
    let recs: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs[0]["file"], recs[1]["file"], "both lossy: {recs:?}");
    assert_eq!(recs[0]["file_base64"], b64(&names[0]));
    assert_eq!(recs[1]["file_base64"], b64(&names[1]));
    assert!(recs[2].get("file_base64").is_none(), "{}", recs[2]);
    let gone = &recs[3]["summary"]["unreadable"][0];
    assert_eq!(gone["file_base64"], b64(&missing), "{gone}");
    let out = Command::cargo_bin("mcpwire")
        .unwrap()
        .args(["stats", "--format", "jsonl"])
        .args(&names[..2])
        .output()
        .unwrap();
    let reps: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reps[0]["file_base64"], b64(&names[0]));
    assert_eq!(reps[1]["file_base64"], b64(&names[1]));
}

/// Hostile trial (session 12): an empty request body passed `check --transport http-body`
/// with 0 frames (exit 0). A POST always carries a message and a server answers an empty one
/// -32700; only a response (`202 Accepted`) may have no body.
#[test]
fn empty_request_body_is_an_empty_frame_and_an_empty_response_body_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let req = temp_file(&dir, "empty.request.json", b"");
    let (code, recs, summary) = check_jsonl(&["--transport", "http-body"], &req);
    assert_eq!(code, 1, "{recs:?}");
    assert_eq!(recs.len(), 1);
    assert_eq!(kinds(&recs[0]), ["empty"]);
    assert_eq!(recs[0]["violations"][0]["code"], -32700);
    assert_eq!(
        (recs[0]["offset"].as_u64(), recs[0]["len"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(summary["frames"], 1);
    // `--direction c2s` on any name does the same.
    let any = temp_file(&dir, "body.json", b"");
    let (code, recs, _) = check_jsonl(&["--transport", "http-body", "--direction", "c2s"], &any);
    assert_eq!((code, kinds(&recs[0])), (1, vec!["empty".to_owned()]));
    // A response body, or one of unknown direction, may be empty: no frame.
    let resp = temp_file(&dir, "empty.response.json", b"");
    for (f, extra) in [(&resp, None), (&any, None), (&any, Some("s2c"))] {
        let mut args = vec!["--transport", "http-body"];
        if let Some(d) = extra {
            args.extend(["--direction", d]);
        }
        let (code, recs, summary) = check_jsonl(&args, f);
        assert_eq!((code, recs.len()), (0, 0), "{f:?} {extra:?}");
        assert_eq!(summary["frames"], 0);
    }
}

/// Hostile trial (session 12): `check` never ran the request-id tracker, so a legacy client
/// reusing an id, or a batch with one id twice, passed. One sender's file is enough for
/// those two findings; the peer's side is unseen, so each request counts as answered and
/// responses to the peer's requests are not matched.
#[test]
fn check_tracks_one_senders_request_ids() {
    let dir = tempfile::tempdir().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let inited = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let legacy = format!("{init}\n{inited}\n{list}\n{list}\n");
    let f = temp_file(&dir, "client-to-server.jsonl", legacy.as_bytes());
    let (code, recs, _) = check_jsonl(&[], &f);
    assert_eq!(code, 1);
    let got: Vec<Vec<String>> = recs.iter().map(kinds).collect();
    assert_eq!(
        got,
        [
            vec![],
            vec![],
            vec!["reused-request-id".to_owned()],
            vec!["reused-request-id".to_owned()],
        ]
    );
    // A new `initialize` starts a new session: id 1 is free again.
    let again = format!("{init}\n{list}\n{init}\n");
    let f = temp_file(&dir, "a.client-to-server.jsonl", again.as_bytes());
    let (_, recs, _) = check_jsonl(&[], &f);
    assert_eq!(kinds(&recs[1]), ["reused-request-id"]);
    assert_eq!(kinds(&recs[2]), Vec::<String>::new());
    // A batch with one id twice (2025-03-26): the second is a duplicate in flight.
    let batch = format!("[{list},{list}]\n");
    let f = temp_file(&dir, "b.jsonl", batch.as_bytes());
    let (code, recs, _) = check_jsonl(&["--profile", "2025-03-26", "--direction", "c2s"], &f);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[0]), ["duplicate-request-id"]);
    // Unknown direction (mixed traffic, stdin): no tracking.
    let (code, _, _) = check_jsonl(&["--profile", "2025-03-26"], &f);
    assert_eq!(code, 0);
    // 2026-07-28 ids may be used again once answered: sequential reuse passes.
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{{meta}}}}}"#);
    let f = temp_file(
        &dir,
        "m.client-to-server.jsonl",
        format!("{call}\n{call}\n").as_bytes(),
    );
    let (code, recs, _) = check_jsonl(&[], &f);
    assert_eq!(code, 0, "{recs:?}");
    // A server's file: its responses answer requests not in the file; never unknown ids.
    let answers = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
    let f = temp_file(
        &dir,
        "server-to-client.jsonl",
        format!("{answers}\n{answers}\n").as_bytes(),
    );
    let (code, recs, _) = check_jsonl(&["--profile", "2025-03-26"], &f);
    assert_eq!(code, 0, "{recs:?}");
}

/// Re-trial (session 12): `check --headers` dropped the header check's core-kind findings
/// (it reports the body's parse errors itself), so a repeated `params.taskId` that only the
/// header check reads passed: `Mcp-Name: t1` matched the first copy, a last-wins backend
/// reads `t2`.
#[test]
fn headers_file_reports_a_repeated_member_only_the_header_check_reads() {
    let dir = tempfile::tempdir().unwrap();
    let body = br#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1","taskId":"t2","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let h = [
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tasks/get"),
        ("Mcp-Name", "t1"),
    ];
    let f = temp_file(&dir, "h2.jsonl", header_record(&h, body).as_bytes());
    let (code, recs, _) = check_jsonl(&["--tasks-extension", "--headers"], &f);
    assert_eq!(code, 1, "{recs:?}");
    // Reported once (the validator's required-params check and the header check both read
    // `taskId`).
    assert_eq!(kinds(&recs[0]), ["duplicate-params-key"]);
    // Without the repeat: valid.
    let once = String::from_utf8_lossy(body).replace(r#","taskId":"t2""#, "");
    let f = temp_file(
        &dir,
        "h1.jsonl",
        header_record(&h, once.as_bytes()).as_bytes(),
    );
    let (code, recs, _) = check_jsonl(&["--tasks-extension", "--headers"], &f);
    assert_eq!(code, 0, "{recs:?}");
}

/// Hostile trial (session 14): a `tools/call` with `params.arguments` written twice checked as
/// valid (a first-wins policy reads `/ok`, a last-wins backend runs `/etc/passwd`). Exact
/// input of the trial: now `duplicate-params-key` (-32602), exit 1.
#[test]
fn repeated_tool_arguments_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"path":"/ok"},"arguments":{"path":"/etc/passwd"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut line = body.to_vec();
    line.push(b'\n');
    let f = temp_file(&dir, "dupargs.client-to-server.jsonl", &line);
    let (code, recs, _) = check_jsonl(&["--profile", "2026-07-28"], &f);
    assert_eq!(code, 1, "{recs:?}");
    assert_eq!(kinds(&recs[0]), ["duplicate-params-key"]);
}

/// Fresh-user trial (session 18): a record's violations were listed in the order the rules
/// and the request tracker found them, not in frame order as documented: a case-variant key
/// at byte 81 came before the reused request id at byte 63.
#[test]
fn a_records_violations_are_in_frame_order() {
    let dir = tempfile::tempdir().unwrap();
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","Method":"x"}"#,
        "\n"
    );
    let f = temp_file(&dir, "order.jsonl", input.as_bytes());
    let (code, recs, _) = check_jsonl(&["--profile", "2025-03-26", "--direction", "c2s"], &f);
    assert_eq!(code, 1);
    assert_eq!(kinds(&recs[1]), ["reused-request-id", "case-variant-key"]);
    let offsets: Vec<u64> = recs[1]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, [63, 81]);
}

/// Legacy id use, pinned (open since session 14 as an inconsistency): an id counts as used by
/// a request (shape `request`), also one the MCP rules reject (`missing-param`); a message
/// that is no valid request object (shape `invalid`) is not a request, and its id stays free.
#[test]
fn legacy_ids_are_used_by_requests_not_by_invalid_messages() {
    let dir = tempfile::tempdir().unwrap();
    let input = [
        r#"{"jsonrpc":"2.0","id":5,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":1}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
    ]
    .join("\n")
        + "\n";
    let f = temp_file(&dir, "ids.jsonl", input.as_bytes());
    let (_, recs, _) = check_jsonl(&["--profile", "2025-03-26", "--direction", "c2s"], &f);
    let got: Vec<Vec<String>> = recs.iter().map(kinds).collect();
    assert_eq!(
        got,
        [
            vec!["method-not-string".to_owned()],
            vec![],
            vec!["missing-param".to_owned()],
            vec!["reused-request-id".to_owned()],
            vec!["params-not-object".to_owned()],
            vec![],
        ]
    );
}

/// Hostile trial (session 20): a stdio line whose bare CR hides a `tools/call` from a reader
/// that splits at LF only, while a Python server (universal newlines) reads it. `check`
/// reports `bare-cr` (-32700) at the CR's byte, not a valid `ping`, and goes on.
#[test]
fn check_reports_a_bare_cr_at_its_byte() {
    let dir = tempfile::tempdir().unwrap();
    let smuggle: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1,\"x\":\r{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":2,\"params\":{\"name\":\"delete_all\",\"arguments\":{}}}\r}\n";
    let f = temp_file(&dir, "smuggle.jsonl", &[smuggle, VALID].concat());
    for profile in ["2025-06-18", "auto", "legacy"] {
        let (code, recs, summary) = check_jsonl(&["--direction", "c2s", "--profile", profile], &f);
        assert_eq!(code, 1, "{profile}");
        assert_eq!(recs.len(), 2, "{profile}");
        let v = &recs[0]["violations"];
        assert_eq!(v.as_array().unwrap().len(), 1);
        assert_eq!(v[0]["kind"], "bare-cr");
        assert_eq!(v[0]["code"], -32700);
        assert_eq!(v[0]["offset"], 44);
        assert_eq!(smuggle[44], b'\r');
        assert_eq!(recs[0]["method"], serde_json::Value::Null);
        assert_eq!(recs[1]["valid"], true);
        assert_eq!(recs[1]["offset"], smuggle.len());
        assert_eq!(
            (summary["valid"].as_u64(), summary["invalid"].as_u64()),
            (Some(1), Some(1))
        );
    }
}

/// `stats` says why frames are invalid (review leftover: framing errors, like the other
/// invalid frames, were only counted under shape `invalid`): one count per frame by stable
/// kind, framing errors included, adding up to the `invalid` shape; the total over two
/// inputs sums them; the table has the same rows.
#[test]
fn stats_counts_invalid_frames_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let big = [&b"x"[..]; 64].concat();
    let input = [
        &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
        b"\n{oops\n",
        br#"{"id":2,"method":"x"}"#,
        b"\n",
        br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
        b"\n",
        br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        b"\n",
        &big,
        b"\n",
        br#"{"jsonrpc":"2.0","method":"x""#,
    ]
    .concat();
    let f = temp_file(&dir, "mixed.jsonl", &input);
    let args = ["stats", "--format", "jsonl", "--max-frame-bytes", "60"];
    let line = stdout_of(&args, &f, 0);
    let s: Value = serde_json::from_str(line.trim()).unwrap();
    let want = serde_json::json!({
        "duplicate-key": 1,
        "frame-too-large": 1,
        "invalid-id": 1,
        "jsonrpc-missing": 1,
        "unexpected-byte": 1,
        "unterminated-line": 1,
    });
    assert_eq!(s["invalid_kinds"], want, "{s}");
    assert_eq!(s["shapes"]["invalid"], 6, "{s}");
    assert_eq!(s["frames"], 7, "{s}");
    // Two inputs: each line has its own counts, the total their sum.
    let out = mcpwire().args(args).arg(&f).arg(&f).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let total: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        total["total"]["invalid_kinds"]["frame-too-large"], 2,
        "{total}"
    );
    assert_eq!(total["total"]["invalid_kinds"]["invalid-id"], 2, "{total}");
    // A valid input has none.
    let ok = temp_file(&dir, "ok.jsonl", REQUEST_NO_META);
    let line = stdout_of(&["stats", "--format", "jsonl"], &ok, 0);
    let s: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(s["invalid_kinds"], serde_json::json!({}), "{s}");
    let table = stdout_of(&["stats", "--max-frame-bytes", "60"], &f, 0);
    assert!(table.contains("invalid frames by kind:"), "{table}");
    assert!(table.contains("frame-too-large"), "{table}");
}
