//! `mcpwire proxy stdio` against a tiny fake server (tests/proxy/fake_server.py): byte-exact
//! forwarding both ways, error replies for rejected client requests, dropped notifications,
//! rejected server messages, oversize lines, `--monitor`, stderr passthrough, `--log`, exit
//! status, and shutdown from either side.
//!
//! Needs `python3` on PATH; each test prints "skipped: python3 not found" and returns
//! without it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

fn python() -> bool {
    let ok = StdCommand::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: python3 not found");
    }
    ok
}

fn fake_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/proxy/fake_server.py")
}

fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The proxy with `proxy_args` in front of the fake server answering the k-th request with
/// the k-th line of `script`, fed `stdin`; checks it exits 0 and returns its output.
fn scripted(proxy_args: &[&str], script: &[u8], stdin: String) -> std::process::Output {
    recorded(proxy_args, script, stdin).0
}

/// [`scripted`], plus everything the server read (its `--record`).
fn recorded(proxy_args: &[&str], script: &[u8], stdin: String) -> (std::process::Output, String) {
    let dir = tempfile::tempdir().unwrap();
    let script = file(&dir, "script", script);
    let record = dir.path().join("record");
    let out = proxy(
        proxy_args,
        &[
            "--script",
            script.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ],
    )
    .write_stdin(stdin)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    (out, std::fs::read_to_string(&record).unwrap_or_default())
}

/// `mcpwire proxy stdio [proxy_args] -- python3 fake_server.py [server_args]`.
fn proxy(proxy_args: &[&str], server_args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("mcpwire").expect("binary built");
    c.args(["proxy", "stdio"]).args(proxy_args).arg("--");
    c.arg("python3").arg(fake_server()).args(server_args);
    c.timeout(Duration::from_secs(60));
    c
}

fn records(log: &[u8]) -> Vec<Value> {
    std::str::from_utf8(log)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"event\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn violations(recs: &[Value]) -> Vec<&Value> {
    recs.iter().filter(|r| r["event"] == "violation").collect()
}

fn summary(recs: &[Value]) -> &Value {
    recs.iter()
        .find(|r| r["event"] == "summary")
        .expect("summary record")
}

fn lines(b: &[u8]) -> Vec<Value> {
    std::str::from_utf8(b)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// A 2026-07-28 request with the required `_meta`.
fn modern(id: u32, method: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"t","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

#[test]
fn forwards_both_directions_byte_exact() {
    if !python() {
        return;
    }
    // Odd but valid bytes: spaces, escapes (also in the id), key order, a CRLF line, UTF-8.
    let input = format!(
        "{INIT}\n{}\r\n{}\n",
        r#"{ "jsonrpc" : "2.0" , "method":"notifications/initialized" }"#,
        r#"{"id":"a\u0062","jsonrpc":"2.0","method":"ping","params":{"_meta":{"progressToken":7},"x":[1,2.5e3,{"é":"\ud83d\ude00"}]}}"#
    );
    let script = concat!(
        r#"{"jsonrpc":"2.0","id":ID,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}"#,
        "\n",
        r#"{ "result" : { "z" : "\u00e9\n" } , "id":ID,   "jsonrpc":"2.0"}"#,
        "\n"
    );
    let (out, record) = recorded(&["--profile", "legacy"], script.as_bytes(), input.clone());
    // The server got exactly the client's bytes, CRLF included.
    assert_eq!(record, input);
    // The client got exactly the server's bytes (ids substituted by the fake server).
    let expected = script.replacen("ID", "1", 1).replacen("ID", "\"ab\"", 1);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    let recs = records(&out.stderr);
    assert!(violations(&recs).is_empty(), "{recs:?}");
    let s = summary(&recs);
    assert_eq!(s["c2s"]["forwarded"], 3);
    assert_eq!(s["s2c"]["forwarded"], 2);
    assert_eq!(s["c2s"]["methods"]["ping"], 1);
    assert_eq!(s["c2s"]["methods"]["notifications/initialized"], 1);
    assert_eq!(s["exit_status"], 0);
}

#[test]
fn rejected_client_messages_are_answered_or_dropped_never_forwarded() {
    if !python() {
        return;
    }
    let good = modern(2, "tools/list");
    // No _meta: -32602 under 2026-07-28.
    let no_meta = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    let not_json = r#"{"jsonrpc":"2.0","id":4,"method":"tools/list",}"#;
    // A notification breaking a profile rule (unknown key under the reserved _meta prefix).
    let bad_note = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"_meta":{"io.modelcontextprotocol/bogus":1}}}"#;
    let good_note =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
    let input = format!("{good}\n{no_meta}\n{not_json}\n{bad_note}\n{good_note}\n");
    let (out, record) = recorded(
        &["--profile", "2026-07-28"],
        br#"{"jsonrpc":"2.0","id":ID,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}"#,
        input,
    );
    assert_eq!(record, format!("{good}\n{good_note}\n"));
    let replies = lines(&out.stdout);
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).cloned();
    assert_eq!(
        by_id(2.into()).unwrap()["result"]["tools"],
        Value::Array(vec![])
    );
    let r3 = by_id(3.into()).expect("error reply for id 3");
    assert_eq!(r3["error"]["code"], -32602);
    // The unparseable request is answered without an id.
    let parse = replies
        .iter()
        .find(|r| r.get("id").is_none())
        .expect("parse error reply");
    assert_eq!(parse["error"]["code"], -32700);
    assert_eq!(replies.len(), 3, "{replies:?}");

    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(v.iter().any(|r| r["id"] == "3" && r["action"] == "replied"));
    assert!(
        v.iter()
            .any(|r| r["code"] == -32700 && r["action"] == "replied")
    );
    assert!(v.iter().any(|r| r["method"] == "notifications/cancelled"
        && r["action"] == "dropped"
        && r["dir"] == "c2s"));
    let s = summary(&recs);
    assert_eq!(s["c2s"]["frames"], 5);
    assert_eq!(s["c2s"]["forwarded"], 2);
    assert_eq!(s["c2s"]["replied"], 2);
    assert_eq!(s["c2s"]["dropped"], 1);
}

#[test]
fn rejected_server_response_is_replaced_with_an_error_for_the_client() {
    if !python() {
        return;
    }
    // 2026-07-28 results need resultType.
    let out = scripted(
        &["--profile", "2026-07-28"],
        br#"{"jsonrpc":"2.0","id":ID,"result":{"tools":[]}}"#,
        format!("{}\n", modern(9, "tools/list")),
    );
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0]["id"], 9);
    assert_eq!(replies[0]["error"]["code"], -32603);
    let recs = records(&out.stderr);
    assert!(violations(&recs).iter().any(|r| r["dir"] == "s2c"
        && r["kind"] == "missing-result-type"
        && r["action"] == "replaced"));
}

