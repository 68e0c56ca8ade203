//! `Envelope::from_parts` with spans recorded on another frame: a caller's mistake, but the
//! API is safe, so every accessor, the batch and member iterators and the profile layer
//! must answer (garbage in, garbage out) without panicking and without looping.
//!
//! Regressions from the session-15 hostile trial: `batch_elements()` returned an empty span
//! forever on `[}`, and `case_variant_key()` handed out a span past the frame's end that
//! `Validator::check` then sliced.

use mcpwire::profile::{Direction, Profile, Session, Validator};
use mcpwire::{Envelope, Parser, Spans};

/// Frames of every shape, with the members the walk and the profile inspect.
const FRAMES: &[&str] = &[
    r#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#,
    r#"{"jsonrpc":"2.0","method":"m","ID":-1}"#,
    r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
    r#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"get","arguments":{"path":"/x","n":[1,2,{"k":"v"}]},"_meta":{"progressToken":"p","io.x/y":{"a":[]}}}}"#,
    r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],"_meta":{"k":1}}}"#,
    r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad \u0041rgs","data":{"x":null}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"total":1,"Progress":2}}"#,
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a","Uri":"file:///b","Name":"n"}}"#,
    r#"{"jsonrpc":"2.0","Method":"x","method":"notifications/message","params":{"level":"info","data":"\ud83d\ude00"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}"#,
    r#"[1,[2],{"a":"b"},"s",null,true]"#,
    r#"[]"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
];

/// Bytes a hostile frame of the same length is built from.
const ALPHABET: &[u8] = b"[]{}\",:\\ 0-1aen.u\x7f\xc3\xa9";

