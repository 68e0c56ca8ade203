//! Streamable HTTP header mirroring through the public API: the spec's HTTP examples, the
//! real 2026-07-28 capture, and mismatches in case, Base64 form and number spelling.

use mcpwire::profile::{
    HeaderRecord, ParamBinding, Rule, Violation, check_header_record, check_headers_with_params,
    error_reply,
};

include!("support/profile_corpus.rs");
include!("support/header_cases.rs");

#[test]
fn spec_http_examples_pass() {
    let Some(shared) = corpus::shared() else {
        println!("skipped: ../shared not found");
        return;
    };
    let text = std::fs::read_to_string(
        shared.join("spec-examples/http/streamable-http-post-2026-07-28.jsonl"),
    )
    .unwrap();
    for line in text.lines() {
        let mut out = Vec::new();
        let rec = check_header_record(line.as_bytes(), &mut out).unwrap();
        assert!(rec.is_checkable());
        assert!(out.is_empty(), "{line}: {out:?}");
    }
}

#[test]
fn real_2026_http_capture_mirrors_every_header() {
    let Some(shared) = corpus::shared() else {
        println!("skipped: ../shared not found");
        return;
    };
    for name in [
        "http_py-client_pyserver_2026-07-28",
        "http_py-client_pyserver_2025-11-25",
        "http_ts-client_pyserver_2025-11-25",
    ] {
        let text =
            std::fs::read_to_string(shared.join("captures").join(name).join("requests.jsonl"))
                .unwrap();
        let mut checked = 0;
        for line in text.lines() {
            let mut out = Vec::new();
            let rec = check_header_record(line.as_bytes(), &mut out).unwrap();
            checked += rec.is_checkable() as usize;
            assert!(out.is_empty(), "{name}: {out:?}");
        }
        assert!(checked > 20, "{name}: only {checked} records checked");
    }
}

#[test]
fn mismatches_in_case_base64_and_number_spelling() {
    for c in header_cases::cases() {
        let env = mcpwire::parse(c.body.as_bytes()).unwrap();
        let bindings: Vec<ParamBinding> = c
            .params
            .iter()
            .map(|(h, p)| ParamBinding {
                header: (*h).into(),
                path: vec![(*p).into()],
            })
            .collect();
        let mut out: Vec<Violation> = Vec::new();
        check_headers_with_params(&c.headers, &env, &bindings, &mut out);
        let got: Vec<&str> = out.iter().map(|v| v.rule.name()).collect();
        assert_eq!(got, c.expect, "{}", c.what);
        for v in &out {
            let reply = error_reply(Some(&env), v);
            assert_eq!(reply.http_status, 400, "{}", c.what);
            let body: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
            assert_eq!(body["error"]["code"], -32020);
            let request: serde_json::Value = serde_json::from_str(c.body).unwrap();
            assert_eq!(
                body["id"], request["id"],
                "{}: reply echoes the request id",
                c.what
            );
        }
    }
}

#[test]
fn header_record_forms() {
    let obj = br#"{"method":"POST","headers":{"mcp-method":"ping"},"body":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}"#;
    let r = HeaderRecord::parse(obj).unwrap();
    assert_eq!(r.header_pairs(), [("mcp-method", "ping")]);
    assert_eq!(r.body, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let arr = br#"{"request_line":"POST /mcp HTTP/1.1","headers":[["A","1"],["B","2"]],"body":{"jsonrpc":"2.0","method":"x"}}"#;
    let r = HeaderRecord::parse(arr).unwrap();
    assert_eq!(r.header_pairs(), [("A", "1"), ("B", "2")]);
    assert_eq!(r.body, br#"{"jsonrpc":"2.0","method":"x"}"#);
    let get = br#"{"method":"GET","headers":{},"body":""}"#;
    assert!(!HeaderRecord::parse(get).unwrap().is_checkable());
    assert!(HeaderRecord::parse(b"not json").is_err());
    assert!(HeaderRecord::parse(br#"{"headers":1,"body":"{}"}"#).is_err());
    // A body that is not JSON gets the core parse error.
    let mut out = Vec::new();
    check_header_record(br#"{"headers":{},"body":"{\"a\":"}"#, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].rule.code(), -32700);
    assert!(matches!(out[0].rule, Rule::Core(_)));
}

/// `mcpwire check --format jsonl --headers FILE` on `records`: exit status and output records
/// (summary left out).
fn check_headers_cli(records: &str) -> (i32, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("h.jsonl");
    std::fs::write(&f, records).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcpwire"))
        .args(["check", "--format", "jsonl", "--headers"])
        .arg(&f)
        .output()
        .unwrap();
    let recs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r.get("violations").is_some())
        .collect();
    (out.status.code().unwrap(), recs)
}

/// Regression (fresh-user trial): the pairs form with `Mcp-Method` twice,
/// `[["mcp-method","tools/call"],["Mcp-Method","tools/list"]]`, and a `tools/list` body was
/// reported valid (only the first header of a name was read). Duplicate `mcp-name` keys in
/// the object form and duplicate `"body"` keys were read first-wins.
#[test]
fn cli_headers_given_twice_and_records_with_a_key_twice() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let pv = r#"["MCP-Protocol-Version","2026-07-28"]"#;
    let twice = format!(
        r#"{{"headers":[{pv},["mcp-method","tools/call"],["Mcp-Method","tools/list"]],"body":{body}}}"#
    );
    let same = format!(
        r#"{{"headers":[{pv},["mcp-method","tools/list"],["Mcp-Method","tools/list"]],"body":{body}}}"#
    );
    let (code, recs) = check_headers_cli(&format!("{twice}\n{same}\n"));
    assert_eq!(code, 1);
    assert_eq!(recs.len(), 2, "{recs:?}");
    let v = &recs[0]["violations"];
    assert_eq!(v.as_array().unwrap().len(), 1, "{v:?}");
    assert_eq!(v[0]["kind"], "header-mismatch");
    assert_eq!(v[0]["code"], -32020);
    assert_eq!(
        v[0]["message"],
        r#"Mcp-Method header given twice with different values ("tools/call" and "tools/list")"#
    );
    assert_eq!(
        recs[1]["valid"], true,
        "identical duplicates pass: {recs:?}"
    );

    let escaped = serde_json::to_string(body).unwrap();
    let names = format!(
        r#"{{"method":"POST","headers":{{"mcp-protocol-version":"2026-07-28","mcp-method":"tools/list","mcp-name":"a","mcp-name":"b"}},"body":{escaped}}}"#
    );
    let bodies = format!(
        r#"{{"method":"POST","headers":{{"mcp-protocol-version":"2026-07-28","mcp-method":"tools/list"}},"body":{escaped},"body":"{{}}"}}"#
    );
    let (code, recs) = check_headers_cli(&format!("{names}\n{bodies}\n"));
    assert_eq!(code, 1);
    assert_eq!(recs.len(), 2, "{recs:?}");
    for (r, key) in recs.iter().zip(["headers.mcp-name", "body"]) {
        let v = &r["violations"];
        assert_eq!(v.as_array().unwrap().len(), 1, "{v:?}");
        assert_eq!(v[0]["kind"], "invalid-header-record");
        assert_eq!(v[0]["code"], -32600);
        let msg = v[0]["message"].as_str().unwrap();
        assert!(msg.contains(&format!("{key:?}")), "{msg}");
    }
}