/// A server response the parser rejects (duplicate key) or that is no valid envelope (both
/// `result` and `error`) but whose id answers a request in flight: the client gets a -32603
/// error for that request instead of waiting forever (re-trial: both were dropped). A broken
/// response whose id matches no request is still dropped.
#[test]
fn unreadable_server_response_with_a_known_id_is_answered() {
    if !python() {
        return;
    }
    let script = [
        r#"{"jsonrpc":"2.0","id":ID,"result":{},"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":ID,"result":{},"error":{"code":1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":77,"result":{},"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":ID,"result":{}}"#,
    ]
    .join("\n");
    let input = [1, 2, 3, 4]
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"))
        .concat();
    let out = scripted(&["--profile", "legacy"], script.as_bytes(), input);
    let replies = lines(&out.stdout);
    let ids: Vec<_> = replies.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [1, 2, 4], "{replies:?}");
    assert_eq!(replies[0]["error"]["code"], -32603);
    assert_eq!(replies[1]["error"]["code"], -32603);
    assert!(replies[2]["result"].is_object());
    let recs = records(&out.stderr);
    let v = violations(&recs);
    let action = |kind: &str, id: &str| {
        v.iter()
            .find(|r| r["kind"] == kind && r["id"] == id)
            .map(|r| r["action"].as_str().unwrap().to_owned())
    };
    assert_eq!(
        action("duplicate-key", "1").as_deref(),
        Some("replaced"),
        "{v:?}"
    );
    assert_eq!(
        action("result-and-error", "2").as_deref(),
        Some("replaced"),
        "{v:?}"
    );
    assert_eq!(
        action("duplicate-key", "77").as_deref(),
        Some("dropped"),
        "{v:?}"
    );
}

/// Hostile trial (session 14): a server response with one bad byte deep in `result` (a
/// Latin-1 byte, a raw TAB, a lone surrogate escape) was dropped: its id could not be read by
/// `recover_id` (the frame is not JSON), so the client's request waited forever. Its
/// structure is intact and names the request: replaced with the -32603 error with that id.
/// A well-formed answer after them still passes.
#[test]
fn server_response_with_bad_content_is_replaced_for_the_client() {
    if !python() {
        return;
    }
    let script: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}}\n\
{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\tb\"}]}}\n\
{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\\ud800\"}]}}\n\
{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{}}";
    let input = [1, 2, 3, 4]
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"))
        .concat();
    let out = scripted(&["--profile", "legacy"], script, input);
    let replies = lines(&out.stdout);
    let ids: Vec<_> = replies.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [1, 2, 3, 4], "{replies:?}");
    for r in &replies[..3] {
        assert_eq!(r["error"]["code"], -32603, "{r}");
    }
    assert!(replies[3]["result"].is_object());
    let recs = records(&out.stderr);
    let actions: Vec<_> = violations(&recs)
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            ("invalid-utf8".to_owned(), "replaced".to_owned()),
            ("control-character".to_owned(), "replaced".to_owned()),
            ("lone-surrogate".to_owned(), "replaced".to_owned()),
        ]
    );
}

/// Hostile trial D7: a client's last request without a final newline (it wrote it and closed
/// its end) was logged `dropped` with its id and never answered. It is not forwarded (stdio
/// delimits every message with a newline) but answered: -32700 with its id, before the proxy
/// exits, logged and counted `replied`.
#[test]
fn unterminated_last_client_request_is_answered_with_its_id() {
    if !python() {
        return;
    }
    let valid: String = (0..5).map(|i| modern(i, "tools/list") + "\n").collect();
    let last = modern(5, "tools/list");
    let script = concat!(
        r#"{"jsonrpc":"2.0","id":ID,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}"#,
        "\n"
    )
    .repeat(5);
    let (out, record) = recorded(
        &["--profile", "2026-07-28"],
        script.as_bytes(),
        format!("{valid}{last}"),
    );
    // The server got the five lines and nothing of the sixth.
    assert_eq!(record, valid);
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 6, "{replies:?}");
    let r5 = replies
        .iter()
        .find(|r| r["id"] == 5)
        .expect("error reply for id 5");
    assert_eq!(r5["error"]["code"], -32700, "{r5}");
    assert!(r5.get("result").is_none());
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0]["id"], "5");
    assert_eq!(v[0]["kind"], "unterminated-line");
    assert_eq!(v[0]["code"], -32700);
    assert_eq!(v[0]["action"], "replied");
    let s = summary(&recs);
    assert_eq!(s["c2s"]["frames"], 6);
    assert_eq!(s["c2s"]["forwarded"], 5);
    assert_eq!(s["c2s"]["replied"], 1);
    assert_eq!(s["c2s"]["dropped"], 0);
}