/// Every accessor and iterator, and the profile layer under every profile and direction.
fn touch_everything(env: &Envelope<'_>) -> usize {
    let len = env.frame().len();
    let mut n = 0usize;
    for s in [
        env.jsonrpc_span(),
        env.id_span(),
        env.method_span(),
        env.params_span(),
        env.result_span(),
        env.error_span(),
        env.error_code_span(),
        env.error_message_span(),
        env.error_data_span(),
        env.result_type_span(),
        env.params_meta_span(),
        env.result_meta_span(),
        env.params_name_span(),
        env.params_uri_span(),
        env.case_variant_key(),
        env.member_case_variant_key(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(
            s.end() <= len,
            "span {s:?} past the end of a {len}-byte frame"
        );
        n += s.slice(env.frame()).len();
        n += mcpwire::members(env.frame(), s).take(len + 1).count();
    }
    n += env.id().is_some() as usize + env.id_raw().map_or(0, str::len);
    n += env.method().map_or(0, |m| m.decode().len());
    n += env.jsonrpc().map_or(0, |m| m.decode().len());
    n += env.error_message().map_or(0, |m| m.decode().len());
    n += env.result_type().map_or(0, |m| m.decode().len());
    n += env.params_name().map_or(0, |m| m.decode().len());
    n += env.params_uri().map_or(0, |m| m.decode().len());
    n += env.error_code().is_some() as usize;
    for m in [env.params_meta(), env.result_meta(), env.meta()]
        .into_iter()
        .flatten()
    {
        let k = m.take(len + 1).count();
        assert!(
            k <= len,
            "a _meta iterator yielded {k} members from {len} bytes"
        );
        n += k;
    }
    if let Some(elements) = env.batch_elements() {
        // Each element is at least one byte: more than `len` means it stopped moving.
        let k = elements.take(len + 1).count();
        assert!(
            k <= len,
            "batch_elements yielded {k} elements from {len} bytes"
        );
        n += k;
    }
    let mut scratch = Vec::new();
    n += env.params_value(&mut scratch).is_ok() as usize;
    let mut out = Vec::new();
    for &profile in Profile::ALL {
        for dir in [
            Direction::ClientToServer,
            Direction::ServerToClient,
            Direction::Unknown,
        ] {
            Validator::new(profile, dir).check(env, &mut out);
        }
        let mut session = Session::new(profile, 4);
        session.check(Direction::ClientToServer, env, &mut out);
        session.check(Direction::ServerToClient, env, &mut out);
    }
    n + out.len()
}

fn spans_of(frame: &[u8]) -> Spans {
    Parser::new()
        .parse(frame)
        .expect("test frame parses")
        .spans()
}

/// `other` cut or padded with spaces to `len` bytes.
fn fit(other: &[u8], len: usize) -> Vec<u8> {
    let mut v = other[..other.len().min(len)].to_vec();
    v.resize(len, b' ');
    v
}

fn run(frame: &[u8], spans: Spans) {
    let r = std::panic::catch_unwind(|| touch_everything(&Envelope::from_parts(frame, spans)));
    assert!(
        r.is_ok(),
        "panic with foreign spans on {:?}",
        String::from_utf8_lossy(frame)
    );
}

#[test]
fn trial_repro_batch_elements_on_a_foreign_frame_ends() {
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#;
    let spans = spans_of(batch);
    let other = fit(b"[}", batch.len());
    let env = Envelope::from_parts(&other, spans);
    assert_eq!(env.batch_elements().map(Iterator::count), Some(0));
    run(&other, spans);
}

#[test]
fn trial_repro_case_variant_key_past_the_end_is_absent() {
    let spans = spans_of(br#"{"jsonrpc":"2.0","method":"m","ID":-1}"#);
    let other = br##"{"jsonrpc":"2.0",""##;
    assert_eq!(other.len(), 18);
    let env = Envelope::from_parts(other, spans);
    assert_eq!(env.case_variant_key(), None);
    // On its own frame the span is there (the test above would pass vacuously otherwise).
    let own = br#"{"jsonrpc":"2.0","method":"m","ID":-1}"#;
    let span = Envelope::from_parts(own, spans).case_variant_key().unwrap();
    assert_eq!(span.slice(own), b"ID");
    run(other, spans);
}

#[test]
fn foreign_frames_of_every_length_never_panic_or_loop() {
    let frames: Vec<&[u8]> = FRAMES.iter().map(|f| f.as_bytes()).collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut cases = 0usize;
    for &own in &frames {
        let spans = spans_of(own);
        let len = own.len();
        // Another frame cut or padded to this length, and shorter frames (spans past the end).
        for &other in &frames {
            for cut in [len, len / 2, len.saturating_sub(1), 1, 0] {
                run(&fit(other, cut), spans);
                cases += 1;
            }
        }
        // The frame itself with one byte replaced, at every offset, by each alphabet byte.
        for i in 0..len {
            for &b in ALPHABET {
                let mut f = own.to_vec();
                f[i] = b;
                run(&f, spans);
                cases += 1;
            }
        }
        // Random bytes of the alphabet, same length.
        for _ in 0..200 {
            let f: Vec<u8> = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            run(&f, spans);
            cases += 1;
        }
    }
    assert!(cases > 10_000, "only {cases} cases ran");
}

/// The envelope `Parser::parse` returns slices its string members from the accepted frame's
/// text and takes their escape flag from the walk; `from_parts` on the same frame reads both
/// from the bytes. Both must give the same `JsonStr` (text and flag) for escaped and plain
/// members, ASCII and not (session 29).
#[test]
fn string_members_from_the_walk_equal_those_read_from_the_bytes() {
    let frames: &[&str] = &[
        r#"{"jsonrpc":"2\u002e0","id":"a\"b","method":"tools/\u0063all","params":{"name":"n\\t","uri":"é\u00e9"}}"#,
        r#"{"jsonrpc":"2.0","id":"plain","method":"tools/call","params":{"name":"東京","uri":"file:///x"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"compl\u0065te"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"line\nbreak é"}}"#,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"plain"}}"#,
    ];
    for f in frames {
        let env = Parser::new().parse(f.as_bytes()).expect(f);
        let bare = Envelope::from_parts(f.as_bytes(), env.spans());
        let pairs = [
            (env.jsonrpc(), bare.jsonrpc()),
            (env.method(), bare.method()),
            (env.result_type(), bare.result_type()),
            (env.error_message(), bare.error_message()),
            (env.params_name(), bare.params_name()),
            (env.params_uri(), bare.params_uri()),
        ];
        for (ours, again) in pairs {
            assert_eq!(ours, again, "{f}");
        }
        assert_eq!(env.id(), bare.id(), "{f}");
        assert_eq!(env.id_raw(), bare.id_raw(), "{f}");
    }
    // The flags themselves, on the first frame: every member there but `uri` is escaped.
    let env = Parser::new().parse(frames[0].as_bytes()).unwrap();
    assert!(env.jsonrpc().unwrap().has_escapes());
    assert_eq!(env.method().unwrap().decode(), "tools/call");
    assert!(env.params_name().unwrap().has_escapes());
    assert!(env.params_uri().unwrap().has_escapes());
    let env = Parser::new().parse(frames[1].as_bytes()).unwrap();
    assert!(!env.method().unwrap().has_escapes());
    assert_eq!(env.params_name().unwrap().raw(), "東京");
}
