//! Error replies: exact bytes and HTTP status for rejected messages.

use mcpwire::profile::{
    Direction, Profile, Rule, Validator, Violation, error_reply, missing_capability_reply,
};

fn first_violation(profile: Profile, frame: &[u8]) -> (Option<mcpwire::Envelope<'_>>, Violation) {
    let mut v = Validator::new(profile, Direction::ClientToServer);
    let mut out = Vec::new();
    let env = match mcpwire::parse(frame) {
        Ok(env) => {
            v.check(&env, &mut out);
            Some(env)
        }
        Err(e) => {
            v.check_parse_error(&e, &mut out);
            None
        }
    };
    (env, out.into_iter().next().expect("a violation"))
}

#[test]
fn missing_meta_is_invalid_params_400_with_the_request_id() {
    let frame = br#"{"jsonrpc":"2.0","id":"req-7","method":"tools/list","params":{}}"#;
    let (env, v) = first_violation(Profile::V2026_07_28, frame);
    assert_eq!(v.rule, Rule::MissingProtocolVersion);
    let r = error_reply(env.as_ref(), &v);
    assert_eq!(r.http_status, 400);
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":"req-7","error":{{"code":-32602,"message":{}}}}}"#,
        serde_json::to_string(&v.message).unwrap()
    );
    assert_eq!(String::from_utf8(r.body).unwrap(), expected);
}

#[test]
fn unsupported_version_carries_supported_and_requested() {
    let frame = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let (env, v) = first_violation(Profile::V2026_07_28, frame);
    assert_eq!(v.rule, Rule::UnsupportedProtocolVersion);
    let r = error_reply(env.as_ref(), &v);
    assert_eq!(r.http_status, 400);
    let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(
        body["error"]["data"]["supported"],
        serde_json::json!(["2026-07-28"])
    );
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
}

#[test]
fn removed_method_is_404_and_not_json_has_no_id() {
    let frame = br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let (env, v) = first_violation(Profile::V2026_07_28, frame);
    assert_eq!(v.rule, Rule::RemovedMethod);
    let r = error_reply(env.as_ref(), &v);
    assert_eq!(r.http_status, 404);
    assert!(
        r.body
            .starts_with(br#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"#)
    );

    let (env, v) = first_violation(Profile::V2026_07_28, br#"{"jsonrpc":"2.0","id":9,"#);
    assert!(env.is_none());
    assert_eq!(v.rule.code(), -32700);
    let r = error_reply(None, &v);
    assert_eq!(r.http_status, 400);
    assert!(
        r.body
            .starts_with(br#"{"jsonrpc":"2.0","error":{"code":-32700,"#)
    );
}

#[test]
fn missing_capability_reply_names_the_capabilities() {
    let frame = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#;
    let env = mcpwire::parse(frame).unwrap();
    let r = missing_capability_reply(&env, &serde_json::json!({"elicitation": {}}));
    assert_eq!(r.http_status, 400);
    assert_eq!(
        String::from_utf8(r.body).unwrap(),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{}}}}}"#
    );
}