/// The server-to-client side of D7: a server's last request without a final newline (it
/// closed its stdout but still reads its stdin) is answered to the server with its id; the
/// client gets nothing.
#[test]
fn unterminated_last_server_request_is_answered_to_the_server() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let start = file(
        &dir,
        "start",
        br#"{"jsonrpc":"2.0","id":"s9","method":"ping"}"#,
    );
    let record = dir.path().join("record");
    // A long grace: the server is only stopped by the client closing its end.
    let mut child = spawn_open(
        &["--profile", "legacy", "--grace", "120"],
        &[
            "--on-start",
            start.to_str().unwrap(),
            "--close-stdout",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    let t = Instant::now();
    let got = loop {
        let r = std::fs::read_to_string(&record).unwrap_or_default();
        if r.contains("s9") || t.elapsed() > Duration::from_secs(20) {
            break r;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(child.stdin.take());
    assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(0));
    let reply: Value = serde_json::from_str(got.trim()).expect("one reply line");
    assert_eq!(reply["id"], "s9");
    assert_eq!(reply["error"]["code"], -32700);
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    assert!(stdout.is_empty(), "nothing reaches the client: {stdout:?}");
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let recs = records(&stderr);
    let v = violations(&recs);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(
        (&v[0]["dir"], &v[0]["id"], &v[0]["kind"], &v[0]["action"]),
        (
            &Value::from("s2c"),
            &Value::from("\"s9\""),
            &Value::from("unterminated-line"),
            &Value::from("replied")
        )
    );
    assert_eq!(summary(&recs)["s2c"]["replied"], 1);
}

/// Spawns the proxy with stdin kept open; returns the child.
fn spawn_open(proxy_args: &[&str], server_args: &[&str]) -> std::process::Child {
    StdCommand::new(assert_cmd::cargo::cargo_bin("mcpwire"))
        .args(["proxy", "stdio"])
        .args(proxy_args)
        .arg("--")
        .arg("python3")
        .arg(fake_server())
        .args(server_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends SIGTERM to `child` (as an SDK client ending the session does).
fn sigterm(child: &std::process::Child) {
    let kill = StdCommand::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
}

fn wait_for(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    None
}

#[test]
fn server_request_rejected_by_profile_is_answered_to_the_server() {
    if !python() {
        return;
    }
    // (profile, server's first line, its id, the reply's code). 2026-07-28 servers never
    // send requests; hostile trial (session 11): a server request that is no valid message
    // (`params` not an object) or that the parser rejects (after a BOM) was dropped, and the
    // server waited forever.
    let cases: [(&str, &[u8], &str, i64); 3] = [
        (
            "2026-07-28",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}\n",
            "s1",
            -32600,
        ),
        (
            "legacy",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"s2\",\"method\":\"ping\",\"params\":3}\n",
            "s2",
            -32600,
        ),
        (
            "legacy",
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":\"s3\",\"method\":\"ping\"}\n",
            "s3",
            -32700,
        ),
    ];
    for (profile, line, id, code) in cases {
        let dir = tempfile::tempdir().unwrap();
        let start = file(&dir, "start", line);
        let record = dir.path().join("record");
        let mut child = spawn_open(
            &["--profile", profile],
            &[
                "--on-start",
                start.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ],
        );
        // Keep the client side open until the server has received the proxy's error reply.
        let t = Instant::now();
        let got = loop {
            let r = std::fs::read_to_string(&record).unwrap_or_default();
            if r.contains(id) || t.elapsed() > Duration::from_secs(20) {
                break r;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(child.stdin.take());
        assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(0));
        let reply: Value = serde_json::from_str(got.trim()).expect("one reply line");
        assert_eq!(reply["id"], id, "{profile}");
        assert_eq!(reply["error"]["code"], code, "{profile}");
        let mut stdout = Vec::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_end(&mut stdout)
            .unwrap();
        assert!(stdout.is_empty(), "nothing reaches the client: {stdout:?}");
    }
}

/// Hostile trial (session 11): a client's malformed response (`"result": 5`) to a server
/// request in flight was answered to the client with the server's request id (an "answer"
/// to a request the client never sent), and the server's request waited forever. The server
/// now gets the -32603 replacement, and the client nothing. Re-trial: the same for a valid
/// response inside a batch the profile refuses (2025-06-18 has no batches).
#[test]
fn malformed_client_response_is_replaced_for_the_server() {
    if !python() {
        return;
    }
    let cases: [(&str, &[u8]); 2] = [
        (
            "legacy",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"srvB\",\"result\":5}\n",
        ),
        (
            "2025-06-18",
            b"[{\"jsonrpc\":\"2.0\",\"id\":\"srvB\",\"result\":{}}]\n",
        ),
    ];
    for (profile, answer) in cases {
        let dir = tempfile::tempdir().unwrap();
        let start = file(
            &dir,
            "start",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"srvB\",\"method\":\"ping\"}\n",
        );
        let record = dir.path().join("record");
        let mut child = spawn_open(
            &["--profile", profile],
            &[
                "--on-start",
                start.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ],
        );
        // Wait for the server's request to reach the client, then answer it badly.
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
        assert!(first.contains("srvB"), "{first}");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(answer).unwrap();
        stdin.flush().unwrap();
        let t = Instant::now();
        let got = loop {
            let r = std::fs::read_to_string(&record).unwrap_or_default();
            if r.contains("srvB") || t.elapsed() > Duration::from_secs(20) {
                break r;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(stdin);
        assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(0));
        let reply: Value = serde_json::from_str(got.trim()).expect("one line for the server");
        assert_eq!(reply["id"], "srvB", "{profile}");
        assert_eq!(reply["error"]["code"], -32603, "{profile}");
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "", "{profile}: nothing more reaches the client");
    }
}

#[test]
fn exit_status_stderr_passthrough_and_log_file() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("proxy.jsonl");
    let out = proxy(
        &["--log", log.to_str().unwrap()],
        &["--exit", "7", "--stderr", "server says hi\n"],
    )
    .write_stdin(format!("{INIT}\n"))
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(7));
    // The server's stderr passes through unchanged; the log went to the file.
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "server says hi\n");
    let recs = records(&std::fs::read(&log).unwrap());
    assert_eq!(recs[0]["event"], "start");
    assert_eq!(summary(&recs)["exit_status"], 7);
    assert_eq!(lines(&out.stdout)[0]["id"], 1);
}

#[test]
fn server_exiting_first_ends_the_proxy_with_its_status() {
    if !python() {
        return;
    }
    let mut child = spawn_open(&[], &["--exit-after", "1", "--exit", "5"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Our stdin stays open: the proxy must still exit when the server does.
    let code = wait_for(&mut child, Duration::from_secs(20));
    drop(stdin);
    assert_eq!(code, Some(5));
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    assert_eq!(lines(&stdout)[0]["id"], 1);
}

/// A server that does not exit at EOF gets SIGTERM after the grace period, and SIGKILL after
/// another one when it ignores SIGTERM (spec digest §7.1; re-trial finding: it went straight
/// to SIGKILL).
#[test]
fn server_ignoring_eof_gets_sigterm_then_sigkill() {
    if !python() {
        return;
    }
    for (extra, status, step) in [
        (&["--hang"][..], 143, "sending SIGTERM"),
        (&["--hang", "--ignore-term"][..], 137, "killing it"),
    ] {
        let t = Instant::now();
        let mut child = spawn_open(&["--grace", "0.3"], extra);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        // Wait for the answer, so the server is up (and ignores SIGTERM where asked) before
        // the client closes its end.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        stdout.read_exact(&mut first).unwrap();
        drop(stdin);
        // 128 + 15 (SIGTERM) or 128 + 9 (SIGKILL).
        assert_eq!(
            wait_for(&mut child, Duration::from_secs(30)),
            Some(status),
            "{extra:?}"
        );
        assert!(t.elapsed() < Duration::from_secs(30));
        let mut err = Vec::new();
        child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
        let recs = records(&err);
        assert!(
            recs.iter()
                .any(|r| r["event"] == "note" && r["message"].as_str().unwrap().contains(step)),
            "{extra:?}: {recs:?}"
        );
        assert_eq!(summary(&recs)["exit_status"], status);
    }
}

#[test]
fn oversize_line_is_answered_and_the_stream_goes_on() {
    if !python() {
        return;
    }
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#; // 40 bytes
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(64)
    );
    let limit = ping.len().to_string();
    let (out, record) = recorded(
        &["--profile", "legacy", "--max-frame-bytes", &limit],
        b"",
        format!("{big}\n{ping}\n"),
    );
    // At the limit: forwarded; over it: answered -32600 without an id.
    assert_eq!(record, format!("{ping}\n"));
    let replies = lines(&out.stdout);
    assert!(
        replies
            .iter()
            .any(|r| r.get("id").is_none() && r["error"]["code"] == -32600)
    );
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 2 && r.get("result").is_some())
    );
    let recs = records(&out.stderr);
    assert!(
        violations(&recs)
            .iter()
            .any(|r| r["kind"] == "frame-too-large")
    );
    // The summary's bytes count the oversize line as the bytes seen when it was rejected (at
    // least the limit + 1; it counted 0 before), and the ping.
    let bytes = summary(&recs)["c2s"]["bytes"].as_u64().unwrap() as usize;
    assert!(
        (ping.len() + 1 + ping.len()..=big.len() + ping.len()).contains(&bytes),
        "{bytes}"
    );
}

#[test]
fn monitor_forwards_everything_and_logs() {
    if !python() {
        return;
    }
    let input = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\nnot json\n";
    let (out, record) = recorded(&["--profile", "2026-07-28", "--monitor"], b"", input.into());
    assert_eq!(record, input);
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(!v.is_empty());
    assert!(v.iter().all(|r| r["action"] == "forwarded"));
}

/// `--monitor` forwards every byte unchanged, even a line over the frame limit (whose bytes
/// the framer discards) and CRLF; a duplicate-key request it cannot track does not make the
/// server's reply an `unknown-response-id` (new-user trial: the oversize line was dropped
/// though logged `forwarded`, and the reply to id 4 was flagged).
#[test]
fn monitor_forwards_oversize_lines_byte_exact() {
    if !python() {
        return;
    }
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\"}}}}\r\n",
        "x".repeat(300)
    );
    let input = [
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n",
        &big,
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"a\",\"method\":\"b\"}\n",
        "not json\n",
    ]
    .concat();
    let (out, record) = recorded(
        &["--monitor", "--max-frame-bytes", "200"],
        b"",
        input.clone(),
    );
    assert_eq!(record, input);
    // The server answered 3, 5 and 4 (it reads duplicates as the last value).
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 3, "{replies:?}");
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(v.iter().all(|r| r["action"] == "forwarded"), "{v:?}");
    assert!(v.iter().any(|r| r["kind"] == "frame-too-large"), "{v:?}");
    assert!(v.iter().any(|r| r["kind"] == "duplicate-key"), "{v:?}");
    assert!(
        !v.iter().any(|r| r["kind"] == "unknown-response-id"),
        "{v:?}"
    );
}

