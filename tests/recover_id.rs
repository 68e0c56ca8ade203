//! `recover_id`: the id of a frame rejected only by the duplicate-key policy, for error
//! replies. Table of frames → expected id text (or none), checked on every scan backend and
//! against `parse` (which must keep rejecting / accepting exactly as before).

use mcpwire::{Backend, ErrorKind, Limits, Parser, parse, recover_id};

/// (frame, expected id text, what `parse` says: Ok or the error kind).
const CASES: &[(&str, Option<&str>, Option<ErrorKind>)] = &[
    // Duplicate-key policy rejections: the id is recovered.
    (
        r#"{"jsonrpc":"2.0","id":7,"method":"a","method":"b"}"#,
        Some("7"),
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","method":"a","params":{"_meta":{"k":1,"k":2}},"id":"x-1"}"#,
        Some(r#""x-1""#),
        Some(ErrorKind::DuplicateMetaKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":-9007199254740991,"params":{},"params":{},"method":"m"}"#,
        Some("-9007199254740991"),
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#" {"i\u0064" : "a\"b" , "jsonrpc":"2.0","jsonrpc":"2.0"} "#,
        Some(r#""a\"b""#),
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"p":1,"\u0070":2}}}"#,
        Some("1"),
        Some(ErrorKind::DuplicateMetaKey),
    ),
    // Valid frames: same span as `id_span`.
    (
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        Some("3"),
        None,
    ),
    // The id itself is duplicated: never guess.
    (
        r#"{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"i\u0064":2,"method":"m"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    // Malformed JSON: none. `parse` reports the syntax error, not the duplicate before it
    // (a frame that is not JSON is -32700 whatever it holds), and no id is recovered.
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"m","method":"n""#,
        None,
        Some(ErrorKind::UnexpectedEnd),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
        None,
        Some(ErrorKind::UnexpectedByte),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
        None,
        Some(ErrorKind::TrailingCharacters),
    ),
    (
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"method\":\"\u{1}\"}",
        None,
        Some(ErrorKind::ControlCharacter),
    ),
    // Not a valid id form: none.
    (
        r#"{"jsonrpc":"2.0","id":null,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1.0,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":1e3,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":9007199254740992,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":true,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    // No depth-1 id (a nested one does not count), or not an object.
    (
        r#"{"jsonrpc":"2.0","params":{"id":1},"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
    (r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#, None, None),
    (r#""id""#, None, None),
    ("", None, Some(ErrorKind::Empty)),
    // Case variant is a different key.
    (
        r#"{"jsonrpc":"2.0","Id":1,"method":"a","method":"b"}"#,
        None,
        Some(ErrorKind::DuplicateKey),
    ),
];

#[test]
fn recover_id_table() {
    for &(frame, want, parse_err) in CASES {
        let f = frame.as_bytes();
        match (parse(f), parse_err) {
            (Ok(_), None) => {}
            (Err(e), Some(k)) => assert_eq!(e.kind(), k, "{frame}"),
            (got, _) => panic!("parse changed on {frame}: {got:?}"),
        }
        for b in Backend::available() {
            let got = Parser::new()
                .with_backend(b)
                .recover_id(f)
                .map(|s| std::str::from_utf8(s.slice(f)).unwrap());
            assert_eq!(got, want, "{b:?} {frame}");
        }
        assert_eq!(
            recover_id(f).map(|s| s.slice(f)),
            want.map(str::as_bytes),
            "{frame}"
        );
        if let Ok(env) = parse(f)
            && want.is_some()
        {
            assert_eq!(recover_id(f), env.id_span(), "{frame}");
        }
    }
}

#[test]
fn recover_id_respects_limits() {
    // Depth: 3 nested containers under a parser whose limit is 3 → rejected, no id.
    let frame = br#"{"id":1,"a":[[1]],"method":"m","method":"n"}"#;
    let tight = Limits {
        max_depth: 3,
        ..Limits::DEFAULT
    };
    assert_eq!(Parser::with_limits(tight).recover_id(frame), None);
    let ok = Limits {
        max_depth: 4,
        ..Limits::DEFAULT
    };
    let s = Parser::with_limits(ok).recover_id(frame).unwrap();
    assert_eq!(s.slice(frame), b"1");
    // Frame length: at the limit recovered, one byte over not.
    let n = frame.len();
    for (max, want) in [(n - 1, false), (n, true), (n + 1, true)] {
        let l = Limits {
            max_frame_len: max,
            ..Limits::DEFAULT
        };
        assert_eq!(
            Parser::with_limits(l).recover_id(frame).is_some(),
            want,
            "{max}"
        );
    }
    // BOM: not well-formed under our policy.
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(frame);
    assert_eq!(recover_id(&bom), None);
}

/// `Parser::recover_response_id` (hostile trial, session 14: a server's response with one bad
/// byte deep in `result` was dropped by the stdio proxy, and the client's request waited
/// forever). Frames rejected for their content, structure intact: the id is read; anything
/// with a `method`, two ids, broken structure, or an invalid id token: none. Every case is
/// first checked to be rejected by `parse` (or accepted, for the strict cases).
#[test]
fn recover_response_id_reads_ids_of_content_errors_only() {
    let p = Parser::new();
    let cases: &[(&[u8], Option<&str>)] = &[
        // The trial's inputs: a Latin-1 byte, a raw TAB, a lone surrogate deep in `result`.
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}}",
            Some("1"),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\tb\"}]}}",
            Some("2"),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s-3","result":{"text":"\ud800"}}"#,
            Some(r#""s-3""#),
        ),
        // After the bad content, escaped key, number out of range, deep nesting.
        (
            b"{\"result\":{\"t\":\"\xff\"},\"jsonrpc\":\"2.0\",\"i\\u0064\":4}",
            Some("4"),
        ),
        (br#"{"jsonrpc":"2.0","id":5,"result":{"n":1e400}}"#, Some("5")),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"result":{{"a":{}{}}}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            )
            .leak()
            .as_bytes(),
            Some("6"),
        ),
        // A strict recovery (duplicate key) still works; a well-formed response too.
        (br#"{"jsonrpc":"2.0","id":7,"result":{},"result":{}}"#, Some("7")),
        // Never for a request (a `method` anywhere at depth 1, escaped too).
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"x\",\"params\":{\"t\":\"\xff\"}}",
            None,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"params\":{\"t\":\"\xff\"},\"m\\u0065thod\":\"x\"}",
            None,
        ),
        (br#"{"jsonrpc":"2.0","id":8,"method":"a","method":"b"}"#, None),
        // Two ids, no id, an invalid id token (bad content inside it, float, null).
        (b"{\"id\":9,\"result\":{\"t\":\"\xff\"},\"id\":10}", None),
        (b"{\"jsonrpc\":\"2.0\",\"result\":{\"t\":\"\xff\"}}", None),
        (b"{\"id\":\"a\xffb\",\"result\":{}}", None),
        (b"{\"id\":1.5,\"result\":{\"t\":\"\xff\"}}", None),
        (b"{\"id\":null,\"result\":{\"t\":\"\xff\"}}", None),
        (b"{\"id\":9007199254740992,\"result\":{\"t\":\"\xff\"}}", None),
        // Broken structure: truncated, unclosed string, mismatched bracket, trailing bytes,
        // not an object, a BOM, a missing colon or value.
        (b"{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"t\":\"\xff\"}", None),
        (b"{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"t\":\"\xff}}", None),
        (b"{\"id\":11,\"result\":{\"t\":[\"\xff\"}]}", None),
        (b"{\"id\":11,\"result\":{\"t\":\"\xff\"}} x", None),
        (b"[{\"id\":11,\"result\":{\"t\":\"\xff\"}}]", None),
        (b"\xef\xbb\xbf{\"id\":11,\"result\":{\"t\":\"\xff\"}}", None),
        (b"{\"id\" 11,\"result\":{\"t\":\"\xff\"}}", None),
        (b"{\"id\":,\"result\":{\"t\":\"\xff\"}}", None),
        // Re-trial (session 14): syntax errors are no content errors, and a bad depth-1
        // scalar must not hide a `method` (exact inputs; before: `Some("1")` for each).
        (
            br#"{"jsonrpc":"2.0","id":1,"x":t"method":"roots/list","params":{}}"#,
            None,
        ),
        (br#"{"jsonrpc":"2.0","id":1,"result":{"a"}}"#, None),
        (br#"{"jsonrpc":"2.0","id":1,"result":[1 2 3 : ,,]}"#, None),
        (br#"{"jsonrpc":"2.0","id":1,"result":x{[}"#, None),
        (br#"{"jsonrpc":"2.0","id":1,"result":nul}"#, None),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"x\":t\"method\":\"sampling/createMessage\",\"params\":{\"a\":\"\xe9\"}}",
            None,
        ),
        // A content error first, then a bad depth-1 scalar hiding a `method`.
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"},\"x\":t\"method\":\"ping\"}",
            None,
        ),
    ];
    for (frame, want) in cases {
        let shown = String::from_utf8_lossy(frame);
        let got = p
            .recover_response_id(frame)
            .map(|s| std::str::from_utf8(s.slice(frame)).unwrap().to_owned());
        assert_eq!(got.as_deref(), *want, "{shown}");
        // Each content case is one `parse` rejects (the point of the recovery).
        if want.is_some() && !shown.contains(r#""result":{},"result""#) {
            assert!(parse(frame).is_err(), "{shown}");
        }
    }
}