/// Regression: the proxy answered `{"jsonrpc":"2.0","id":2,"method":"x","method":"y"}`
/// without the id. `error_reply_for_frame` echoes the id exactly as written whenever
/// `recover_id` can read it from a frame the parser rejected, and omits it otherwise.
#[test]
fn error_reply_for_a_rejected_frame_echoes_a_recoverable_id() {
    use mcpwire::profile::error_reply_for_frame;
    // (frame, expected id text in the reply, expected code)
    let table: &[(&[u8], Option<&str>, i32)] = &[
        (
            br#"{"jsonrpc":"2.0","id":2,"method":"x","method":"y"}"#,
            Some("2"),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"a\"b","method":"x","params":{},"params":{}}"#,
            Some(r#""a\"b""#),
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":-9007199254740991,"method":"x","method":"y"}"#,
            Some("-9007199254740991"),
            -32600,
        ),
        // Not JSON: nothing can be read.
        (br#"{"jsonrpc":"2.0","id":4,"method":"x",}"#, None, -32700),
        (br#"{"jsonrpc":"2.0","id":"#, None, -32700),
        // Ids that are not valid ids, or ambiguous: never guessed.
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"x","method":"y"}"#,
            None,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"x","method":"y"}"#,
            None,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            None,
            -32600,
        ),
        (b"", None, -32700),
        // Library trial (session 11): a rejected response (no `method`) is not answered
        // with its id; a request-like frame with a `method` of any value is.
        (
            br#"{"jsonrpc":"2.0","id":40,"result":{},"result":{}}"#,
            None,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":41,"method":5,"method":6}"#,
            Some("41"),
            -32600,
        ),
    ];
    for &(frame, id, code) in table {
        let e = mcpwire::parse(frame).expect_err("the parser rejects the frame");
        let v = Violation::from_error(&e);
        assert_eq!(v.rule.code(), code, "{}", String::from_utf8_lossy(frame));
        let r = error_reply_for_frame(frame, &v);
        assert_eq!(r.http_status, 400);
        let id_member = id.map(|i| format!(r#""id":{i},"#)).unwrap_or_default();
        let expected = format!(
            r#"{{"jsonrpc":"2.0",{id_member}"error":{{"code":{code},"message":{}}}}}"#,
            serde_json::to_string(&v.message).unwrap()
        );
        assert_eq!(
            String::from_utf8(r.body).unwrap(),
            expected,
            "{}",
            String::from_utf8_lossy(frame)
        );
    }
}

/// `ErrorReply`'s Debug shows the body as text, not a byte list.
#[test]
fn error_reply_debug_shows_the_body_as_text() {
    let r = mcpwire::profile::ErrorReply {
        body: br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}"#.to_vec(),
        http_status: 400,
    };
    assert_eq!(
        format!("{r:?}"),
        r#"ErrorReply { body: "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"x\"}}", http_status: 400 }"#
    );
}