#[test]
fn missing_server_command_is_an_error() {
    let out = Command::cargo_bin("mcpwire")
        .unwrap()
        .args(["proxy", "stdio", "--", "/nonexistent/mcp-server"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start server"));
}

/// SIGTERM to the proxy alone (not its process group): the server's stdin is closed (it sees
/// EOF, as from a closing client), then after the grace period it gets SIGTERM, then SIGKILL
/// when it ignores that too; the summary is written (re-trial finding: the server saw neither
/// EOF nor SIGTERM and was killed).
#[test]
fn sigterm_closes_the_server_stdin_then_terminates_it_and_writes_the_summary() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mark = dir.path().join("eof");
    let mark_arg = mark.to_str().unwrap();
    let mut child = spawn_open(
        &["--grace", "0.3"],
        &["--hang", "--ignore-term", "--eof-mark", mark_arg],
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Wait for the answer, so the server is up.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    sigterm(&child);
    assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(137));
    drop(stdin);
    assert_eq!(std::fs::read_to_string(&mark).unwrap(), "eof");
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    let notes: Vec<&str> = recs
        .iter()
        .filter(|r| r["event"] == "note")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    for step in [
        "received: closing the server's stdin",
        "sending SIGTERM",
        "killing it",
    ] {
        assert!(notes.iter().any(|n| n.contains(step)), "{step}: {notes:?}");
    }
    assert_eq!(summary(&recs)["exit_status"], 137);
}

/// Regression: `printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"x","method":"y"}' | mcpwire
/// proxy stdio -- python3 srv.py` answered `{"jsonrpc":"2.0","error":{…}}` without the id. A
/// request the parser rejects but whose id is readable is answered with that id.
///
/// Trial finding (session 10): the same for a request after a UTF-8 BOM, though a backend
/// that strips the BOM (rmcp does) reads it, so the client could not match the error.
#[test]
fn request_rejected_by_the_parser_is_answered_with_its_id() {
    if !python() {
        return;
    }
    let cases = [
        (
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"method\":\"y\"}\n",
            Value::from(2),
            "2",
            "duplicate-key",
            -32600,
        ),
        (
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"ping\"}\n",
            Value::from("q"),
            "\"q\"",
            "bom",
            -32700,
        ),
    ];
    for (input, id, raw_id, kind, code) in cases {
        let (out, record) = recorded(&[], b"", input.to_owned());
        assert_eq!(record, "");
        let replies = lines(&out.stdout);
        assert_eq!(replies.len(), 1, "{replies:?}");
        assert_eq!(replies[0]["id"], id, "{}", replies[0]);
        assert_eq!(replies[0]["error"]["code"], code);
        let recs = records(&out.stderr);
        let v = violations(&recs);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0]["kind"], kind);
        assert_eq!(v[0]["id"], raw_id);
        assert_eq!(v[0]["action"], "replied");
    }
}

/// Re-trial finding: the summary counted every distinct method name, so a peer sending new
/// names grew a long-running proxy without bound (400,000 names: 161 MB). At most 1,024 names
/// of at most 256 bytes are kept per direction; the rest are counted together.
#[test]
fn method_counts_are_bounded() {
    if !python() {
        return;
    }
    let mut stdin = String::new();
    for i in 0..1100 {
        stdin.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/n{i}\"}}\n"
        ));
    }
    let long = "x".repeat(257);
    stdin.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{long}\"}}\n"));
    stdin.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/n0\"}\n");
    let out = scripted(&["--profile", "legacy"], b"", stdin);
    let recs = records(&out.stderr);
    let methods = summary(&recs)["c2s"]["methods"]
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(methods.len(), 1025, "{}", methods.len());
    assert_eq!(methods["notifications/n0"], 2);
    assert_eq!(methods["notifications/n1023"], 1);
    assert!(methods.get("notifications/n1024").is_none());
    assert_eq!(methods["(other methods)"], 1100 - 1024 + 1);
}

/// Re-trial finding: under a legacy revision that requires `id` on error responses, the
/// proxy's replies to frames whose id cannot be read had none (`missing-error-id` by
/// mcpwire's own rules); they carry `"id":null` there, and still none under 2026-07-28.
#[test]
fn replies_without_a_readable_id_follow_the_revision() {
    if !python() {
        return;
    }
    for (profile, head) in [
        ("2025-03-26", r#"{"jsonrpc":"2.0","id":null,"error":"#),
        ("2026-07-28", r#"{"jsonrpc":"2.0","error":"#),
    ] {
        let out = scripted(&["--profile", profile], b"", "not json\n".to_owned());
        let replies = String::from_utf8(out.stdout).unwrap();
        assert!(replies.starts_with(head), "{profile}: {replies}");
        let verdict = mcpwire::parse(replies.trim_end().as_bytes()).unwrap();
        assert_eq!(verdict.shape(), mcpwire::Shape::Error, "{profile}");
    }
}

/// Re-trial finding: an unwritable `--log` path was reported as "No such file or directory"
/// without the path.
#[test]
fn unwritable_log_path_is_named() {
    let out = Command::cargo_bin("mcpwire")
        .unwrap()
        .args([
            "proxy",
            "stdio",
            "--log",
            "/nonexistent/dir/log",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--log /nonexistent/dir/log: "), "{err}");
}

/// Proxy trial (session 10): a legacy batch with one bad element was answered with one error
/// without an id, and its good requests were neither forwarded nor answered (the client
/// waited for ids 5 and "seven" forever, and they stayed in flight). Each request of a
/// rejected batch now gets an error with its id, in one JSON array, and is no longer in
/// flight: a later server response with id 5 answers nothing.
#[test]
fn rejected_batch_answers_every_request_with_its_id() {
    if !python() {
        return;
    }
    let batch = concat!(
        r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]},"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"},"#,
        r#"1,"#,
        r#"{"jsonrpc":"2.0","id":"seven","method":"ping"}]"#
    );
    let next = r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;
    // The server answers request 8 with id 5.
    let (out, record) = recorded(
        &["--profile", "2025-03-26"],
        br#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        format!("{batch}\n{next}\n"),
    );
    // Nothing of the batch reached the server; the later request did.
    assert_eq!(record, format!("{next}\n"));
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 1, "{replies:?}");
    let array = replies[0].as_array().expect("one array for the batch");
    let ids: Vec<_> = array.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [Value::from(5), 6.into(), Value::Null, "seven".into()]);
    for r in array {
        assert_eq!(r["jsonrpc"], "2.0");
        assert_eq!(r["error"]["code"], -32600, "{r}");
    }
    let msg = array[0]["error"]["message"].as_str().unwrap();
    assert_eq!(
        msg,
        "batch rejected (params-not-object at byte 97: \"params\" is not an object); \
         element 0 was not forwarded"
    );
    let recs = records(&out.stderr);
    assert!(
        violations(&recs).iter().any(|r| r["dir"] == "s2c"
            && r["kind"] == "unknown-response-id"
            && r["action"] == "dropped"),
        "{recs:?}"
    );
    let s = summary(&recs);
    assert_eq!(s["c2s"]["replied"], 1);
    assert_eq!(s["c2s"]["forwarded"], 1);
    // Every element of the reply is an error response under our own rules.
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap().as_bytes();
    let env = mcpwire::parse(first).unwrap();
    for el in env.batch_elements().unwrap() {
        let e = mcpwire::parse(el.slice(first)).unwrap();
        assert_eq!(e.shape(), mcpwire::Shape::Error);
    }
}

