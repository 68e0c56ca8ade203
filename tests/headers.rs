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
