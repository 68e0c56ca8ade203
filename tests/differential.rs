//! Differential tests: our verdict and every extracted field against serde_json and
//! simd-json (`mcpwire::oracle::envelope::check_frame`), over every message in
//! ../shared/spec-examples and ../shared/captures and over generated MCP-shaped messages.

mod common;

use mcpwire::oracle::envelope::check_frame;
use mcpwire::{Shape, parse};
use proptest::prelude::*;

#[test]
fn corpus_agrees_with_serde_json_and_simd_json() {
    let frames = common::corpus_frames();
    if frames.is_empty() {
        println!("skipped: ../shared not found");
        return;
    }
    let mut failures = Vec::new();
    let mut shapes = std::collections::BTreeMap::new();
    for (origin, frame) in &frames {
        if let Err(d) = check_frame(frame) {
            failures.push(format!("{origin}: {d}"));
        }
        let s = parse(frame).map(|e| e.shape().name()).unwrap_or("error");
        *shapes.entry(s).or_insert(0usize) += 1;
    }
    println!("{} frames: {shapes:?}", frames.len());
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // The captures are real SDK traffic: the bulk must be valid envelopes.
    let valid: usize = ["request", "notification", "result", "error"]
        .iter()
        .map(|s| shapes.get(s).copied().unwrap_or(0))
        .sum();
    assert!(valid > 1000, "only {valid} valid envelopes in the corpus");
}

// ---------------------------------------------------------------------------------------
// Generator of MCP-shaped JSON text (raw text, so escapes, spacing and member order vary).

fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => Just(""), 1 => Just(" "), 1 => Just("\n  "), 1 => Just("\t"), 1 => Just("\r\n")]
}

/// One piece of string content, as JSON text.
fn str_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-zA-Z0-9 /_.:-]{0,12}",
        2 => "[\\u{80}-\\u{7ff}\\u{800}-\\u{ffff}\\u{10000}-\\u{10ffff}]{1,3}",
        1 => prop_oneof![Just("\\n"), Just("\\\""), Just("\\\\"), Just("\\/"), Just("\\t"), Just("\\b"), Just("\\f"), Just("\\r"), Just("\\u0000")].prop_map(str::to_owned),
        1 => (0x20u32..0xd7ff).prop_map(|c| format!("\\u{c:04x}")),
        1 => (0xe000u32..0xffff).prop_map(|c| format!("\\u{c:04X}")),
        1 => (0x10000u32..0x10ffff).prop_map(|c| {
            let c = c - 0x10000;
            format!("\\u{:04x}\\u{:04x}", 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff))
        }),
    ]
}

fn json_string() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => prop::collection::vec(str_piece(), 0..5).prop_map(|p| format!("\"{}\"", p.concat())),
        1 => (1000usize..70_000).prop_map(|n| format!("\"{}\"", "QUJD".repeat(n / 4))),
    ]
}

fn json_number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("9007199254740991".to_owned()),
        Just("-9007199254740992".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("1.5e300".to_owned()),
        Just("2E-400".to_owned()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        (any::<u16>(), any::<u16>()).prop_map(|(a, b)| format!("{a}.{b:03}")),
    ]
}

fn json_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => json_string(),
        3 => json_number(),
        1 => prop_oneof![Just("true"), Just("false"), Just("null")].prop_map(str::to_owned),
    ]
}

fn key_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => json_string().prop_filter("short", |s| s.len() < 100),
        1 => prop_oneof![Just("\"name\""), Just("\"uri\""), Just("\"_meta\""), Just("\"arguments\""), Just("\"method\""), Just("\"id\""), Just("\"n\\u0061me\"")].prop_map(str::to_owned),
    ]
}

