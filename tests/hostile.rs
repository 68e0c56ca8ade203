//! Hostile inputs (reliability notes §1.2, §4.1): parser-differential tricks, limits at the
//! boundary and one byte either side, and resource-exhaustion shapes. Every case is also
//! run through the differential oracle on every scan backend.

use mcpwire::oracle::envelope::check_frame_with;
use mcpwire::{Backend, Envelope, ErrorKind, Id, Limits, Parser, Shape, parse};

/// Parses with every backend, checks they agree and the oracle agrees, returns the result.
fn run(frame: &[u8]) -> Result<Envelope<'_>, mcpwire::Error> {
    run_with(frame, Limits::DEFAULT)
}

fn run_with(frame: &[u8], limits: Limits) -> Result<Envelope<'_>, mcpwire::Error> {
    if frame.len() < 1 << 20
        && let Err(d) = check_frame_with(frame, limits)
    {
        panic!(
            "oracle: {d} on {:?}",
            String::from_utf8_lossy(&frame[..frame.len().min(200)])
        );
    }
    let want = Parser::with_limits(limits)
        .with_backend(Backend::Scalar)
        .parse(frame);
    for b in Backend::available() {
        let got = Parser::with_limits(limits).with_backend(b).parse(frame);
        assert_eq!(
            got.as_ref().map(|e| e.spans()),
            want.as_ref().map(|e| e.spans()),
            "{b:?}"
        );
    }
    want
}

fn kind(frame: &[u8]) -> ErrorKind {
    match run(frame) {
        Err(e) => e.kind(),
        Ok(e) => panic!(
            "accepted as {:?}: {}",
            e.shape(),
            String::from_utf8_lossy(frame)
        ),
    }
}

fn ok(frame: &[u8]) -> Envelope<'_> {
    match run(frame) {
        Ok(e) => e,
        Err(e) => panic!("rejected {e}: {}", String::from_utf8_lossy(frame)),
    }
}

fn invalid(frame: &[u8]) -> ErrorKind {
    let e = ok(frame);
    assert_eq!(
        e.shape(),
        Shape::Invalid,
        "{}",
        String::from_utf8_lossy(frame)
    );
    let r = e.invalid_reason().expect("reason");
    // Not a valid JSON-RPC message: -32600; a request whose `params._meta` is no object has
    // invalid params (-32602, as a missing `_meta` field has; session 22).
    let want = match r.kind() {
        ErrorKind::MetaNotObject => -32602,
        _ => -32600,
    };
    assert_eq!(r.code(), want);
    r.kind()
}

#[test]
fn escaped_key_names_are_decoded() {
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"m\u0065thod":"tools/call"}"#);
    assert_eq!(e.shape(), Shape::Request);
    assert!(e.method().unwrap().eq_str("tools/call"));
    let e = ok(br#"{"\u006a\u0073onrpc":"2\u002e0","id":1,"method":"tools\/call"}"#);
    assert_eq!(e.shape(), Shape::Request);
    assert_eq!(e.method().unwrap().decode(), "tools/call");
    assert_eq!(e.method().unwrap().raw(), r"tools\/call");
}

#[test]
fn duplicate_keys_are_rejected_after_unescaping() {
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}"#;
    assert_eq!(kind(f), ErrorKind::DuplicateKey);
    let e = run(f).unwrap_err();
    assert_eq!((e.code(), e.offset()), (-32600, 46));
    assert_eq!(
        kind(br#"{"jsonrpc":"2.0","id":1,"method":"a","\u006d\u0065thod":"b"}"#),
        ErrorKind::DuplicateKey
    );
    assert_eq!(
        kind(br#"{"x":1,"jsonrpc":"2.0","\u0078":2}"#),
        ErrorKind::DuplicateKey
    );
    // Inside params: -32602 (reliability.md §1.2 class 1).
    assert_eq!(
        kind(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","n\u0061me":"b"}}"#),
        ErrorKind::DuplicateParamsKey
    );
    let e = run(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{},"_meta":{}}}"#)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.code()),
        (ErrorKind::DuplicateParamsKey, -32602)
    );
    let e = run(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"a":1,"a":2}}}"#)
        .unwrap_err();
    assert_eq!((e.kind(), e.code()), (ErrorKind::DuplicateMetaKey, -32602));
    assert_eq!(
        kind(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resultType":"x"}}"#),
        ErrorKind::DuplicateKey
    );
    assert_eq!(
        kind(br#"{"jsonrpc":"2.0","error":{"code":1,"message":"m","code":2}}"#),
        ErrorKind::DuplicateKey
    );
    assert_eq!(
        kind(
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"a":1,"b":2,"\u0061":3}}}"#
        ),
        ErrorKind::DuplicateMetaKey
    );
    assert_eq!(
        kind(br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"k":1,"k":1}}}"#),
        ErrorKind::DuplicateMetaKey
    );
    // Duplicates in unrecorded places are a backend's business (serde_json: last wins).
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":1,"a":2}}}"#);
    assert_eq!(e.shape(), Shape::Request);
}

#[test]
fn many_keys_stay_linear_and_detect_late_duplicates() {
    let mut f = String::from(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"#);
    for i in 0..50_000 {
        f.push_str(&format!("\"k{i}\":0,"));
    }
    f.push_str(r#""k\u0031":1}}}"#);
    assert_eq!(
        run(f.as_bytes()).unwrap_err().kind(),
        ErrorKind::DuplicateMetaKey
    );
    let mut g = String::from("{");
    for i in 0..50_000 {
        g.push_str(&format!("\"k{i}\":0,"));
    }
    g.push_str(r#""jsonrpc":"2.0","method":"x"}"#);
    assert_eq!(run(g.as_bytes()).unwrap().shape(), Shape::Notification);
}

#[test]
fn decoy_method_in_nested_value_or_string() {
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"params":{"method":"tools/call"},"method":"ping"}"#);
    assert!(e.method().unwrap().eq_str("ping"));
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"x":"\",\"method\":\"tools/call","method":"ping"}"#);
    assert!(e.method().unwrap().eq_str("ping"));
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"x":"a\\","method":"ping"}"#);
    assert!(e.method().unwrap().eq_str("ping"));
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"x":[{"method":"a"}],"method":"ping"}"#);
    assert!(e.method().unwrap().eq_str("ping"));
}

