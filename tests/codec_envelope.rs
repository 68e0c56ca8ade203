//! Codecs with envelope parsing: frames carry the parsed envelope or its error as an item (the
//! stream goes on); verdicts agree with serde_json on every capture frame.

mod framing_common;

use bytes::BytesMut;
use framing_common::*;
use futures::StreamExt;
use mcpwire::codec::{BodyCodec, FrameFault, NdjsonCodec, SseCodec};
use mcpwire::error::PARSE_ERROR;
use mcpwire::framing::FrameErrorKind;
use mcpwire::{Parser, Shape};
use tokio_util::codec::{Decoder, FramedRead};

fn drive<D: Decoder>(codec: &mut D, input: &[u8], reads: &[usize]) -> Vec<D::Item>
where
    D::Error: std::fmt::Debug,
{
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    let mut pos = 0;
    for &n in reads {
        buf.extend_from_slice(&input[pos..pos + n]);
        pos += n;
        while let Some(item) = codec.decode(&mut buf).unwrap() {
            out.push(item);
        }
    }
    while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
        out.push(item);
    }
    out
}

#[test]
fn ndjson_codec_on_captures_agrees_with_serde_json() {
    let files = capture_files(".jsonl");
    if files.is_empty() {
        return;
    }
    let (mut ok, mut rejected) = (0, 0);
    for path in &files {
        let input = std::fs::read(path).unwrap();
        let reads = random_reads(input.len(), 4096, 7);
        for frame in drive(&mut NdjsonCodec::new(), &input, &reads) {
            let serde_ok = serde_json::from_slice::<serde_json::Value>(frame.bytes()).is_ok();
            match frame.envelope() {
                Ok(env) => {
                    assert!(
                        serde_ok,
                        "{path:?} line {}: we accept, serde_json rejects",
                        frame.line()
                    );
                    assert_ne!(
                        env.envelope().shape(),
                        Shape::Invalid,
                        "{path:?} line {}",
                        frame.line()
                    );
                    assert_eq!(env.bytes(), frame.bytes());
                    ok += 1;
                }
                Err(FrameFault::Envelope(e)) => {
                    assert!(
                        !serde_ok,
                        "{path:?} line {}: we reject ({e}), serde_json accepts",
                        frame.line()
                    );
                    rejected += 1;
                }
                Err(f) => panic!("{path:?}: {f}"),
            }
        }
    }
    println!("{ok} accepted, {rejected} rejected (lone surrogate escapes)");
    assert!(ok > 1000);
}