fn json_value() -> impl Strategy<Value = String> {
    json_scalar().prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..6), ws())
                .prop_map(|(v, w)| format!("[{w}{}{w}]", v.join(","))),
            (prop::collection::vec((key_text(), inner), 0..6), ws()).prop_map(|(m, w)| {
                let body: Vec<String> = m
                    .into_iter()
                    .map(|(k, v)| format!("{w}{k}{w}:{w}{v}"))
                    .collect();
                format!("{{{}{w}}}", body.join(","))
            }),
        ]
    })
}

/// A JSON object from members (raw key text, raw value text).
fn object(members: Vec<(String, String)>, w: &str) -> String {
    let body: Vec<String> = members
        .into_iter()
        .map(|(k, v)| format!("{w}{k}{w}:{w}{v}"))
        .collect();
    format!("{{{}{w}}}", body.join(","))
}

fn meta() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (prop::collection::vec((prop_oneof![
            Just("\"io.modelcontextprotocol/protocolVersion\"".to_owned()),
            Just("\"progressToken\"".to_owned()),
            Just("\"io.modelcontextprotocol/clientCapabilities\"".to_owned()),
            key_text(),
        ], json_value()), 0..5), ws()).prop_map(|(m, w)| object(m, w)),
        1 => json_scalar(),
    ]
}

fn escaped_variant(name: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just(format!("\"{name}\"")),
        1 => Just(format!("\"\\u{:04x}{}\"", name.as_bytes()[0], &name[1..])),
        1 => Just(format!("\"{}\"", name.to_uppercase())),
    ]
}

fn inner_object(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    let k = keys.to_vec();
    (
        prop::collection::vec(
            (
                prop::sample::select(k).prop_flat_map(escaped_variant),
                prop_oneof![3 => json_value(), 1 => meta()],
            ),
            0..4,
        ),
        prop::collection::vec((key_text(), json_value()), 0..3),
        ws(),
    )
        .prop_map(|(mut a, b, w)| {
            a.extend(b);
            object(a, w)
        })
}

fn member(
    name: &'static str,
    value: impl Strategy<Value = String>,
    p: f64,
) -> impl Strategy<Value = Option<(String, String)>> {
    prop::option::weighted(p, (escaped_variant(name), value))
}

fn valid_error() -> impl Strategy<Value = String> {
    (
        any::<i32>(),
        json_string(),
        prop::option::of(json_value()),
        ws(),
    )
        .prop_map(|(c, m, d, w)| {
            let mut members = vec![
                ("\"code\"".to_owned(), c.to_string()),
                ("\"message\"".to_owned(), m),
            ];
            if let Some(d) = d {
                members.push(("\"data\"".to_owned(), d));
            }
            object(members, w)
        })
}

fn envelope() -> impl Strategy<Value = String> {
    (
        (
            member("jsonrpc", prop_oneof![8 => Just("\"2.0\"".to_owned()), 1 => Just("\"2\\u002e0\"".to_owned()), 1 => json_scalar()], 0.95),
            member("id", prop_oneof![4 => any::<i32>().prop_map(|n| n.to_string()), 2 => json_string().prop_filter("short", |s| s.len() < 200), 1 => json_number(), 1 => Just("null".to_owned())], 0.7),
            member("method", prop_oneof![4 => prop::sample::select(vec!["\"tools/call\"", "\"initialize\"", "\"notifications/progress\"", "\"tools\\/list\"", "\"ping\""]).prop_map(str::to_owned), 1 => json_value()], 0.5),
            member("params", prop_oneof![6 => inner_object(&["name", "uri", "_meta", "arguments"]), 1 => json_value()], 0.5),
            member("result", prop_oneof![6 => inner_object(&["resultType", "_meta", "content"]), 1 => json_value()], 0.3),
            member("error", prop_oneof![6 => valid_error(), 6 => inner_object(&["code", "message", "data"]), 1 => json_value()], 0.2),
        ),
        prop::collection::vec((key_text(), json_value()), 0..2),
        ws(),
    )
        .prop_flat_map(|((a, b, c, d, e, f), extra, w)| {
            let mut m: Vec<(String, String)> = [a, b, c, d, e, f].into_iter().flatten().collect();
            m.extend(extra);
            (Just(m).prop_shuffle(), Just(w))
        })
        .prop_map(|(m, w)| object(m, w))
}

