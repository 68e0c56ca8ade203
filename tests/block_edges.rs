//! Block-edge invariance: every input is re-run with 0..=64 bytes of leading whitespace (so
//! each byte crosses the 64-byte block edges at every offset) and with trailing whitespace;
//! every scan backend must give the same verdict, with every span and error offset moved by
//! exactly the padding.

mod common;

use mcpwire::{Backend, Envelope, Error, Parser};

type Summary = (
    Option<&'static str>,
    Option<(&'static str, usize)>,
    Vec<Option<(usize, usize)>>,
    Option<String>,
);

fn summary(r: &Result<Envelope<'_>, Error>, pad: usize) -> Summary {
    match r {
        // `empty` is at 0 and `unexpected-end` at the frame length whatever the padding.
        Err(e) if matches!(e.kind().name(), "empty" | "unexpected-end") => {
            (None, Some((e.kind().name(), 0)), Vec::new(), None)
        }
        Err(e) => (
            None,
            Some((e.kind().name(), e.offset() - pad)),
            Vec::new(),
            None,
        ),
        Ok(e) => {
            let spans = [
                e.jsonrpc_span(),
                e.id_span(),
                e.method_span(),
                e.params_span(),
                e.result_span(),
                e.error_span(),
                e.error_code_span(),
                e.error_message_span(),
                e.error_data_span(),
                e.result_type_span(),
                e.params_meta_span(),
                e.result_meta_span(),
                e.params_name_span(),
                e.params_uri_span(),
                e.case_variant_key(),
            ];
            let rel = spans
                .iter()
                .map(|s| s.map(|s| (s.start() - pad, s.end() - pad)))
                .collect();
            let meta: Option<String> = e.meta().map(|m| {
                m.map(|m| format!("{}={:?};", m.key, m.value.start() - pad))
                    .collect()
            });
            (
                Some(e.shape().name()),
                e.invalid_reason()
                    .map(|r| (r.kind().name(), r.offset() - pad)),
                rel,
                meta,
            )
        }
    }
}

fn check(origin: &str, frame: &[u8]) {
    let base = summary(&Parser::new().with_backend(Backend::Scalar).parse(frame), 0);
    let mut buf = Vec::with_capacity(frame.len() + 130);
    // Padding changes the meaning of a truncated frame (a space after a cut escape) and of
    // a leading BOM (then not at the start): those get no padding on that side.
    let trails: &[usize] = if base.1.is_some_and(|(k, _)| k == "unexpected-end") {
        &[0]
    } else {
        &[0, 1, 63]
    };
    let pads = if frame.starts_with(b"\xef\xbb\xbf") {
        0..=0
    } else {
        0..=64
    };
    for pad in pads {
        for &trail in trails {
            buf.clear();
            buf.resize(pad, b' ');
            buf.extend_from_slice(frame);
            buf.resize(buf.len() + trail, b' ');
            for b in Backend::available() {
                let got = summary(&Parser::new().with_backend(b).parse(&buf), pad);
                if got != base {
                    panic!(
                        "{origin}: pad {pad} trail {trail} backend {}: {got:?} vs {base:?}",
                        b.name()
                    );
                }
            }
        }
    }
}

#[test]
fn json_test_suite_at_every_block_offset() {
    let Some(base) = common::shared_dir() else {
        println!("skipped: ../shared not found");
        return;
    };
    let dir = base.join("ext/JSONTestSuite/test_parsing");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        if bytes.len() < 20_000 {
            check(&p.display().to_string(), &bytes);
            n += 1;
        }
    }
    assert!(n > 300);
}

#[test]
fn corpus_at_every_block_offset() {
    let frames = common::corpus_frames();
    if frames.is_empty() {
        println!("skipped: ../shared not found");
        return;
    }
    let mut big = 0;
    for (origin, f) in &frames {
        // Every small frame; a sample of the large ones (the debug build is slow).
        if f.len() <= 1024 || (f.len() > 50_000 && big < 1) {
            big += usize::from(f.len() > 50_000);
            check(origin, f);
        }
    }
}

#[test]
fn hostile_strings_at_every_block_offset() {
    let long = "é".repeat(70);
    let cases: Vec<Vec<u8>> = vec![
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{long}\"\\\/\u00e9\ud83d\ude00"}}"#)
            .into_bytes(),
        format!(
            r#"{{"x":"{}\\","method":"m","jsonrpc":"2.0"}}"#,
            "a".repeat(63)
        )
        .into_bytes(),
        format!("{{\"x\":\"{}\x01\"}}", "a".repeat(64)).into_bytes(),
        format!("{{\"x\":\"{}\u{7f}\u{80}\"}}", "a".repeat(62)).into_bytes(),
        [b"{\"x\":\"".as_slice(), &[b'a'; 61], b"\xe2\x82\"}"].concat(),
        [b"{\"x\":\"".as_slice(), &[b'a'; 62], b"\xf0\x9f\x98\x80\"}"].concat(),
        [b"{\"x\":\"".as_slice(), &[b'a'; 100], b"\xed\xa0\x80\"}"].concat(),
        format!(r#"{{"x":"{}\ud800"}}"#, "b".repeat(60)).into_bytes(),
        format!(r#"{{"x":"{}"#, "c".repeat(130)).into_bytes(),
        format!(r#"{{"x":"{}\u00"#, "c".repeat(58)).into_bytes(),
    ];
    for c in &cases {
        check(&String::from_utf8_lossy(c), c);
        // And with the special byte at every position of a 64-byte run.
        for cut in 0..c.len().min(140) {
            check("prefix", &c[..cut]);
        }
    }
}