#[tokio::test]
async fn malformed_json_line_is_an_item_and_the_stream_goes_on() {
    let input: &[u8] =
        b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n{\"jsonrpc\":\"2.0\",\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    let mut stream = FramedRead::new(input, NdjsonCodec::new());
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item.unwrap());
    }
    assert_eq!(items.len(), 3);
    assert!(items[0].envelope().is_ok());
    match items[1].envelope() {
        Err(FrameFault::Envelope(e)) => {
            assert_eq!(e.code(), PARSE_ERROR);
            assert_eq!(items[1].offset(), 41);
            assert_eq!(items[1].line(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        items[2].envelope().unwrap().envelope().shape(),
        Shape::Result
    );
}

#[test]
fn oversize_and_unterminated_lines_carry_framing_faults() {
    let input =
        b"{\"jsonrpc\":\"2.0\",\"method\":\"a-very-long-method-name-indeed\"}\n{\"jsonrpc\"";
    let items = drive(
        &mut NdjsonCodec::with_parser(32, Parser::new()),
        input,
        &[input.len()],
    );
    assert_eq!(items.len(), 2);
    match items[0].envelope() {
        Err(FrameFault::Framing(e)) => assert_eq!(e.kind(), FrameErrorKind::FrameTooLarge),
        other => panic!("{other:?}"),
    }
    match items[1].envelope() {
        Err(FrameFault::Framing(e)) => assert_eq!(e.kind(), FrameErrorKind::UnterminatedLine),
        other => panic!("{other:?}"),
    }
    assert_eq!(&items[1].bytes()[..], b"{\"jsonrpc\"");
}

/// Only `message` events carry JSON-RPC: the 2024-11-05 HTTP+SSE transport opens with an
/// `endpoint` event whose data is a URI; it must not come back as a parse error (found by a
/// new-user trial: it gave `unexpected-byte`, -32700). An empty `event:` value is a message
/// event (WHATWG); event types are compared exactly (`Message` is another type).
#[test]
fn sse_codec_does_not_parse_other_event_types() {
    let input = b"event: endpoint\ndata: /messages?session_id=abc\n\n\
event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\
event:\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n\
event: Message\ndata: not json\n\n\
data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
    for reads in [vec![input.len()], vec![1; input.len()]] {
        let items = drive(&mut SseCodec::new(), input, &reads);
        assert_eq!(items.len(), 5);
        let (endpoint, upper) = (&items[0], &items[3]);
        assert_eq!(endpoint.event().map(|e| &e[..]), Some(&b"endpoint"[..]));
        assert_eq!(&endpoint.data()[..], b"/messages?session_id=abc");
        for ev in [endpoint, upper] {
            assert!(!ev.is_message());
            assert!(ev.envelope().is_none());
        }
        for (i, id) in [(1, "1"), (2, "2"), (4, "3")] {
            let ev = &items[i];
            assert!(ev.is_message(), "item {i}");
            let env = ev.envelope().unwrap().unwrap().envelope();
            assert_eq!(env.shape(), Shape::Result);
            assert_eq!(env.id_raw(), Some(id));
        }
    }
}

#[test]
fn sse_codec_parses_message_events_only() {
    let files = capture_files(".sse");
    if files.is_empty() {
        return;
    }
    let mut messages = 0;
    for path in &files {
        let input = std::fs::read(path).unwrap();
        for ev in drive(
            &mut SseCodec::new(),
            &input,
            &random_reads(input.len(), 512, 3),
        ) {
            match ev.envelope() {
                None => assert!(!ev.is_message(), "{path:?}"),
                Some(r) => {
                    let serde_ok = serde_json::from_slice::<serde_json::Value>(ev.data()).is_ok();
                    assert_eq!(r.is_ok(), serde_ok, "{path:?} line {}", ev.line());
                    messages += 1;
                }
            }
        }
    }
    assert!(messages > 250);
}

#[test]
fn body_codec_parses_capture_bodies() {
    let Some(shared) = shared_dir() else { return };
    let mut n = 0;
    for dir in std::fs::read_dir(shared.join("captures")).unwrap() {
        let Ok(requests) = std::fs::read_to_string(dir.unwrap().path().join("requests.jsonl"))
        else {
            continue;
        };
        for line in requests.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let Some(body) = v["body"].as_str().filter(|b| !b.is_empty()) else {
                continue;
            };
            let items = drive(
                &mut BodyCodec::new(),
                body.as_bytes(),
                &random_reads(body.len(), 64, 1),
            );
            assert_eq!(items.len(), 1);
            let serde_ok = serde_json::from_str::<serde_json::Value>(body).is_ok();
            assert_eq!(items[0].envelope().is_ok(), serde_ok, "{body}");
            n += 1;
        }
    }
    assert!(n > 100);
}

/// `OwnedEnvelope::id_bytes`: the id's exact text as a zero-copy slice of the frame (new-user
/// trial: an owned id needed a copy or span arithmetic).
#[test]
fn owned_envelope_id_bytes_is_the_raw_id_zero_copy() {
    use bytes::Bytes;
    use mcpwire::OwnedEnvelope;
    for (frame, want) in [
        (
            &br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#[..],
            Some(&b"7"[..]),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#,
            Some(br#""a\u0062""#),
        ),
        (br#"{"jsonrpc":"2.0","id":-0,"result":{}}"#, Some(b"-0")),
        (br#"{"jsonrpc":"2.0","method":"notifications/x"}"#, None),
    ] {
        let bytes = Bytes::copy_from_slice(frame);
        let owned = OwnedEnvelope::parse(&Parser::new(), bytes.clone()).unwrap();
        let id = owned.id_bytes();
        assert_eq!(id.as_deref(), want, "{}", String::from_utf8_lossy(frame));
        if let Some(id) = id {
            let at = id.as_ptr() as usize - bytes.as_ptr() as usize;
            assert!(at + id.len() <= bytes.len(), "not a slice of the frame");
            assert_eq!(owned.envelope().id_raw().map(str::as_bytes), Some(&id[..]));
        }
    }
}

/// `OwnedEnvelope::from_parts` / `into_parts` (trial doubt, session 12: spans stored next to
/// a buffer could be rebuilt only as a borrowed `Envelope`). The round trip keeps every
/// field; spans paired with a shorter frame give `None`, never a panic.
#[test]
fn owned_envelope_from_parts_round_trip_and_mismatched_spans() {
    use bytes::Bytes;
    use mcpwire::OwnedEnvelope;
    let frame = Bytes::from_static(
        br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"name":"x","_meta":{"k":1}}}"#,
    );
    let owned = OwnedEnvelope::parse(&Parser::new(), frame.clone()).unwrap();
    let (bytes, spans) = owned.clone().into_parts();
    assert_eq!(bytes, frame);
    assert_eq!(bytes.as_ptr(), frame.as_ptr(), "no copy");
    let again = OwnedEnvelope::from_parts(bytes, spans);
    assert_eq!(again.spans(), owned.spans());
    let env = again.envelope();
    assert_eq!(env.method().unwrap().raw(), "tools/call");
    assert_eq!(env.id_raw(), Some(r#""req-1""#));
    assert_eq!(again.id_bytes().as_deref(), Some(&br#""req-1""#[..]));
    assert_eq!(env.meta().map(Iterator::count), Some(1));
    // The same spans on a frame that ends before them.
    let short = OwnedEnvelope::from_parts(Bytes::from_static(br#"{"jsonrpc":"2.0"}"#), spans);
    assert_eq!(short.id_bytes(), None);
    let env = short.envelope();
    assert_eq!(env.id_raw(), None);
    assert!(env.method().is_none());
    assert!(env.meta().is_none_or(|m| m.count() == 0));
}