/// The same for a server's batch: a response in a rejected batch answers a client request in
/// flight, so the client gets a -32603 error for it instead of nothing.
#[test]
fn rejected_server_batch_replaces_its_responses() {
    if !python() {
        return;
    }
    let out = scripted(
        &["--profile", "2025-03-26"],
        br#"[{"jsonrpc":"2.0","id":ID,"result":{}},{"jsonrpc":"2.0","method":5}]"#,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n".to_owned(),
    );
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], 3);
    assert_eq!(replies[0]["error"]["code"], -32603);
    let recs = records(&out.stderr);
    assert!(
        violations(&recs)
            .iter()
            .any(|r| r["dir"] == "s2c" && r["action"] == "replaced"),
        "{recs:?}"
    );
}

/// Hostile trial (session 11): under `auto` (the default) and `legacy`, replies to a
/// rejected batch had no `id`, which 2025-03-26 (the only revision with batches) and
/// JSON-RPC 2.0 require; they carry `"id": null` when no id can be read.
#[test]
fn batch_replies_carry_a_null_id_under_auto_and_legacy() {
    if !python() {
        return;
    }
    for profile in ["auto", "legacy"] {
        let out = scripted(&["--profile", profile], b"", "[1]\n[]\n".to_owned());
        let replies = lines(&out.stdout);
        assert_eq!(replies.len(), 2, "{profile}: {replies:?}");
        assert_eq!(replies[0][0]["id"], Value::Null, "{profile}: {replies:?}");
        assert!(replies[0][0].get("id").is_some(), "{profile}: {replies:?}");
        assert!(
            replies[1].get("id").is_some_and(Value::is_null),
            "{profile}: {replies:?}"
        );
    }
}

/// Library trial (session 11): with `--max-frame-bytes` above the default 4 MiB, a request
/// between the two limits rejected for a duplicate key was answered without its id (the id
/// was read under the default limit).
#[test]
fn id_of_a_rejected_frame_is_read_under_the_raised_frame_limit() {
    if !python() {
        return;
    }
    let pad = "x".repeat(mcpwire::Limits::DEFAULT.max_frame_len);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"a","method":"b","params":{{"p":"{pad}"}}}}"#
    );
    let limit = (line.len() + 1).to_string();
    let (out, record) = recorded(&["--max-frame-bytes", &limit], b"", format!("{line}\n"));
    assert_eq!(record, "");
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], "big");
    assert_eq!(replies[0]["error"]["code"], -32600);
}

/// Regression: the elements of a legacy batch were missing from the summary's per-method
/// counts (a batch has no `method` of its own). Each element's method (requests and
/// notifications) is counted as for a single message, in both directions, whether the batch
/// was forwarded or rejected; an element that is no message (`1`) or whose `method` is no
/// string counts under no method.
#[test]
fn batch_elements_are_counted_by_method_in_the_summary() {
    if !python() {
        return;
    }
    let stdin = concat!(
        r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        "\n",
        r#"[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[]},{"jsonrpc":"2.0","id":3,"method":"ping"},1]"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        "\n",
    );
    // The server answers the ping with a batch: a notification and the ping's result.
    let out = scripted(
        &["--profile", "2025-03-26"],
        br#"[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},{"jsonrpc":"2.0","method":5},{"jsonrpc":"2.0","id":ID,"result":{}}]"#,
        stdin.to_owned(),
    );
    let recs = records(&out.stderr);
    let s = summary(&recs);
    let c2s = s["c2s"]["methods"].as_object().unwrap();
    assert_eq!(c2s.len(), 4, "{s}");
    assert_eq!(c2s["tools/list"], 1, "{s}");
    assert_eq!(c2s["notifications/initialized"], 1, "{s}");
    assert_eq!(c2s["tools/call"], 1, "{s}");
    assert_eq!(c2s["ping"], 2, "{s}");
    let s2c = s["s2c"]["methods"].as_object().unwrap();
    assert_eq!(s2c.len(), 1, "{s}");
    assert_eq!(s2c["notifications/message"], 1, "{s}");
    assert_eq!(s["c2s"]["shapes"]["batch"], 2, "{s}");
    assert_eq!(s["c2s"]["forwarded"], 2, "{s}");
}

/// Reads `out` to its end as a slow client does: 64 KiB at a time, with `pause` after each.
fn read_slowly(mut out: impl Read, pause: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = out.read(&mut chunk).unwrap();
        if n == 0 {
            return got;
        }
        got.extend_from_slice(&chunk[..n]);
        std::thread::sleep(pause);
    }
}

/// Reads `child`'s stdout on a thread, one line per message sent back on the channel.
fn stdout_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The proxy (`--profile legacy --grace 0.3`, the log to a file: thousands of violation
/// records would fill a stderr pipe nobody reads, then `proxy_args`) in front of a fake server
/// that first writes `n` [`invalid_requests`] (then `server_args`); returns it and the log's
/// path.
fn spawn_after_invalid_requests(
    dir: &tempfile::TempDir,
    n: usize,
    proxy_args: &[&str],
    server_args: &[&str],
) -> (std::process::Child, PathBuf) {
    let junk = invalid_requests(dir, n);
    let log = dir.path().join("log");
    let mut args = vec!["--profile", "legacy", "--grace", "0.3"];
    args.extend_from_slice(proxy_args);
    args.extend(["--log", log.to_str().unwrap()]);
    let mut server = vec!["--on-start", junk.to_str().unwrap()];
    server.extend_from_slice(server_args);
    (spawn_open(&args, &server), log)
}

/// A file of `n` server requests the proxy answers to the server (-32600, `params` not an
/// object), ids `"s0"`, `"s1"`, …, for `--on-start`.
fn invalid_requests(dir: &tempfile::TempDir, n: usize) -> PathBuf {
    let lines: String = (0..n)
        .map(|k| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":\"s{k}\",\"method\":\"ping\",\"params\":1}}\n")
        })
        .collect();
    file(dir, "junk", lines.as_bytes())
}

/// Open since session 14 (re-trial of a byte bound on the writer queues): a reply the proxy
/// made for the server waited for room behind what was queued for the server, while the
/// server, busy writing, read nothing: a deadlock. Here the server writes 20,000 invalid
/// requests (each answered to it with -32600) before it reads its stdin; the replies alone
/// overfilled the old 256-message queue, so the proxy stopped reading the server, whose
/// writes then blocked, and the client's requests were never answered. Replies no longer
/// wait behind forwarded frames.
#[test]
fn a_server_writing_before_it_reads_does_not_deadlock_on_its_replies() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut child, log) = spawn_after_invalid_requests(&dir, 20_000, &[], &[]);
    let mut stdin = child.stdin.take().unwrap();
    let out = stdout_lines(&mut child);
    let n = 100;
    let mut input = format!("{INIT}\n");
    for id in 2..2 + n {
        input += &format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
    }
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The client keeps its end open until it has its answers, as an SDK client does.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut answered = 0;
    while answered < n + 1 {
        let left = deadline.saturating_duration_since(Instant::now());
        match out.recv_timeout(left) {
            Ok(_) => answered += 1,
            Err(_) => break,
        }
    }
    drop(stdin);
    let status = wait_for(&mut child, Duration::from_secs(30));
    assert_eq!(answered, n + 1, "answers received before the deadline");
    assert_eq!(status, Some(0));
    let recs = records(&std::fs::read(&log).unwrap());
    assert_eq!(summary(&recs)["s2c"]["replied"], 20_000);
}

/// `n` ping requests with a `pad` of `pad` bytes in `params` (ids 1..=n), as one client
/// input (valid under `--profile legacy`).
fn padded_pings(n: usize, pad: usize) -> String {
    let pad = "x".repeat(pad);
    (1..=n)
        .map(|k| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{k},\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}}}}\n"
            )
        })
        .collect()
}