#[test]
fn id_after_a_20_kb_value() {
    let big = "x".repeat(20_000);
    let f = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{{"a":"{big}","b":[{big:?}]}},"id":"late"}}"#
    );
    let e = ok(f.as_bytes());
    assert_eq!(e.shape(), Shape::Request);
    match e.id() {
        Some(Id::Str(s)) => assert!(s.eq_str("late")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn case_variant_keys_are_recorded_not_rejected() {
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}"#;
    let e = ok(f);
    assert_eq!(e.shape(), Shape::Request);
    assert!(e.method().unwrap().eq_str("ping"));
    assert_eq!(e.case_variant_key().unwrap().slice(f), b"Method");
    let f = br#"{"jsonrpc":"2.0","id":1,"Method":"tools/call"}"#;
    assert_eq!(invalid(f), ErrorKind::NoShape);
    let f = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"param\u{17f}\":{}}";
    assert_eq!(
        ok(f.as_bytes())
            .case_variant_key()
            .unwrap()
            .slice(f.as_bytes()),
        "param\u{17f}".as_bytes()
    );
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"m","p\u0041rams":{}}"#;
    assert_eq!(ok(f).case_variant_key().unwrap().slice(f), br"p\u0041rams");
    assert!(
        ok(br#"{"jsonrpc":"2.0","method":"m","other":1}"#)
            .case_variant_key()
            .is_none()
    );
}

#[test]
fn not_json_is_rejected_with_parse_error() {
    let cases: &[(&[u8], ErrorKind)] = &[
        (
            br#"{"jsonrpc":"2.0","method":"m","params":{"x":"\udead"}}"#,
            ErrorKind::LoneSurrogate,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"m","params":{"x":"\ud800\u0041"}}"#,
            ErrorKind::LoneSurrogate,
        ),
        (
            br#"{"method\ud888":"tools/call"}"#,
            ErrorKind::LoneSurrogate,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"x\":\"\xff\xfe\"}}",
            ErrorKind::InvalidUtf8,
        ),
        (b"{\"x\":\"\xc0\xaf\"}", ErrorKind::InvalidUtf8),
        (b"{\"x\":\"\xed\xa0\x80\"}", ErrorKind::InvalidUtf8),
        (b"{\"x\":\"\xf4\x90\x80\x80\"}", ErrorKind::InvalidUtf8),
        (b"{\"x\":\"\xe2\x82\"}", ErrorKind::InvalidUtf8),
        (
            b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"m\"}",
            ErrorKind::Bom,
        ),
        (b"{\"x\":\"a\x00b\"}", ErrorKind::ControlCharacter),
        (b"{\"x\":\"a\nb\"}", ErrorKind::ControlCharacter),
        (
            br#"{"jsonrpc":"2.0","id":1,/*"method":"tools/call",*/"method":"ping"}"#,
            ErrorKind::UnexpectedByte,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\"} // c",
            ErrorKind::TrailingCharacters,
        ),
        (
            br#"{"jsonrpc":"2.0","method":"m",}"#,
            ErrorKind::UnexpectedByte,
        ),
        (br#"{"a":[1,2,]}"#, ErrorKind::UnexpectedByte),
        (br#"{"a":NaN}"#, ErrorKind::UnexpectedByte),
        (br#"{"a":01}"#, ErrorKind::InvalidNumber),
        (br#"{"a":1.}"#, ErrorKind::InvalidNumber),
        (br#"{"a":-}"#, ErrorKind::InvalidNumber),
        (br#"{"a":.5}"#, ErrorKind::UnexpectedByte),
        (br#"{"a":1e400}"#, ErrorKind::NumberOutOfRange),
        (br#"{"a":-1.8e308}"#, ErrorKind::NumberOutOfRange),
        (b"{\"a\":\x0c1}", ErrorKind::UnexpectedByte),
        ("{\"a\":\u{a0}1}".as_bytes(), ErrorKind::UnexpectedByte),
        (
            br#"{"jsonrpc":"2.0","method":"ping"}{"jsonrpc":"2.0","method":"tools/call"}"#,
            ErrorKind::TrailingCharacters,
        ),
        (br#"{"a":tru}"#, ErrorKind::InvalidLiteral),
        (br#"{"a":"\x"}"#, ErrorKind::InvalidEscape),
        (br#"{"a":"\u12G4"}"#, ErrorKind::InvalidEscape),
        (b"", ErrorKind::Empty),
        (b" \r\n\t", ErrorKind::Empty),
        (b"{\"a\":", ErrorKind::UnexpectedEnd),
        (b"{\"a\":\"abc", ErrorKind::UnexpectedEnd),
        (b"{\"a\":\"\\u12", ErrorKind::UnexpectedEnd),
        (b"{\"a\":\"\\ud800", ErrorKind::UnexpectedEnd),
    ];
    for (f, k) in cases {
        let e = run(f).unwrap_err();
        assert_eq!(e.kind(), *k, "{}", String::from_utf8_lossy(f));
        assert_eq!(e.code(), -32700, "{}", String::from_utf8_lossy(f));
        assert!(e.offset() <= f.len());
    }
    // Offsets point at the culprit.
    assert_eq!(run(br#"{"x":"\udead"}"#).unwrap_err().offset(), 6);
    assert_eq!(run(b"{\"x\":\"ab\xff\"}").unwrap_err().offset(), 8);
    assert_eq!(run(b"{\"x\":1} x").unwrap_err().offset(), 8);
}

#[test]
fn escaped_nul_is_legal_and_kept() {
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call\u0000.evil"}"#);
    let m = e.method().unwrap();
    assert!(!m.eq_str("tools/call"));
    assert_eq!(m.decode(), "tools/call\0.evil");
    let e = ok(br#"{"jsonrpc":"2.0","id":1,"method\u0000":"x"}"#);
    assert_eq!(e.shape(), Shape::Invalid);
}

#[test]
fn underflow_is_accepted() {
    assert_eq!(
        ok(br#"{"jsonrpc":"2.0","method":"m","params":{"a":1e-400,"b":0e99999999999999999999}}"#)
            .shape(),
        Shape::Notification
    );
    ok(br#"[1.7976931348623157e308, -1.7976931348623157e308, 0.00000000001e318]"#);
    assert_eq!(
        kind(b"[1.7976931348623159e308]"),
        ErrorKind::NumberOutOfRange
    );
    assert_eq!(kind(b"[0.0000001e316]"), ErrorKind::NumberOutOfRange);
}

/// Runs `f` on a thread with a small stack: proves the walk is not recursive.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn hundred_thousand_nested_brackets() {
    small_stack(|| {
        for open in [&b"["[..], b"{\"a\":", b"[{\"a\":"] {
            let f = open.repeat(100_000);
            for b in Backend::available() {
                let e = Parser::new().with_backend(b).parse(&f).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::DepthLimit);
            }
            let mut g = br#"{"jsonrpc":"2.0","method":"m","params":{"x":"#.to_vec();
            g.extend(open.repeat(100_000));
            assert_eq!(parse(&g).unwrap_err().kind(), ErrorKind::DepthLimit);
            // With the limit raised past the nesting, the walk still needs no stack.
            let deep = Limits {
                max_depth: 1_000_000,
                ..Limits::DEFAULT
            };
            let mut closed = b"[".repeat(100_000);
            closed.extend(b"]".repeat(100_000));
            assert_eq!(
                Parser::with_limits(deep).parse(&closed).unwrap().shape(),
                Shape::Batch
            );
            assert_eq!(
                Parser::with_limits(deep).parse(&f).unwrap_err().kind(),
                ErrorKind::UnexpectedEnd
            );
        }
    });
}

/// Nesting of mixed kinds past 64 levels inside one skipped value (the container walk keeps
/// the innermost 64 kinds in a register and the rest on the heap): every closing bracket is
/// checked against the kind it closes, at every depth, on every backend.
#[test]
fn mixed_nesting_past_64_levels() {
    let deep = Limits {
        max_depth: 1000,
        ..Limits::DEFAULT
    };
    let mut x: u32 = 0x9E37_79B9;
    let kinds: Vec<bool> = (0..300)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x & 1 == 1
        })
        .collect();
    let mut open = br#"{"jsonrpc":"2.0","method":"m","params":{"x":"#.to_vec();
    for &object in &kinds {
        open.extend_from_slice(if object { br#"{"a":"# } else { b"[" });
    }
    open.extend_from_slice(b"1");
    let closes: Vec<u8> = kinds
        .iter()
        .rev()
        .map(|&object| if object { b'}' } else { b']' })
        .collect();
    let frame = |wrong: Option<usize>| {
        let mut f = open.clone();
        for (i, &c) in closes.iter().enumerate() {
            f.push(if Some(i) == wrong {
                if c == b'}' { b']' } else { b'}' }
            } else {
                c
            });
        }
        f.extend_from_slice(b"}}");
        f
    };
    let ok = frame(None);
    for b in Backend::available() {
        let p = Parser::with_limits(deep).with_backend(b);
        assert_eq!(p.parse(&ok).unwrap().shape(), Shape::Notification, "{b:?}");
        for wrong in [0, 1, 63, 64, 65, 100, 200, 235, 236, 237, 298, 299] {
            let e = p.parse(&frame(Some(wrong))).unwrap_err();
            assert_eq!(
                (e.kind(), e.offset()),
                (ErrorKind::UnexpectedByte, open.len() + wrong),
                "{b:?} {wrong}"
            );
        }
    }
}

#[test]
fn depth_limit_at_the_boundary() {
    // serde_json: 127 nested containers accepted, 128 rejected.
    for (n, accept) in [(126, true), (127, true), (128, false)] {
        let f = format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(run(f.as_bytes()).is_ok(), accept, "depth {n}");
        let g = format!(
            r#"{{"jsonrpc":"2.0","method":"m","params":{{"_meta":{{"a":{}{}}}}}}}"#,
            "[".repeat(n - 3),
            "]".repeat(n - 3)
        );
        assert_eq!(run(g.as_bytes()).is_ok(), accept, "envelope depth {n}");
    }
    let e = run(format!("{}{}", "[".repeat(128), "]".repeat(128)).as_bytes()).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::DepthLimit, 127));
    let small = Limits {
        max_depth: 3,
        ..Limits::DEFAULT
    };
    assert!(run_with(br#"{"params":{"_meta":{}}}"#, small).is_err());
    assert!(run_with(br#"{"params":{"x":1}}"#, small).is_ok());
    assert!(run_with(br#"{"params":{"x":[]}}"#, small).is_err());
    // An empty container skipped without the container walk (`{}` / `[]` as a member value)
    // meets the same limit at the same offset, and one level more is accepted.
    for f in [&br#"{"params":{"x":[]}}"#[..], br#"{"params":{"x":{}}}"#] {
        let e = run_with(f, small).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::DepthLimit, 15));
        let four = Limits {
            max_depth: 4,
            ..Limits::DEFAULT
        };
        assert!(run_with(f, four).is_ok());
    }
}

#[test]
fn number_length_limit_at_the_boundary() {
    let lim = Limits::DEFAULT.max_number_len;
    for (len, accept) in [(lim - 1, true), (lim, true), (lim + 1, false)] {
        let num = format!("0.{}", "1".repeat(len - 2));
        let f = format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"n":{num}}}}}"#);
        let r = run(f.as_bytes());
        assert_eq!(r.is_ok(), accept, "len {len}");
        if let Err(e) = r {
            assert_eq!(
                (e.kind(), e.offset()),
                (ErrorKind::NumberTooLong, f.find("0.").unwrap())
            );
        }
    }
}

#[test]
fn integer_length_limit_at_the_boundary() {
    // Plain integers take the fast path; the limit applies there too.
    let l = Limits {
        max_number_len: 10,
        ..Limits::DEFAULT
    };
    for (num, accept) in [
        "123456789",
        "1234567890",
        "-123456789",
        "12345678901",
        "-1234567890",
    ]
    .iter()
    .zip([true, true, true, false, false])
    {
        let f = format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"n":{num}}}}}"#);
        let r = run_with(f.as_bytes(), l);
        assert_eq!(r.is_ok(), accept, "{num}");
        if let Err(e) = r {
            assert_eq!(
                (e.kind(), e.offset()),
                (ErrorKind::NumberTooLong, f.find(num).unwrap())
            );
        }
    }
    // 310 digits: beyond f64 (serde_json: number out of range); 308 digits: fits.
    assert_eq!(
        kind(format!("[1{}]", "0".repeat(309)).as_bytes()),
        ErrorKind::NumberOutOfRange
    );
    assert!(run(format!("[1{}]", "0".repeat(307)).as_bytes()).is_ok());
    assert_eq!(
        kind(format!("[2{}]", "0".repeat(308)).as_bytes()),
        ErrorKind::NumberOutOfRange
    );
}

#[test]
fn frame_length_limit_at_the_boundary() {
    let f = br#"{"jsonrpc":"2.0","method":"m"}"#;
    for (max, accept) in [(f.len() - 1, false), (f.len(), true), (f.len() + 1, true)] {
        let l = Limits {
            max_frame_len: max,
            ..Limits::DEFAULT
        };
        let r = run_with(f, l);
        assert_eq!(r.is_ok(), accept, "max {max}");
        if let Err(e) = r {
            assert_eq!((e.kind(), e.code()), (ErrorKind::FrameTooLarge, -32600));
        }
    }
}

#[test]
fn ten_megabyte_string() {
    let mut f = br#"{"jsonrpc":"2.0","method":"m","params":{"blob":""#.to_vec();
    f.extend(std::iter::repeat_n(b'A', 10 << 20));
    f.extend(br#"\n\u00e9","z":1}}"#);
    assert_eq!(parse(&f).unwrap_err().kind(), ErrorKind::FrameTooLarge);
    let big = Limits {
        max_frame_len: 16 << 20,
        ..Limits::DEFAULT
    };
    for b in Backend::available() {
        let e = Parser::with_limits(big).with_backend(b).parse(&f).unwrap();
        assert_eq!(e.shape(), Shape::Notification);
        let start = f.iter().position(|&b| b == b'{').map(|_| 39).unwrap();
        assert_eq!(f[start], b'{');
        assert_eq!(e.params_span().unwrap().range(), start..f.len() - 1);
    }
    // Unterminated: rejected at the end, not a hang.
    f.truncate(f.len() - 12);
    assert_eq!(
        Parser::with_limits(big).parse(&f).unwrap_err().kind(),
        ErrorKind::UnexpectedEnd
    );
}

#[test]
fn ids() {
    let id = |s: &str| {
        let f = format!(r#"{{"jsonrpc":"2.0","id":{s},"method":"m"}}"#);
        let e = run(f.as_bytes()).unwrap();
        (
            e.shape(),
            e.invalid_reason().map(|r| r.kind()),
            e.id().map(|i| format!("{i:?}")),
            e.id_raw().map(str::to_owned),
        )
    };
    assert_eq!(id("1").0, Shape::Request);
    assert_eq!(id("0").2.unwrap(), r#"Int { value: 0, raw: "0" }"#);
    // `-0` is a float to serde_json (-0.0): rejected as an id form (fuzz finding F1).
    assert_eq!(id("-0").0, Shape::Invalid);
    assert_eq!(id("-0").1, Some(mcpwire::ErrorKind::InvalidId));
    assert_eq!(id("9007199254740991").0, Shape::Request);
    assert_eq!(id("-9007199254740991").0, Shape::Request);
    for bad in [
        "9007199254740992",
        "-9007199254740992",
        "18446744073709551616",
        "1.0",
        "1e2",
        "1E2",
        "true",
        "{}",
        "[]",
        "null",
    ] {
        let (s, why, i, raw) = id(bad);
        assert_eq!(
            (s, why),
            (Shape::Invalid, Some(ErrorKind::InvalidId)),
            "{bad}"
        );
        assert_eq!(raw.as_deref(), Some(bad));
        if bad != "null" {
            assert_eq!(i, None);
        }
    }
    assert_eq!(id(r#""1""#).0, Shape::Request);
    // Absent vs null.
    assert_eq!(
        ok(br#"{"jsonrpc":"2.0","method":"m"}"#).shape(),
        Shape::Notification
    );
    let e = ok(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#);
    assert_eq!((e.shape(), e.id()), (Shape::Error, Some(Id::Null)));
    assert_eq!(e.error_code(), Some(-32700));
    assert_eq!(
        ok(br#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}"#).shape(),
        Shape::Error
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":null,"result":{}}"#),
        ErrorKind::InvalidId
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","result":{}}"#),
        ErrorKind::MissingId
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1.5,"error":{"code":1,"message":"x"}}"#),
        ErrorKind::InvalidId
    );
}

#[test]
fn shapes() {
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#),
        ErrorKind::ResultAndError
    );
    assert_eq!(invalid(br#"{"jsonrpc":"2.0","id":1}"#), ErrorKind::NoShape);
    assert_eq!(
        invalid(br#"{"id":1,"method":"m"}"#),
        ErrorKind::JsonrpcMissing
    );
    for v in [r#""2.0 ""#, r#""1.0""#, "2.0", r#""2""#, "null"] {
        let f = format!(r#"{{"jsonrpc":{v},"id":1,"method":"m"}}"#);
        assert_eq!(invalid(f.as_bytes()), ErrorKind::JsonrpcVersion, "{v}");
    }
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"method":7}"#),
        ErrorKind::MethodNotString
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#),
        ErrorKind::ParamsNotObject
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#),
        ErrorKind::MethodWithResponse
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"result":[]}"#),
        ErrorKind::ResultNotObject
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}"#),
        ErrorKind::InvalidErrorObject
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#),
        ErrorKind::InvalidErrorObject
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"error":"x"}"#),
        ErrorKind::InvalidErrorObject
    );
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":1}}"#),
        ErrorKind::MetaNotObject
    );
    // Spec trial, session 22: -32602 for the request's `params._meta` (it was -32600, while a
    // missing `_meta` field is -32602); a result's is its own kind.
    assert_eq!(ErrorKind::MetaNotObject.code(), -32602);
    assert_eq!(
        invalid(br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":[]}}"#),
        ErrorKind::ResultMetaNotObject
    );
    assert_eq!(ErrorKind::ResultMetaNotObject.code(), -32600);
    // Spec trial, session 22: `invalid-error-object` points at the wrong member (it pointed
    // at the `error` object); at the object when the member is missing or it is no object.
    for (f, at) in [
        (
            &br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#[..],
            40,
        ),
        (
            br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":5}}"#,
            57,
        ),
        (
            br#"{"jsonrpc":"2.0","id":2,"error":{"message":5,"code":1.5}}"#,
            52,
        ),
        (br#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#, 32),
        (br#"{"jsonrpc":"2.0","id":1,"error":"x"}"#, 32),
    ] {
        let e = ok(f);
        let r = e.invalid_reason().unwrap();
        assert_eq!(
            (r.kind(), r.offset()),
            (ErrorKind::InvalidErrorObject, at),
            "{}",
            String::from_utf8_lossy(f)
        );
    }
    assert_eq!(invalid(br#""just a string""#), ErrorKind::NotAnObject);
    let e = ok(br#"[]"#);
    assert_eq!(
        (e.shape(), e.invalid_reason().unwrap().kind()),
        (Shape::Batch, ErrorKind::EmptyBatch)
    );
    let f = br#" [ {"jsonrpc":"2.0","method":"a"} , {"jsonrpc":"2.0","id":2,"method":"b"} ] "#;
    let e = ok(f);
    assert_eq!(
        (e.shape(), e.invalid_reason().unwrap().kind()),
        (Shape::Batch, ErrorKind::Batch)
    );
    let els: Vec<_> = e
        .batch_elements()
        .unwrap()
        .map(|s| parse(s.slice(f)).unwrap().shape())
        .collect();
    assert_eq!(els, [Shape::Notification, Shape::Request]);
}

#[test]
fn accessors_and_meta_members() {
    let f = br#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"get\u0041","uri":"file:///x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","pr\u006fgressToken":7,"x":{"y":[1,2]}},"arguments":{}}}"#;
    let e = ok(f);
    assert_eq!(e.shape(), Shape::Request);
    assert_eq!(e.params_name().unwrap().decode(), "getA");
    assert_eq!(e.params_uri().unwrap().decode(), "file:///x");
    let m: Vec<_> = e
        .meta()
        .unwrap()
        .map(|m| {
            (
                m.key.into_owned(),
                String::from_utf8(m.value.slice(f).to_vec()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        m,
        [
            (
                "io.modelcontextprotocol/protocolVersion".to_owned(),
                "\"2026-07-28\"".to_owned()
            ),
            ("progressToken".to_owned(), "7".to_owned()),
            ("x".to_owned(), r#"{"y":[1,2]}"#.to_owned()),
        ]
    );
    match e.id().unwrap() {
        Id::Str(s) => assert_eq!(s.decode(), "a\"b"),
        other => panic!("{other:?}"),
    }
    assert_eq!(e.id_raw(), Some(r#""a\"b""#));
    let mut scratch = Vec::new();
    let v = e.params_value(&mut scratch).unwrap().unwrap();
    use simd_json::prelude::*;
    assert_eq!(v.get("name").and_then(|n| n.as_str()), Some("getA"));
    let owned =
        mcpwire::OwnedEnvelope::parse(&Parser::new(), bytes::Bytes::from_static(f)).unwrap();
    assert_eq!(owned.envelope().method().unwrap().raw(), "tools/call");
    let r = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","_meta":{"a":1},"content":[]}}"#;
    let e = ok(r);
    assert_eq!(e.shape(), Shape::Result);
    assert_eq!(e.result_type().unwrap().raw(), "complete");
    assert_eq!(e.meta().unwrap().count(), 1);
    // `members` over any object of the validated frame: params' own members.
    let e = ok(f);
    let keys: Vec<_> = mcpwire::members(f, e.params_span().unwrap())
        .map(|m| m.key.into_owned())
        .collect();
    assert_eq!(keys, ["name", "uri", "_meta", "arguments"]);
    assert_eq!(
        mcpwire::members(f, e.method_span().unwrap()).count(),
        0,
        "not an object"
    );
}

#[test]
fn error_kind_names_are_stable_kebab_case() {
    let mut names = std::collections::HashSet::new();
    for k in ErrorKind::ALL {
        assert!(names.insert(k.name()), "duplicate name {}", k.name());
        assert!(
            k.name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-' || b.is_ascii_digit())
        );
        assert!(matches!(k.code(), -32700 | -32600 | -32602 | -32603));
    }
    let e = mcpwire::Error::new(ErrorKind::DuplicateKey, 3);
    assert_eq!(
        e.to_string(),
        "duplicate envelope member at byte 3 (duplicate-key)"
    );
}

/// Trial finding (session 3): a duplicate key was reported as soon as it was met, so a
/// frame that is not JSON at all got -32600 `duplicate-key` instead of -32700. The walk now
/// reads the whole frame first; a duplicate is reported only for well-formed JSON.
#[test]
fn syntax_error_after_a_duplicate_key_is_parse_error() {
    let f = br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x",}"#;
    let e = run(f).unwrap_err();
    assert_eq!(
        (e.kind(), e.code(), e.offset()),
        (ErrorKind::UnexpectedByte, -32700, 44)
    );
    for f in [
        &br#"{"jsonrpc":"2.0","id":1,"method":"m","method":"n""#[..],
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"a":1,"a":2}},}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}} x"#,
    ] {
        assert_eq!(
            run(f).unwrap_err().code(),
            -32700,
            "{}",
            String::from_utf8_lossy(f)
        );
    }
    // Well-formed with a duplicate: still the duplicate, at the second key.
    let f = br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#;
    let e = run(f).unwrap_err();
    assert_eq!(
        (e.kind(), e.code(), e.offset()),
        (ErrorKind::DuplicateKey, -32600, 24)
    );
}

/// Trial finding (session 3): case-variant keys are flagged by the core for the envelope
/// and for the inspected members of `params` / `result` / `error` (the profile rejects them
/// under every revision: `tests/profile_corpus.rs`, `corpora/hostile/case-variants.jsonl`).
#[test]
fn case_variant_keys_are_recorded() {
    let key = |f: &[u8], s: Option<mcpwire::Span>| {
        s.map(|s| String::from_utf8_lossy(s.slice(f)).into_owned())
    };
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}"#;
    let e = ok(f);
    assert_eq!(key(f, e.case_variant_key()).as_deref(), Some("Method"));
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","Name":"secretTool"}}"#;
    let e = ok(f);
    assert_eq!(key(f, e.member_case_variant_key()).as_deref(), Some("Name"));
    assert_eq!(e.case_variant_key(), None);
    // Kelvin sign and long s fold; a key of another length or a plain other key does not.
    let f = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"result\u{17f}Type\":1}}";
    assert!(
        ok(f.as_bytes()).member_case_variant_key().is_none(),
        "long s is not in resultType"
    );
    let f = r#"{"jsonrpc":"2.0","id":1,"result":{"RESULTTYPE":"x","resultTypes":1}}"#;
    assert_eq!(
        key(f.as_bytes(), ok(f.as_bytes()).member_case_variant_key()).as_deref(),
        Some("RESULTTYPE")
    );
    let f = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\",\"\u{212a}\":1,\"Code\":2}}";
    assert_eq!(
        key(f.as_bytes(), ok(f.as_bytes()).member_case_variant_key()).as_deref(),
        Some("Code")
    );
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"names":1,"nam":2,"arguments":{"Name":1}}}"#;
    assert_eq!(ok(f).member_case_variant_key(), None);
}

/// Trial finding (session 3): numbers just below f64::MAX that serde_json (default features,
/// as used by Rust MCP backends) rejects as out of range were accepted, because the core
/// read them exactly rounded. A number is now out of range when either reading overflows;
/// this checks that rule against serde_json itself on the trial's inputs and on 4,000
/// generated tokens around f64::MAX (decimal, integer, exponent and negative forms).
#[test]
fn numbers_near_f64_max_are_out_of_range_when_serde_json_says_so() {
    let verdict = |num: &str| {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"a":{num}}}}}"#);
        let ours = match run(frame.as_bytes()) {
            Ok(_) => None,
            Err(e) => Some(e.kind()),
        };
        let serde_rejects = serde_json::from_str::<serde_json::Value>(&frame).is_err();
        let exact_inf = num.parse::<f64>().map_or(true, f64::is_infinite);
        (ours, serde_rejects, exact_inf)
    };
    let check = |num: &str| {
        let (ours, serde_rejects, exact_inf) = verdict(num);
        let want = (serde_rejects || exact_inf).then_some(ErrorKind::NumberOutOfRange);
        assert_eq!(
            ours, want,
            "{num}: serde_json rejects {serde_rejects}, exact overflow {exact_inf}"
        );
        serde_rejects
    };
    // The trial's examples.
    assert!(check("1.797693134862315807e308"));
    assert!(check(&format!("17976931348623158{}", "0".repeat(292))));
    // Values that both read as finite stay valid.
    assert!(!check("1.7976931348623157e308"));
    assert!(!check("1e308"));
    assert!(!check("-1.5e308"));
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut rejected, mut accepted) = (0, 0);
    for n in 0..4000 {
        let extra: String = (0..1 + next() % 12)
            .map(|_| char::from(b'0' + (next() % 10) as u8))
            .collect();
        let head = ["1.79769313486231", "1.7976931348623", "1.797693134862"][n % 3];
        let num = match n % 4 {
            0 => format!("{head}{extra}e308"),
            1 => format!("-{head}{extra}E+308"),
            // Integer form: the same digits without the point, padded to 309 digits.
            2 => {
                let digits = format!("{}{extra}", head.replace('.', ""));
                format!(
                    "{digits}{}",
                    "0".repeat(309usize.saturating_sub(digits.len()))
                )
            }
            // Shifted exponent form.
            _ => format!(
                "{}{extra}e{}",
                head.replace('.', ""),
                308 - (head.len() - 2)
            ),
        };
        if check(&num) {
            rejected += 1;
        } else {
            accepted += 1;
        }
    }
    // Both verdicts occur, so the comparison is not vacuous.
    assert!(
        rejected > 100 && accepted > 100,
        "{rejected} rejected, {accepted} accepted"
    );
}

/// Trial finding (session 3): `params_value` (simd-json) kept the first of two repeated
/// keys inside `params.arguments` while serde_json keeps the last, so a gateway authorising
/// on it could be smuggled past. A repeated key anywhere in `params` is now an error there:
/// `duplicate-params-key`, -32602, as the module docs say (hostile trial, session 12: it was
/// `duplicate-key`, -32600, "duplicate envelope member").
#[test]
fn params_value_rejects_repeated_keys_at_any_depth() {
    let f = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"/ok","path":"/etc/passwd"}}}"#;
    let e = ok(f); // the walk accepts it: `arguments` is not an inspected object
    let mut scratch = Vec::new();
    let err = e.params_value(&mut scratch).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset(), err.kind().code()),
        (ErrorKind::DuplicateParamsKey, 96, -32602)
    );
    assert_eq!(&f[96..102], br#""path""#);
    for (f, at) in [
        // Escaped spelling of the same key, deeper, inside an array.
        (&br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"k":1,"\u006b":2}]}}"#[..], Some(59)),
        // Same key in different objects, or a key-like string value: fine.
        (br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"k":1},"b":{"k":2},"c":["k","k"],"d":"k:"}}"#, None),
        (br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ "a" : { "x" : 1 , "x" : 2 } }}"#, Some(66)),
    ] {
        let e = ok(f);
        let got = e.params_value(&mut scratch).err().map(|e| e.offset());
        assert_eq!(got, at, "{}", String::from_utf8_lossy(f));
    }
}

/// Adversarial trial (session 3): Go's `encoding/json` also folds U+0131 (dotless ı) and
/// U+0130 (dotted İ) onto `i`, so `"ıd"` is `id` and `"urİ"` is `uri` to a Go backend.
#[test]
fn dotted_and_dotless_i_are_case_variants() {
    for f in [
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"\u{131}d\":2}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"\u{130}d\":2}",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","\u0131d":2}"#,
    ] {
        assert!(ok(f.as_bytes()).case_variant_key().is_some(), "{f}");
    }
    for f in [
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///ok\",\"ur\u{131}\":\"file:///etc/passwd\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///ok\",\"ur\u{130}\":\"file:///etc/passwd\"}}",
    ] {
        assert!(ok(f.as_bytes()).member_case_variant_key().is_some(), "{f}");
    }
}

/// The walk recognises compact envelope keys (`"jsonrpc":"2.0"`, `"id":`, `"method":`,
/// `"params":`, `"result":`, `"error":`) from a word compare instead of the key scan; every
/// other spelling of the same key takes the scan. Both must give the same spans and the same
/// duplicate verdicts, whichever comes first.
#[test]
fn compact_key_fast_paths_agree_with_the_key_scan() {
    // Compact and spaced spellings of one message record the same members.
    let compact = ok(br#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"name":"t"}}"#);
    let spaced =
        ok(br#"{ "jsonrpc" : "2.0" , "id" : 7 , "method" : "m" , "params" : { "name" : "t" } }"#);
    for e in [&compact, &spaced] {
        assert_eq!(e.shape(), Shape::Request);
        assert_eq!(e.jsonrpc().unwrap().raw(), "2.0");
        assert_eq!(e.id_raw(), Some("7"));
        assert_eq!(e.method().unwrap().raw(), "m");
        assert_eq!(e.params_name().unwrap().raw(), "t");
    }
    assert_eq!(compact.jsonrpc_span().unwrap().range(), 11..16);
    assert_eq!(compact.id_span().unwrap().range(), 22..23);
    // Duplicates: fast spelling twice, fast then escaped, escaped then fast.
    for (key, value) in [
        ("jsonrpc", r#""2.0""#),
        ("id", "1"),
        ("method", r#""m""#),
        ("params", "{}"),
        ("result", "{}"),
        ("error", r#"{"code":1,"message":"x"}"#),
    ] {
        let escaped = format!("\\u{:04x}{}", key.as_bytes()[0], &key[1..]);
        for (a, b) in [(key, key), (key, escaped.as_str()), (escaped.as_str(), key)] {
            let f = format!(r#"{{"{a}":{value},"{b}":{value}}}"#);
            let e = run(f.as_bytes()).unwrap_err();
            let second = 1 + a.len() + 3 + value.len() + 1;
            assert_eq!(
                (e.kind(), e.offset()),
                (ErrorKind::DuplicateKey, second),
                "{f}"
            );
        }
    }
    // `"jsonrpc":"2.0"` that is not followed by `,` or `}`, and near-miss keys.
    assert_eq!(kind(br#"{"jsonrpc":"2.0""}"#), ErrorKind::UnexpectedByte);
    assert_eq!(kind(br#"{"jsonrpc":"2.0"#), ErrorKind::UnexpectedEnd);
    let e = ok(br#"{"jsonrpc":"2.0x","idx":1,"methods":"m","params_":{},"error ":1,"id":2}"#);
    assert_eq!(e.shape(), Shape::Invalid);
    assert_eq!(e.jsonrpc().unwrap().raw(), "2.0x");
    assert_eq!(e.id_raw(), Some("2"));
    assert_eq!(
        (e.method_span(), e.params_span(), e.error_span()),
        (None, None, None)
    );
    // A key with fewer than 8 bytes left in the frame (no word to load) and a value that
    // ends the frame.
    assert_eq!(kind(br#"{"id":1,"id""#), ErrorKind::UnexpectedEnd);
    assert_eq!(ok(br#"{"x":1,"id":1}"#).id_raw(), Some("1"));
}

/// Plain-integer ids and `error.code` are read in one pass over their digits.
#[test]
fn integer_ids_one_pass() {
    let id = |s: &str| {
        let f = format!(r#"{{"jsonrpc":"2.0","id":{s},"method":"m"}}"#);
        let e = run(f.as_bytes()).unwrap();
        e.id().map(|i| format!("{i:?}"))
    };
    assert_eq!(id("0").unwrap(), r#"Int { value: 0, raw: "0" }"#);
    assert_eq!(id("-1").unwrap(), r#"Int { value: -1, raw: "-1" }"#);
    assert_eq!(id("10").unwrap(), r#"Int { value: 10, raw: "10" }"#);
    assert_eq!(id("-0"), None);
    assert_eq!(id("123456789012345678"), None); // 18 digits: beyond 2^53 - 1
    assert_eq!(
        id("-9007199254740991").unwrap(),
        r#"Int { value: -9007199254740991, raw: "-9007199254740991" }"#
    );
}

/// `_meta` keys under MCP's reserved prefix skip the scan of the prefix; what follows it is
/// still validated, and such keys still take part in the duplicate check.
#[test]
fn reserved_meta_prefix_keys_are_still_validated() {
    let meta = |members: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"_meta":{{{members}}}}}}}"#)
    };
    for ok_members in [
        r#""io.modelcontextprotocol/":1"#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#,
        r#""io.modelcontextprotocol/é":1"#,
        r#""io.modelcontextprotocol/\u0041":1,"io.modelcontextprotocol/B":2"#,
        r#""io.modelcontextprotocol/a-very-long-key-name-that-runs-well-past-sixty-four-bytes-of-text":{}"#,
    ] {
        let f = meta(ok_members);
        let e = ok(f.as_bytes());
        assert_eq!(e.shape(), Shape::Request, "{f}");
        assert!(e.params_meta_span().is_some());
    }
    // A control byte or a lone continuation byte after the prefix is still -32700.
    let mut f = meta(r#""io.modelcontextprotocol/X":1"#).into_bytes();
    let x = f.iter().position(|&b| b == b'X').unwrap();
    for bad in [0x01, 0x80, b'\n'] {
        f[x] = bad;
        let e = run(&f).unwrap_err();
        assert_eq!((e.code(), e.offset()), (-32700, x), "{bad:#x}");
    }
    // Duplicates, plain and escaped, in either order.
    for members in [
        r#""io.modelcontextprotocol/a":1,"io.modelcontextprotocol/a":2"#,
        r#""io.modelcontextprotocol/a":1,"io.modelcontextprotocol/\u0061":2"#,
        r#""io.modelcontextprotocol\/a":1,"io.modelcontextprotocol/a":2"#,
    ] {
        assert_eq!(
            kind(meta(members).as_bytes()),
            ErrorKind::DuplicateMetaKey,
            "{members}"
        );
    }
    // The prefix cut short by the end of the frame.
    assert_eq!(
        kind(
            br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/"#
        ),
        ErrorKind::UnexpectedEnd
    );
}

/// The AVX2 string walk settles a block of simple escapes in one step and skips plain blocks
/// whole; escape-dense strings must give the scalar walk's result (spans, or error kind and
/// offset) and the oracle's verdict with every escape form at every block offset: runs of
/// backslashes of every length before a quote (odd runs escape it, even runs end the
/// string), `\u` escapes and surrogate pairs across block edges, bad escapes, control bytes
/// and bad UTF-8 right after simple escapes, and escapes ending exactly at a block edge.
#[test]
fn escape_dense_strings_at_every_block_offset() {
    let contents: &[&[u8]] = &[
        br#"\\\"\n\t\/\b\f\r"#,
        br#"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\""#,
        br#"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"#,
        br#"a\"b\\c\\\"d\\\\e\\\\\"f\\\\\\g\\\\\\\"h"#,
        br#"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"#,
        br#"\n\u00e9\n\ud83d\ude00\n\u0000\"\u12ab\\"#,
        br#"\n\n\n\n\ud800\n"#,
        br#"\n\n\n\n\udc00"#,
        br#"\n\n\n\n\q\n"#,
        b"\\n\\n\\n\\n\x01\\n",
        b"\\n\\n\\t\\n\xc3\xa9\\n\xe4\xb8\xad\\\\",
        b"\\n\\n\\n\\n\xc3\\n",
        b"\\n\\n\\n\\n\xff\\n",
        br#"\n\n\n\n\"#,
        br#"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"#,
    ];
    let mut frames = 0;
    for content in contents {
        for pad in 0..80 {
            for reps in [1, 3] {
                let mut f = br#"{"jsonrpc":"2.0","method":"m","params":{"text":""#.to_vec();
                f.extend(std::iter::repeat_n(b'.', pad));
                for _ in 0..reps {
                    f.extend_from_slice(content);
                }
                f.extend_from_slice(br#"","n":1}}"#);
                // `run` checks the oracle (serde_json, simd-json) and that every backend
                // gives the scalar backend's spans or error.
                let _ = run(&f);
                frames += 1;
            }
        }
    }
    assert_eq!(frames, contents.len() * 80 * 2);
    // Spot checks of the verdicts themselves.
    let f = |s: &[u8]| {
        let mut f = br#"{"jsonrpc":"2.0","method":"m","params":{"text":""#.to_vec();
        f.extend(std::iter::repeat_n(b'.', 50));
        f.extend_from_slice(s);
        f.extend_from_slice(br#"","n":1}}"#);
        f
    };
    assert_eq!(ok(&f(br#"\\\"\n\t"#)).shape(), Shape::Notification);
    let at = |f: &[u8], needle: &[u8]| f.windows(needle.len()).position(|w| w == needle);
    let bad = f(br#"\n\n\n\n\q\n"#);
    let e = run(&bad).unwrap_err();
    assert_eq!(
        (e.kind(), Some(e.offset())),
        (ErrorKind::InvalidEscape, at(&bad, b"\\q"))
    );
    let lone = f(br#"\n\n\n\n\ud800\n"#);
    let e = run(&lone).unwrap_err();
    assert_eq!(
        (e.kind(), Some(e.offset())),
        (ErrorKind::LoneSurrogate, at(&lone, b"\\ud800"))
    );
    let ctl = f(b"\\n\\n\\n\\n\x01\\n");
    let e = run(&ctl).unwrap_err();
    assert_eq!(
        (e.kind(), Some(e.offset())),
        (ErrorKind::ControlCharacter, at(&ctl, b"\x01"))
    );
}

/// Session-15 trial: `params_value` read the number `-0` as the integer 0 where serde_json
/// reads the float -0.0. Each number form, at depth 1 and nested, decodes as serde_json's
/// integer reading or as the correctly rounded float (Rust's `f64` parse); strings that
/// contain `-0` stay as written.
#[test]
fn params_value_numbers_read_as_serde_json_does() {
    use simd_json::prelude::*;
    for text in [
        "0",
        "-0",
        "1",
        "-1",
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5",
        "-0.0",
        "-0e0",
        "-0E+1",
        "0e0",
        "2.2250738585072011e-308",
        "2.4703282292062328e-324",
        "1.00000000000000011102230246251565404236316680908203125",
        "89255.0e-22",
        // An exponent `-0` is no number `-0` (re-trial, session 16: `1e-0` failed to decode).
        "1e-0",
        "1E-0",
        "-0e-0",
        "1.5e-0",
        "0.0e-0",
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"m","params":{{"a":{text},"b":[ {text} ,{{"c":{text}}}],"s":"{text}","t":"x\"-0","u":"2025-06-18","v":"-0"}}}}"#
        );
        let env = Parser::new().parse(frame.as_bytes()).unwrap();
        let mut scratch = Vec::new();
        let v = env.params_value(&mut scratch).unwrap().unwrap();
        let serde: serde_json::Value = serde_json::from_str(text).unwrap();
        for got in [
            v.get("a").unwrap(),
            v.get("b").unwrap().get_idx(0).unwrap(),
            v.get("b").unwrap().get_idx(1).unwrap().get("c").unwrap(),
        ] {
            if serde.is_f64() {
                let want = text.parse::<f64>().unwrap();
                assert_eq!(
                    got.as_f64().map(f64::to_bits),
                    Some(want.to_bits()),
                    "{text}: {got:?}"
                );
                assert!(got.is_f64(), "{text} is a float to serde_json: {got:?}");
            } else {
                assert!(!got.is_f64(), "{text} is an integer to serde_json: {got:?}");
                assert_eq!(got.as_i64(), serde.as_i64(), "{text}");
                assert_eq!(got.as_u64(), serde.as_u64(), "{text}");
            }
        }
        assert_eq!(v.get("s").and_then(|s| s.as_str()), Some(text));
        assert_eq!(v.get("t").and_then(|s| s.as_str()), Some("x\"-0"));
        assert_eq!(v.get("u").and_then(|s| s.as_str()), Some("2025-06-18"));
        assert_eq!(v.get("v").and_then(|s| s.as_str()), Some("-0"));
    }
}

/// `Envelope::jsonrpc` answers a plain `"2.0"` from a 5-byte compare and every other value
/// from the text check: both must read the frame's own bytes, including spans paired with
/// another frame (`Envelope::from_parts`).
#[test]
fn jsonrpc_accessor_fast_path_reads_the_frame_bytes() {
    let frame: &[u8] = br#"{"jsonrpc":"2.0","method":"m"}"#;
    let plain = ok(frame);
    let s = plain.jsonrpc().unwrap();
    assert_eq!(
        (s.raw(), s.has_escapes(), &*s.decode()),
        ("2.0", false, "2.0")
    );
    // Zero-copy: the text is the frame's own bytes, at the value's offset.
    assert_eq!(s.raw().as_ptr(), frame[12..].as_ptr());
    let escaped = ok(br#"{"jsonrpc":"2\u002e0","method":"m"}"#);
    let s = escaped.jsonrpc().unwrap();
    assert_eq!(
        (s.raw(), s.has_escapes(), &*s.decode()),
        ("2\\u002e0", true, "2.0")
    );
    assert_eq!(escaped.shape(), Shape::Notification);
    // The same spans on a frame holding other bytes there: those bytes, never "2.0".
    let other: &[u8] = br#"{"jsonrpc":"2.1","method":"m"}"#;
    let paired = Envelope::from_parts(other, plain.spans());
    assert_eq!(paired.jsonrpc().unwrap().raw(), "2.1");
    // Five bytes with `2.0` inside that are not the string "2.0": a number, an array, and
    // (paired) bytes that are no token at all. The old accessor read the first two as
    // `None` and the third too; a fast path comparing only the middle read them as "2.0".
    for f in [
        &br#"{"jsonrpc":12.05,"method":"m"}"#[..],
        br#"{"jsonrpc":[2.0],"method":"m"}"#,
    ] {
        let e = ok(f);
        assert_eq!(e.jsonrpc_span().map(|s| s.len()), Some(5));
        assert!(e.jsonrpc().is_none(), "{}", String::from_utf8_lossy(f));
        assert_eq!(e.shape(), Shape::Invalid);
    }
    let not_a_token: &[u8] = br#"{"jsonrpc":x2.0y,"method":"m"}"#;
    assert!(
        Envelope::from_parts(not_a_token, plain.spans())
            .jsonrpc()
            .is_none()
    );
    let short: &[u8] = br#"{"jsonrpc":"#;
    assert!(
        Envelope::from_parts(short, plain.spans())
            .jsonrpc()
            .is_none()
    );
}