/// Runs `cases` generated inputs through `check` on a thread with a large stack: the deeply
/// nested strategy types of the generator (not the parser, which is iterative) need more than
/// the default 2 MiB test-thread stack in debug builds.
fn run_generated<S>(make: fn() -> S, cases: u32, check: fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy + 'static,
    S::Value: std::fmt::Debug,
{
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
                cases,
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            if let Err(e) = runner.run(&make(), check) {
                panic!("{e}");
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn generated_envelopes_agree() {
    run_generated(envelope, 768, |frame| {
        check_frame(frame.as_bytes())
            .map_err(|d| TestCaseError::fail(format!("{d}\nframe: {frame}")))
    });
}

#[test]
fn generated_values_agree() {
    run_generated(json_value, 768, |frame| {
        check_frame(frame.as_bytes())
            .map_err(|d| TestCaseError::fail(format!("{d}\nframe: {frame}")))
    });
}

/// Truncating or corrupting one byte of a generated envelope never makes us more lenient
/// than serde_json.
#[test]
fn mutated_envelopes_agree() {
    let strat = || {
        (
            envelope(),
            any::<prop::sample::Index>(),
            any::<u8>(),
            any::<bool>(),
        )
    };
    run_generated(strat, 768, |(frame, at, byte, cut)| {
        let mut f = frame.into_bytes();
        let i = at.index(f.len());
        if cut {
            f.truncate(i)
        } else {
            f[i] = byte
        }
        check_frame(&f).map_err(|d| {
            TestCaseError::fail(format!("{d}\nframe: {:?}", String::from_utf8_lossy(&f)))
        })
    });
}

#[test]
fn generator_produces_every_shape() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(generator_shapes)
        .unwrap()
        .join()
        .unwrap();
}

fn generator_shapes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::HashSet::new();
    let strat = envelope();
    for _ in 0..500 {
        let f = strat.new_tree(&mut runner).unwrap().current();
        if let Ok(e) = parse(f.as_bytes()) {
            seen.insert(e.shape());
        }
    }
    for s in [
        Shape::Request,
        Shape::Notification,
        Shape::Result,
        Shape::Error,
        Shape::Invalid,
    ] {
        assert!(seen.contains(&s), "generator never produced {s:?}");
    }
}

/// The JSON-RPC 2.0 specification examples (../shared/ext/jsonrpc2-examples.jsonl): JSON
/// verdict, batch detection and the oracle.
#[test]
fn jsonrpc_spec_examples() {
    let Some(base) = common::shared_dir() else {
        println!("skipped: ../shared not found");
        return;
    };
    let text = std::fs::read_to_string(base.join("ext/jsonrpc2-examples.jsonl")).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["name"].as_str().unwrap();
        let req = v["request"].as_str().unwrap().as_bytes();
        check_frame(req).unwrap_or_else(|d| panic!("{name}: {d}"));
        let r = parse(req);
        assert_eq!(
            r.is_ok(),
            v["request_is_json"].as_bool().unwrap(),
            "{name}: {r:?}"
        );
        if let Err(e) = r {
            assert_eq!(e.code(), -32700, "{name}");
        }
        if let Ok(e) = r {
            assert_eq!(
                e.shape() == Shape::Batch,
                v["batch"].as_bool().unwrap(),
                "{name}"
            );
            if req.windows(9).any(|w| w == b"\"params\":")
                && e.params().is_some_and(|p| p[0] == b'[')
            {
                assert_eq!(
                    e.shape(),
                    Shape::Invalid,
                    "{name}: positional params are not MCP"
                );
            }
        }
        n += 1;
    }
    assert!(n >= 15, "{n} examples");
}