/// The client closes its end while the server reads nothing and more than the queue budget
/// waits for it. The proxy reads the client's end while it waits for room (session 14's byte
/// bound did not), but the grace period starts only once the server's stdin is closed after
/// every frame (re-trial: starting it at the client's end sent SIGTERM to a server that
/// began reading after 6 s, all 100,000 requests unread): a server that starts late gets
/// everything. A server that never reads holds the proxy as it would hold a client writing
/// to it through a pipe, until a signal to the proxy ends both.
#[test]
fn a_server_reading_late_after_the_client_ends_gets_everything() {
    if !python() {
        return;
    }
    let input = padded_pings(150, 2000);
    assert!(input.len() > 250_000);
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    let mut child = spawn_open(
        &[
            "--profile",
            "legacy",
            "--grace",
            "0.3",
            "--max-queue-bytes",
            "100000",
        ],
        &["--stall", "1", "--record", record.to_str().unwrap()],
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(0));
    assert_eq!(std::fs::read_to_string(&record).unwrap(), input);

    // Never reading: still running after the grace period; SIGTERM to the proxy ends it.
    let mut child = spawn_open(
        &[
            "--profile",
            "legacy",
            "--grace",
            "0.3",
            "--max-queue-bytes",
            "100000",
        ],
        &["--stall", "3600"],
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "ended without a signal"
    );
    sigterm(&child);
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(143));
}

/// The proxy (`--profile legacy --grace GRACE --max-queue-bytes QUEUE`) in front of a fake
/// server answering each of `n` pings with a result padded by `pad` bytes; the client writes
/// the pings, waits for the first byte of the answers (so that the server is up and writing
/// before the client ends: CI regression, on a loaded 2-core machine the Python server took
/// more than a 0.3 s grace period to start and got SIGTERM with nothing queued, exit 143),
/// closes its end and reads slowly ([`read_slowly`] with `pause`). Returns the proxy's exit
/// status and the number of lines the client got.
fn slow_client_run(
    n: usize,
    pad: usize,
    grace: &str,
    queue: &str,
    pause: Duration,
) -> (Option<i32>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let answer = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{{\"pad\":\"{}\"}}}}\n",
        "y".repeat(pad)
    );
    let script = file(&dir, "script", answer.repeat(n).as_bytes());
    let mut child = spawn_open(
        &[
            "--profile",
            "legacy",
            "--grace",
            grace,
            "--max-queue-bytes",
            queue,
        ],
        &["--script", script.to_str().unwrap()],
    );
    let mut stdin = child.stdin.take().unwrap();
    let input: String = (1..=n)
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"))
        .collect();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut got = vec![0u8; 1];
    stdout.read_exact(&mut got).unwrap();
    drop(stdin);
    got.extend(read_slowly(stdout, pause));
    (
        wait_for(&mut child, Duration::from_secs(60)),
        lines(&got).len(),
    )
}

/// After the client's end the grace period is renewed while the server is held back by a
/// client that still reads: a server answering a slow reader is not ended mid-answer
/// (re-trial: 3,000 answers of 100 KB to a reader that slept 1 ms per 64 KiB, 1,216
/// delivered, exit 143; before the queue bound, and now, all of them). Here 40 answers of
/// 200 KB to a reader sleeping 20 ms per read, about 2.5 s in all, through a 100 kB queue
/// (smaller than an answer: the server is held back), against a grace period of 1 s.
#[test]
fn the_grace_period_waits_for_a_server_still_writing_to_a_slow_client() {
    if !python() {
        return;
    }
    let run = slow_client_run(40, 200_000, "1", "100000", Duration::from_millis(20));
    assert_eq!(run, (Some(0), 40));
}

/// The client's progress is seen while one large frame goes out, not only once it is all
/// written: a server blocked writing five 500 KB answers (more than the 500 kB queue and the
/// 1 MiB read-ahead hold) to a client reading 64 KiB per 150 ms (about 1.1 s per answer) is
/// not ended by a 0.5 s grace period (re-trial: the progress moved once per whole write, so
/// a client reading 1 MB answers at 400 KB/s had its server SIGTERMed, 18 of 20 answers,
/// exit 143, 7 of 7 runs).
#[test]
fn the_grace_period_sees_a_slow_client_read_inside_a_large_frame() {
    if !python() {
        return;
    }
    let run = slow_client_run(5, 500_000, "0.5", "500000", Duration::from_millis(150));
    assert_eq!(run, (Some(0), 5));
}

/// A server that has exited gets no signal and no note that it is "still running", and an
/// output that waits only for the end of the server's stdout (held open by the server's own
/// child) is no "output for the client not delivered" (re-trial: all three notes were logged
/// for a server that exited 0 after answering everything).
#[test]
fn a_server_that_exited_gets_no_signal_while_its_child_holds_its_stdout() {
    if !python() {
        return;
    }
    let server = format!("sleep 8 & exec python3 '{}'", fake_server().display());
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("mcpwire"))
        .args([
            "proxy", "stdio", "--grace", "0.3", "--", "sh", "-c", &server,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Its answer first, so that the server is up before the client ends (under load its
    // start can take longer than the grace period).
    let out = stdout_lines(&mut child);
    assert!(out.recv().unwrap().contains("\"result\""));
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(0));
    assert_eq!(out.iter().count(), 0);
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    let notes: Vec<&str> = recs
        .iter()
        .filter(|r| r["event"] == "note")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(summary(&recs)["exit_status"], 0);
}

/// Replies to a server that writes invalid requests and reads nothing are dropped once
/// `--max-queue-bytes` of them wait and its stdin takes no more for a moment (was: queued
/// without bound, or the reader blocked), with one note per run of drops.
#[test]
fn replies_to_a_sender_that_does_not_read_them_are_dropped_past_the_budget() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut child, log) = spawn_after_invalid_requests(
        &dir,
        2_000,
        &["--max-queue-bytes", "20000"],
        &["--stall", "3600"],
    );
    // The client keeps its end open (closing it would close the server's stdin, making the
    // replies moot); once the proxy has read the junk, a SIGTERM ends the proxy.
    let stdin = child.stdin.take().unwrap();
    std::thread::sleep(Duration::from_millis(3000));
    sigterm(&child);
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(143));
    drop(stdin);
    let recs = records(&std::fs::read(&log).unwrap());
    let drops: Vec<_> = recs
        .iter()
        .filter(|r| {
            r["event"] == "note"
                && r["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("replies to the server dropped")
        })
        .collect();
    // One note per run of drops: the writer frees room whenever the server's pipe takes some
    // of its queue (about once per 64 KiB read of the junk here), so a few runs, never one
    // note per dropped reply.
    assert!((1..=5).contains(&drops.len()), "{drops:?}");
    // Each counted `replied`; those dropped (and those still queued at the SIGTERM) are also
    // counted `undelivered` (re-trial: 300,000 counted, 105,768 delivered, no count given).
    let s2c = &summary(&recs)["s2c"];
    assert_eq!(s2c["replied"], 2_000);
    let undelivered = s2c["undelivered"]["replied"].as_u64().unwrap();
    assert!((1..2_000).contains(&undelivered), "{s2c}");
    assert!(
        s2c["undelivered"]["bytes"].as_u64().unwrap() > undelivered,
        "{s2c}"
    );
}