/// Re-trial finding: replies without an id broke `missing-error-id` under the revisions that
/// require one; `for_revision` adds `"id":null` there and nowhere else.
#[test]
fn replies_carry_a_null_id_where_the_revision_requires_one() {
    use mcpwire::profile::{Revision, Violation, error_reply_for_frame};
    let v = Violation::from_error(&mcpwire::parse(b"not json").unwrap_err());
    let bare = error_reply_for_frame(b"not json", &v);
    assert!(bare.body.starts_with(br#"{"jsonrpc":"2.0","error":"#));
    for rev in [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
    ] {
        let r = bare.clone().for_revision(Some(rev));
        assert!(
            r.body
                .starts_with(br#"{"jsonrpc":"2.0","id":null,"error":"#),
            "{rev}"
        );
        let again = r.clone().for_revision(Some(rev));
        assert_eq!(again, r, "{rev}: applied once");
    }
    for rev in [
        None,
        Some(Revision::V2025_11_25),
        Some(Revision::V2026_07_28),
    ] {
        assert_eq!(bare.clone().for_revision(rev), bare, "{rev:?}");
    }
    // A reply with the request's id keeps it.
    let dup = br#"{"jsonrpc":"2.0","id":7,"method":"x","method":"y"}"#;
    let v = Violation::from_error(&mcpwire::parse(dup).unwrap_err());
    let r = error_reply_for_frame(dup, &v).for_revision(Some(Revision::V2025_03_26));
    assert!(r.body.starts_with(br#"{"jsonrpc":"2.0","id":7,"#), "{r:?}");
}

/// Library trial (session 11): `error_reply` echoed the id of a malformed response (both
/// `result` and `error`, or a bad error code), which its receiver may take as the answer to
/// its own request with that id. Only requests and invalid messages with a `method` member
/// are answered with their id.
#[test]
fn error_reply_never_echoes_a_response_id() {
    use mcpwire::profile::{Rule, error_reply};
    let v = Violation::new(Rule::Core(mcpwire::ErrorKind::NoShape), 0, "x");
    let table: &[(&str, Option<i64>)] = &[
        (
            r#"{"jsonrpc":"2.0","id":40,"result":{},"error":{"code":1,"message":"x"}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":40,"error":{"code":-0,"message":"x"}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":40,"error":{"code":1e3,"message":"x"}}"#,
            None,
        ),
        (r#"{"jsonrpc":"2.0","id":40,"result":{}}"#, None),
        (
            r#"{"jsonrpc":"2.0","id":41,"method":"x","params":[]}"#,
            Some(41),
        ),
        (r#"{"jsonrpc":"2.0","id":42,"method":5}"#, Some(42)),
        (r#"{"jsonrpc":"2.0","id":43,"method":"x"}"#, Some(43)),
    ];
    for &(frame, id) in table {
        let env = mcpwire::parse(frame.as_bytes()).unwrap();
        let r: serde_json::Value =
            serde_json::from_slice(&error_reply(Some(&env), &v).body).unwrap();
        assert_eq!(r.get("id").and_then(|i| i.as_i64()), id, "{frame}: {r}");
    }
}

/// Library trial (session 11): `replacement_reply("not json", v)` wrote the text raw, so the
/// body was not JSON. Only one string or integer id token is written; anything else gives a
/// reply without an id.
#[test]
fn replacement_reply_writes_only_an_id_token() {
    use mcpwire::profile::{Rule, replacement_reply};
    let v = Violation::new(Rule::Core(mcpwire::ErrorKind::NoShape), 0, "x");
    let table: &[(&str, Option<serde_json::Value>)] = &[
        ("7", Some(7.into())),
        (r#""a\"b""#, Some("a\"b".into())),
        ("not json", None),
        ("1.5", None),
        ("null", None),
        (r#"7,"x":1"#, None),
        ("", None),
    ];
    for (raw, id) in table {
        let r = replacement_reply(raw, &v);
        let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON");
        assert_eq!(body.get("id").cloned(), id.clone(), "{raw}: {body}");
        assert_eq!(body["error"]["code"], -32603);
    }
}

/// Library trial (session 11): with limits above the default, a frame over the default
/// 4 MiB but within the gateway's limit, rejected for a duplicate key, was answered without
/// its id: `error_reply_for_frame` reads the id under `Limits::DEFAULT`. The `_with` form
/// takes the gateway's parser.
#[test]
fn error_reply_for_frame_with_reads_the_id_under_the_parsers_limits() {
    use mcpwire::profile::{error_reply_for_frame, error_reply_for_frame_with};
    use mcpwire::{Limits, Parser};
    let pad = "x".repeat(Limits::DEFAULT.max_frame_len);
    let frame =
        format!(r#"{{"jsonrpc":"2.0","id":9,"method":"a","method":"b","params":{{"p":"{pad}"}}}}"#);
    let big = Parser::with_limits(Limits {
        max_frame_len: frame.len(),
        ..Limits::DEFAULT
    });
    let e = big.parse(frame.as_bytes()).unwrap_err();
    assert_eq!(e.kind().name(), "duplicate-key");
    let v = Violation::from_error(&e);
    let with: serde_json::Value =
        serde_json::from_slice(&error_reply_for_frame_with(&big, frame.as_bytes(), &v).body)
            .unwrap();
    assert_eq!(with["id"], 9);
    let default: serde_json::Value =
        serde_json::from_slice(&error_reply_for_frame(frame.as_bytes(), &v).body).unwrap();
    assert!(default.get("id").is_none(), "{default}");
}

/// Checks `frame` under `profile` from the client: its envelope and all its violations.
fn all_violations(profile: Profile, frame: &[u8]) -> (mcpwire::Envelope<'_>, Vec<Violation>) {
    let env = mcpwire::parse(frame).expect("well-formed JSON");
    let mut out = Vec::new();
    Validator::new(profile, Direction::ClientToServer).check(&env, &mut out);
    (env, out)
}

/// The ids and codes of a batch reply (a JSON array of error responses).
fn ids_and_codes(body: &[u8]) -> Vec<(serde_json::Value, i64)> {
    let v: serde_json::Value = serde_json::from_slice(body).expect("a JSON reply");
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|r| {
            assert_eq!(r["jsonrpc"], "2.0");
            (r["id"].clone(), r["error"]["code"].as_i64().unwrap())
        })
        .collect()
}

/// The public batch reply (the proxy's `reject_batch` was private, so a gateway built on the
/// library wrote its own): one error per request, invalid or unreadable element, in element
/// order, nothing for notifications and responses, `"id":null` where the revision needs an
/// id; one error object for an empty batch, one over `MAX_BATCH_ELEMENTS` and a non-batch.
#[test]
fn batch_error_reply_answers_each_element_owed_an_answer() {
    use mcpwire::profile::{Revision, batch_body, batch_element_causes, batch_error_reply};
    let parser = mcpwire::Parser::new();
    let legacy = Some(Revision::V2025_06_18);

    // 2025-06-18 has no batches: every element without a violation of its own gets the
    // batch's; the notification and the response get nothing; `1` gets `"id":null`.
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"x","result":{}},1,{"jsonrpc":"2.0","id":"b","method":"ping"}]"#;
    let (env, out) = all_violations(Profile::V2025_06_18, frame);
    assert_eq!(out[0].rule.name(), "batch");
    let r = batch_error_reply(&parser, &env, &out, legacy).expect("a reply");
    assert_eq!(r.http_status, 400);
    assert_eq!(
        ids_and_codes(&r.body),
        [
            (1.into(), -32600),
            (serde_json::Value::Null, -32600),
            ("b".into(), -32600)
        ]
    );
    assert!(String::from_utf8_lossy(&r.body).contains("element 4 was not forwarded"));
    // Without a revision that needs an id, the element `1` is answered without one.
    let r = batch_error_reply(&parser, &env, &out, None).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert!(v[1].get("id").is_none(), "{v}");

    // 2025-03-26 allows batches: an element's own violation answers it (offset relative to
    // the element), the others get the batch's first violation as -32600.
    let frame =
        br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":5}]"#;
    let (env, out) = all_violations(Profile::V2025_03_26, frame);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].rule.name(), "method-not-string");
    let causes = batch_element_causes(&env, &out);
    assert_eq!(causes.len(), 2);
    assert_eq!((causes[0].1.rule.name(), causes[0].1.offset), ("batch", 0));
    let second = frame.iter().rposition(|&b| b == b'{').unwrap();
    assert_eq!((causes[0].0.start(), causes[1].0.start()), (1, second));
    assert_eq!(causes[1].1.rule, out[0].rule);
    assert_eq!(causes[1].1.offset, out[0].offset - second);
    assert_eq!(frame[second + causes[1].1.offset], b'5');
    let r = batch_error_reply(&parser, &env, &out, Some(Revision::V2025_03_26)).unwrap();
    assert_eq!(
        ids_and_codes(&r.body),
        [(1.into(), -32600), (2.into(), -32600)]
    );

    // An element the core rejects (a duplicate `method`) still gets its id back.
    let frame = br#"[{"jsonrpc":"2.0","id":3,"method":"a","method":"b"}]"#;
    let (env, out) = all_violations(Profile::V2025_03_26, frame);
    assert_eq!(out[0].rule.name(), "duplicate-key");
    let r = batch_error_reply(&parser, &env, &out, None).unwrap();
    assert_eq!(ids_and_codes(&r.body), [(3.into(), -32600)]);

    // Only notifications and responses: nothing to send (JSON-RPC 2.0 §6: no empty array).
    let frame = br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":9,"result":{}}]"#;
    let (env, out) = all_violations(Profile::V2025_06_18, frame);
    assert!(!out.is_empty());
    assert_eq!(batch_error_reply(&parser, &env, &out, legacy), None);

    // No violations: nothing to send.
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let (env, out) = all_violations(Profile::V2025_03_26, frame);
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(batch_error_reply(&parser, &env, &out, None), None);
    assert!(batch_element_causes(&env, &out).is_empty());

    // An empty batch and a single message: one error object.
    for frame in [&b"[]"[..], br#"{"jsonrpc":"2.0","id":4,"method":5}"#] {
        let (env, out) = all_violations(Profile::V2025_03_26, frame);
        let r = batch_error_reply(&parser, &env, &out, None).expect("a reply");
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert!(v.is_object(), "{v}");
        assert_eq!(r, error_reply(Some(&env), &out[0]));
    }

    // At the element limit, one error per element; one past it, one error for the batch.
    let batch = |n: usize| {
        let els: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#))
            .collect();
        format!("[{}]", els.join(","))
    };
    let max = mcpwire::profile::MAX_BATCH_ELEMENTS;
    for (n, array) in [(max - 1, true), (max, true), (max + 1, false)] {
        let frame = batch(n);
        let (env, out) = all_violations(Profile::V2025_06_18, frame.as_bytes());
        let r = batch_error_reply(&parser, &env, &out, legacy).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        match array {
            true => {
                let ids: Vec<_> = v.as_array().unwrap().iter().map(|r| &r["id"]).collect();
                assert_eq!(ids.len(), n);
                assert!(ids.iter().enumerate().all(|(i, id)| **id == i), "n={n}");
            }
            false => assert!(v.is_object() && v["id"].is_null(), "n={n}: {v}"),
        }
    }

    assert_eq!(batch_body::<&[u8]>(&[]), b"[]");
    assert_eq!(batch_body(&[&b"1"[..], b"{}"]), b"[1,{}]");
}