/// Output that flows freely does not renew the grace period: a server that sends a
/// notification every 100 ms after its EOF still gets SIGTERM (re-trial: renewing on any
/// output kept such a server, and the proxy, running for ever).
#[test]
fn a_server_chattering_after_its_eof_still_gets_sigterm() {
    if !python() {
        return;
    }
    let mut child = spawn_open(&["--grace", "0.5"], &["--heartbeat", "0.1"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(format!("{INIT}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Wait for the answer, so the server is up before the client ends (CI regression: under
    // load it got SIGTERM before it wrote a single notification).
    let out = stdout_lines(&mut child);
    assert!(out.recv().unwrap().contains("\"result\""));
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(143));
    // It chattered: at least one notification after its EOF.
    assert!(out.iter().count() >= 1);
}

/// What is queued for the client when the server exits still reaches a client that reads
/// slowly (re-trial: a fixed 5 s wait cut it off, one frame of ten lost without a note, exit
/// status 3 as if all was delivered). 12 lines of 1 MB to a reader taking 64 KiB per 30 ms
/// (about 6 s).
#[test]
fn a_slow_client_gets_everything_a_server_wrote_before_it_exited() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{}\"}}}}\n",
        "z".repeat(1_000_000)
    );
    let lines = file(&dir, "lines", line.repeat(12).as_bytes());
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("mcpwire"))
        .args(["proxy", "stdio", "--grace", "0.3", "--", "sh", "-c"])
        .arg(format!("cat '{}'; exit 3", lines.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let got = read_slowly(child.stdout.take().unwrap(), Duration::from_millis(30));
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(60)), Some(3));
    assert_eq!(got.len(), line.len() * 12);
}

/// `n` notifications of exactly `len` bytes each (without the newline), numbered: valid in
/// both directions and tied to no request in flight (`notifications/cancelled` of an unknown
/// id is ignored; a `notifications/progress` for a token of no request is a violation since
/// session 23, and the proxy drops it).
fn same_size_notifications(n: usize, len: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let head = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"{i:08}","reason":""#
        );
        let pad = "x".repeat(len - head.len() - 3);
        out += &format!("{head}{pad}\"}}}}\n");
        debug_assert_eq!(out.len(), (i + 1) * (len + 1));
    }
    out
}

/// The lines of `b` that end with a newline (a frame cut off by the end of a pipe's
/// contents was not delivered).
fn complete_lines(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64
}

/// Re-trial finding (session 18): frames queued for the server and discarded when a SIGTERM
/// ended the proxy were counted `forwarded` and reported nowhere else (20,000 counted, about
/// 1,000 delivered). The summary's `undelivered` now counts them: here the server reads
/// (and records) its stdin only after the SIGTERM, so what it recorded is exactly what was
/// delivered, and the counts must add up to it.
#[test]
fn frames_discarded_on_sigterm_are_counted_undelivered() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    let mut child = spawn_open(
        &["--grace", "20"],
        &["--stall", "5", "--record", record.to_str().unwrap()],
    );
    let mut stdin = child.stdin.take().unwrap();
    let (n, len) = (20_000, 200);
    stdin
        .write_all(same_size_notifications(n, len).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    sigterm(&child);
    // The server wakes, reads what reached its stdin up to the EOF, and exits 0.
    assert_eq!(wait_for(&mut child, Duration::from_secs(60)), Some(0));
    drop(stdin);
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    assert!(violations(&recs).is_empty(), "{recs:?}");
    let c2s = &summary(&recs)["c2s"];
    let forwarded = c2s["forwarded"].as_u64().unwrap();
    let lost = &c2s["undelivered"];
    let undelivered = lost["forwarded"].as_u64().unwrap();
    let delivered = complete_lines(&std::fs::read(&record).unwrap());
    assert!(forwarded > 0 && undelivered > 0, "{c2s}");
    assert_eq!(forwarded - undelivered, delivered, "{c2s}");
    // Plus what was read from the client and not yet framed when the signal came.
    let bytes = lost["bytes"].as_u64().unwrap();
    assert!(bytes >= undelivered * (len as u64 + 1), "{c2s}");
    assert!(bytes <= (n as u64 - delivered) * (len as u64 + 1), "{c2s}");
    assert_eq!(
        (lost["replied"].as_u64(), lost["replaced"].as_u64()),
        (Some(0), Some(0))
    );
}

/// The other direction: a client that reads one frame and then nothing, closing its end. The
/// server writes 5,000 notifications and exits; what is queued for the client is given up
/// after 5 s (with a note), and counted `undelivered`. Read after the proxy exited, the
/// client's pipe holds what was delivered.
#[test]
fn frames_given_up_for_a_client_that_stopped_reading_are_counted_undelivered() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (n, len) = (5_000, 200);
    let start = file(&dir, "start", same_size_notifications(n, len).as_bytes());
    let mut child = spawn_open(&[], &["--on-start", start.to_str().unwrap()]);
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut out, &mut first).unwrap();
    drop(child.stdin.take());
    assert_eq!(wait_for(&mut child, Duration::from_secs(60)), Some(0));
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let delivered = 1 + complete_lines(&rest);
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    assert!(violations(&recs).is_empty(), "{recs:?}");
    let s2c = &summary(&recs)["s2c"];
    let undelivered = s2c["undelivered"]["forwarded"].as_u64().unwrap();
    assert_eq!(s2c["forwarded"], n as u64, "{s2c}");
    assert!(undelivered > 0, "{s2c}");
    // Our stdout writes up to 64 KiB at a time on a blocking thread, which says nothing until
    // the whole write is done: a write to a full pipe when the proxy ends counts as not
    // delivered, although part of it may have gone in as the client read (this client's
    // buffered reader took 8 KiB). So the count may say up to 64 KiB more is lost than was.
    let counted = n as u64 - undelivered;
    let slack = (64 << 10) / (len as u64 + 1) + 1;
    assert!(
        (counted..=counted + slack).contains(&delivered),
        "{delivered} delivered: {s2c}"
    );
    assert_eq!(
        s2c["undelivered"]["bytes"].as_u64(),
        Some(undelivered * (len as u64 + 1))
    );
    assert!(recs.iter().any(|r| {
        r["event"] == "note"
            && r["message"]
                .as_str()
                .unwrap()
                .starts_with("output for the client not delivered")
    }));
}

/// Re-trial finding (session 18): the log written to a stderr pipe that nobody reads blocked
/// the whole proxy once the pipe was full (the log's writes blocked its one thread), signals
/// included. Here the client sends 20,000 invalid requests (a violation record each, about
/// 26 MB of log) and reads its replies, while nobody reads the proxy's stderr: every reply
/// arrives. Records that find the log's queue full (16 MiB) are dropped and counted in the
/// summary's `log_records_dropped`; read from then on, the log holds the rest and the
/// summary.
#[test]
fn an_unread_stderr_log_does_not_block_the_proxy() {
    if !python() {
        return;
    }
    let n = 20_000;
    let mut child = spawn_open(&["--profile", "legacy"], &[]);
    let mut stdin = child.stdin.take().unwrap();
    let out = stdout_lines(&mut child);
    // A 1,000-byte method: each violation record (which repeats it) takes about 1.3 KB, 26 MB
    // in all, past the stderr queue's 16 MiB.
    let method = "p".repeat(1000);
    let writer = std::thread::spawn(move || {
        for k in 0..n {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{k},\"method\":\"{method}\",\"params\":1}}\n"
            );
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
        stdin
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut answered = 0;
    while answered < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match out.recv_timeout(left) {
            Ok(line) => {
                assert!(line.contains("-32602") || line.contains("-32600"), "{line}");
                answered += 1;
            }
            Err(_) => break,
        }
    }
    if answered < n {
        let _ = child.kill();
        panic!("{answered} of {n} replies before the deadline");
    }
    // Now the log is read, and the client closes its end.
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut log = Vec::new();
        err.read_to_end(&mut log).unwrap();
        log
    });
    drop(writer.join().unwrap());
    assert_eq!(wait_for(&mut child, Duration::from_secs(30)), Some(0));
    let recs = records(&reader.join().unwrap());
    let s = summary(&recs);
    let dropped = s["log_records_dropped"].as_u64().unwrap();
    assert!(dropped > 0, "{s}");
    assert_eq!(violations(&recs).len() as u64 + dropped, n, "{s}");
    assert_eq!(s["c2s"]["replied"], n);
}

/// Re-trial finding: once the shutdown had started, further signals were ignored: after a
/// SIGTERM, a client reading 64 KiB every 0.5 s kept the proxy draining 13 MB for over 45 s,
/// through a second SIGTERM and a SIGINT. A signal during the shutdown now skips the current
/// wait (the server's next step at once, the rest for the client given up, noted).
#[test]
fn a_second_signal_ends_the_shutdown_at_once() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let start = file(
        &dir,
        "start",
        same_size_notifications(50_000, 250).as_bytes(),
    );
    let mut child = spawn_open(&["--grace", "1"], &["--on-start", start.to_str().unwrap()]);
    let stdin = child.stdin.take().unwrap();
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut chunk = vec![0u8; 64 << 10];
        let mut got = 0;
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                break;
            }
            got += n;
            std::thread::sleep(Duration::from_millis(500));
        }
        got
    });
    // Wait for the first bytes, so the server is writing.
    std::thread::sleep(Duration::from_millis(1500));
    sigterm(&child);
    std::thread::sleep(Duration::from_millis(2500));
    sigterm(&child);
    // Draining 12.5 MB at 128 KB/s would take over 90 s.
    let status = wait_for(&mut child, Duration::from_secs(30));
    drop(stdin);
    assert!(
        status.is_some(),
        "still running 30 s after the second signal"
    );
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    let notes: Vec<&str> = recs
        .iter()
        .filter(|r| r["event"] == "note")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("received during the shutdown")),
        "{notes:?}"
    );
    let s2c = &summary(&recs)["s2c"];
    let undelivered = s2c["undelivered"]["forwarded"].as_u64().unwrap();
    assert!(undelivered > 0, "{s2c}");
    let got = reader.join().unwrap() as u64;
    let counted = s2c["forwarded"].as_u64().unwrap() - undelivered;
    assert!(got >= counted * 251, "{got} bytes read: {s2c}");
}

/// Re-trial finding: under `--monitor`, the bytes read ahead from the client (up to 1 MiB)
/// and not yet passed on when a SIGTERM ended the proxy were missing from
/// `undelivered.bytes` (131,072 reported where at least 433,454 were lost). What the server
/// read (after the signal) plus what was lost is now what the proxy read: all the client
/// wrote, but for what may still sit in the client's pipe (64 KiB).
#[test]
fn monitor_counts_the_bytes_read_ahead_as_undelivered() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    let mut child = spawn_open(
        &["--monitor", "--max-queue-bytes", "1000", "--grace", "20"],
        &["--stall", "5", "--record", record.to_str().unwrap()],
    );
    let mut stdin = child.stdin.take().unwrap();
    let input = same_size_notifications(2_000, 250);
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    sigterm(&child);
    assert_eq!(wait_for(&mut child, Duration::from_secs(60)), Some(0));
    drop(stdin);
    let mut err = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
    let recs = records(&err);
    let lost = summary(&recs)["c2s"]["undelivered"]["bytes"]
        .as_u64()
        .unwrap();
    let read = std::fs::read(&record).unwrap().len() as u64;
    let written = input.len() as u64;
    assert!(
        lost + read <= written,
        "lost {lost} + read {read} > {written}"
    );
    assert!(
        lost + read + (64 << 10) >= written,
        "lost {lost} + read {read} of {written}"
    );
}

/// Re-trial finding: at the end, the proxy waited a fixed 1 s for the stderr log, so a slow
/// reader of stderr got a record cut off mid-line and no summary. The end now waits while
/// stderr takes some of the log: here 100 violation records of about 50 KB each, read at
/// about 1.3 MB/s, all arrive whole, then the summary.
#[test]
fn a_slow_stderr_reader_gets_the_whole_log() {
    if !python() {
        return;
    }
    let n = 100;
    let method = "p".repeat(50_000);
    let mut input = String::new();
    for k in 0..n {
        input +=
            &format!("{{\"jsonrpc\":\"2.0\",\"id\":{k},\"method\":\"{method}\",\"params\":1}}\n");
    }
    let mut child = spawn_open(&["--profile", "legacy"], &[]);
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut log = Vec::new();
        let mut chunk = vec![0u8; 64 << 10];
        while let Ok(k) = err.read(&mut chunk) {
            if k == 0 {
                break;
            }
            log.extend_from_slice(&chunk[..k]);
            std::thread::sleep(Duration::from_millis(50));
        }
        log
    });
    let out = stdout_lines(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(60)), Some(0));
    assert_eq!(out.iter().count(), n);
    let log = reader.join().unwrap();
    assert!(log.ends_with(b"\n"));
    let recs = records(&log);
    let s = summary(&recs);
    assert_eq!(s["log_records_dropped"], 0, "{s}");
    assert_eq!(violations(&recs).len(), n);
}

/// Hostile trial (session 20): a client line whose bare CR hides a `tools/call` from an
/// LF-only reader; a Python server (universal newlines) would run it. The proxy forwards
/// nothing of the line and answers it -32700 with the id a JSON reader sees; the next
/// request goes through. Under `--monitor` it is forwarded as is
/// and logged `bare-cr`.
#[test]
fn a_bare_cr_line_is_not_forwarded() {
    if !python() {
        return;
    }
    let smuggle = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1,\"x\":\r{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":2,\"params\":{\"name\":\"delete_all\",\"arguments\":{}}}\r}\n";
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
    let input = format!("{smuggle}{ping}");
    let (out, record) = recorded(&["--profile", "legacy"], b"", input.clone());
    assert_eq!(record, ping);
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 2, "{replies:?}");
    // Answered as any rejected request, with the id a JSON reader sees: nothing of the line
    // reached the server, so no other reading of it matters.
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 1 && r["error"]["code"] == -32700),
        "{replies:?}"
    );
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 3 && r.get("result").is_some())
    );
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(
        v.iter()
            .any(|r| r["kind"] == "bare-cr" && r["action"] == "replied" && r["at"] == 44),
        "{v:?}"
    );

    // A server's response ending in CR CR LF (re-trial: it was dropped and the client's
    // request waited for ever): replaced with the -32603 error for the request in flight.
    let script = b"{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{}}\r\r";
    let (out, _) = recorded(&["--profile", "legacy"], script, ping.into());
    let replies = lines(&out.stdout);
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["id"], 3);
    assert_eq!(replies[0]["error"]["code"], -32603);
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(
        v.iter().any(|r| r["kind"] == "bare-cr"
            && r["action"] == "replaced"
            && r["dir"] == "s2c"
            && r["at"] == 36),
        "{v:?}"
    );

    let (out, record) = recorded(&["--profile", "legacy", "--monitor"], b"", input.clone());
    assert_eq!(record, input);
    let recs = records(&out.stderr);
    let v = violations(&recs);
    assert!(
        v.iter()
            .any(|r| r["kind"] == "bare-cr" && r["action"] == "forwarded"),
        "{v:?}"
    );
}
