//! `SseBatchCodec` against an `SseCodec` that does not parse: on any stream, fed in any reads,
//! under any limits and batch bound, the batches flattened are exactly the per-event codec's
//! items (data, fields, offsets, lines, data line starts, errors) in the same order, and each
//! item reads the same borrowed as owned (`mcpwire::oracle::framing::check_sse_batch_codec`,
//! which the fuzz target `sse` runs too).

use bytes::{Bytes, BytesMut};
use mcpwire::codec::{SseBatchCodec, SseCodec, SseFrame};
use mcpwire::framing::FrameErrorKind;
use mcpwire::oracle::framing::{check_sse_batch_codec, drive_codec as drive};
use proptest::prelude::*;
use tokio_util::codec::{Decoder, Encoder};

fn check(stream: &[u8], cuts: &[usize], limits: (usize, usize), max_batch: usize) {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    let mut reads = Vec::new();
    let mut at = 0;
    for c in cuts.into_iter().chain([stream.len()]) {
        reads.push(&stream[at..c]);
        at = c;
    }
    if let Err(d) = check_sse_batch_codec(&reads, limits, max_batch) {
        panic!(
            "{d}\n stream {:?} reads {reads:?}",
            String::from_utf8_lossy(stream)
        );
    }
}

/// The pieces SSE streams are made of: field lines of every kind (the whole-event fast path's
/// shapes and the line-by-line path's), comments, blank lines, each of the three line ends.
const PIECES: &[&[u8]] = &[
    b"data: {\"a\":1}",
    b"data:x",
    b"data:",
    b"data: 0123456789abcdef",
    b"id: 7",
    b"id:",
    b"id: a\0b",
    b"event: message",
    b"event: endpoint",
    b"event:",
    b"retry: 10",
    b"retry: x",
    b": keep-alive",
    b"other: 1",
    b"\xEF\xBB\xBFdata: b",
    b"",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Streams of field lines, comments and blank lines with LF, CRLF or CR ends (and no end
    /// after the last line), cut into up to 6 reads, with limits small enough for oversize
    /// events and lines, and batch bounds 0 to 4.
    #[test]
    fn batches_flatten_to_the_per_event_items(
        lines in proptest::collection::vec((0..PIECES.len(), 0usize..3), 0..24),
        last_end in any::<bool>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
        max_event in prop_oneof![Just(4usize), Just(12), Just(1 << 20)],
        max_batch in 0usize..5,
    ) {
        let mut stream = Vec::new();
        for (i, &(piece, end)) in lines.iter().enumerate() {
            stream.extend_from_slice(PIECES[piece]);
            if last_end || i + 1 < lines.len() {
                stream.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][end]);
            }
        }
        check(&stream, &cuts, (max_event, max_event + 8), max_batch);
    }
}

/// Every split point of a stream with a single-line event and an `id:` (the fast path's
/// zero-copy id), a joined two-line event with `event: message` and a comment between its
/// lines, an event of another type, a priming event, an oversize event, a CRLF split and an
/// unterminated last event; each batch bound from 1 to 8.
#[test]
fn every_split_point_and_batch_bound() {
    let stream = b"id: 1\ndata: {\"a\":1}\n\nevent: message\ndata: [1,\n: c\ndata: 2]\n\n\
event: endpoint\r\ndata: /post\r\n\r\nid: p\ndata:\n\ndata: 0123456789abcdefghij\n\ndata: tail";
    for max_batch in 1..=8 {
        for k in 0..=stream.len() {
            check(stream, &[k], (16, 24), max_batch);
        }
    }
}

/// Every SSE capture shipped in `corpora/real/sse`, in one read and in reads of 1, 7 and 64
/// bytes, with the default limits and batch bounds 1, 2 and 1024.
#[test]
fn shipped_captures() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpora/real/sse");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        for file in std::fs::read_dir(entry.unwrap().path()).unwrap() {
            let stream = std::fs::read(file.unwrap().path()).unwrap();
            files += 1;
            for step in [stream.len().max(1), 1, 7, 64] {
                let reads: Vec<&[u8]> = stream.chunks(step).collect();
                for max_batch in [1, 2, 1024] {
                    let limits = (4 << 20, (4 << 20) + 64);
                    if let Err(d) = check_sse_batch_codec(&reads, limits, max_batch) {
                        panic!("{d}");
                    }
                }
            }
        }
    }
    assert!(files >= 6, "{files} captures");
}

/// The batch bound at n - 1, n and n + 1 for a read of n = 5 events: 2, 1 and 1 batches.
#[test]
fn batch_bound_boundary() {
    let stream = b"data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n";
    for (max, batches) in [(4, 2), (5, 1), (6, 1)] {
        let (got, err) = drive(
            &mut SseBatchCodec::new().with_max_batch_events(max),
            &[stream],
        );
        assert_eq!(err, None);
        assert_eq!(got.len(), batches, "max {max}");
        let data: Vec<Vec<u8>> = got
            .iter()
            .flat_map(|b| b.iter().map(|e| e.data().to_vec()))
            .collect();
        assert_eq!(data, [b"1", b"2", b"3", b"4", b"5"].map(|b| b.to_vec()));
    }
}

/// What a batch holds: a zero-copy single-line event with its id in the read buffer, joined
/// data in the side buffer with its data positions, an error item, and the unterminated
/// event at the end of the stream; `Debug` shows an item's own fields only.
#[test]
fn items_fields_and_errors() {
    let stream =
        b"id: 9\ndata: {\"a\":1}\n\nevent: note\ndata: x\ndata: y\n\ndata: 0123456789\n\ndata: z";
    let mut codec = SseBatchCodec::with_limits(8, 16);
    let mut buf = BytesMut::from(&stream[..]);
    let batch = codec.decode(&mut buf).unwrap().unwrap();
    assert_eq!(batch.len(), 3);
    let consumed = stream.len() - buf.len();
    assert_eq!(batch.bytes().len(), consumed);
    assert_eq!(codec.framer().stream_offset(), consumed as u64);
    let first = batch.get(0).unwrap();
    assert_eq!(first.data(), b"{\"a\":1}");
    assert_eq!(first.id(), Some(&b"9"[..]));
    assert!(first.is_message());
    assert_eq!(first.data_offset(), Some(12));
    // Both values are slices of the batch's read buffer.
    let range = batch.bytes().as_ptr_range();
    assert!(range.contains(&first.data().as_ptr()));
    assert!(range.contains(&first.id().unwrap().as_ptr()));
    let second = batch.get(1).unwrap();
    assert_eq!(second.data(), b"x\ny");
    assert_eq!(second.event(), Some(&b"note"[..]));
    assert!(!second.is_message());
    let at_y = second.data_position(2).unwrap();
    assert_eq!((at_y.offset, at_y.line, at_y.col), (47, 6, 7));
    let third = batch.get(2).unwrap();
    assert_eq!(third.error().unwrap().kind(), FrameErrorKind::EventTooLarge);
    assert_eq!(third.data(), b"");
    assert!(!third.is_message());
    let shown = format!("{first:?}");
    assert!(shown.contains(r#"b"{\"a\":1}""#), "{shown}");
    assert!(!shown.contains("note"), "{shown}");

    assert_eq!(codec.decode(&mut buf).unwrap().map(|b| b.len()), None);
    let last = codec.decode_eof(&mut buf).unwrap().unwrap();
    assert_eq!(last.len(), 1);
    let e = last.get(0).unwrap().error().unwrap();
    assert_eq!(e.kind(), FrameErrorKind::UnterminatedEvent);
    assert!(codec.decode_eof(&mut buf).unwrap().is_none());
    assert!(buf.is_empty());
}

/// The settings read back, `for event in &batch`, and the encoders: a decoded batch written
/// back decodes to the same events, the `Bytes` and `&SseFrame` encoders write what
/// `SseCodec`'s write, and a batch holding an error item writes nothing.
#[test]
fn settings_iteration_and_encoding() {
    let codec = SseBatchCodec::new().with_max_batch_events(0);
    assert_eq!(codec.max_batch_events(), 1);
    // The bound is kept below u32::MAX (an entry's index into the batch's slow list).
    let most = u32::MAX as usize - 1;
    for (n, kept) in [(most - 1, most - 1), (most, most), (most + 1, most)] {
        assert_eq!(
            SseBatchCodec::new()
                .with_max_batch_events(n)
                .max_batch_events(),
            kept
        );
    }
    assert_eq!(codec.framer().max_event_len(), 4 << 20);

    let stream = b": hi\nevent: message\nid: 1\ndata: {}\n\ndata: [\ndata: 1]\nretry: 5\n\n";
    let mut codec = SseBatchCodec::new();
    let mut buf = BytesMut::from(&stream[..]);
    let batch = codec.decode(&mut buf).unwrap().unwrap();
    let mut seen = Vec::new();
    for ev in &batch {
        seen.push(ev.data().to_vec());
    }
    assert_eq!(seen, [b"{}".to_vec(), b"[\n1]".to_vec()]);
    assert_eq!(batch.iter().next_back().unwrap().retry(), Some(5));

    let mut out = BytesMut::new();
    codec.encode(&batch, &mut out).unwrap();
    let again = SseBatchCodec::new().decode(&mut out).unwrap().unwrap();
    let fields = |b: &mcpwire::codec::SseEventBatch| -> Vec<_> {
        b.iter()
            .map(|e| {
                let f = (e.data().to_vec(), e.event().map(<[u8]>::to_vec));
                (f, e.id().map(<[u8]>::to_vec), e.retry())
            })
            .collect()
    };
    assert_eq!(fields(&again), fields(&batch));

    let (mut ours, mut theirs) = (BytesMut::new(), BytesMut::new());
    let frame = SseFrame::new(Bytes::from_static(b"{}")).with_id(Bytes::from_static(b"3"));
    codec.encode(&frame, &mut ours).unwrap();
    SseCodec::new().encode(&frame, &mut theirs).unwrap();
    codec.encode(Bytes::from_static(b"[]"), &mut ours).unwrap();
    SseCodec::new()
        .encode(Bytes::from_static(b"[]"), &mut theirs)
        .unwrap();
    assert_eq!(ours, theirs);

    let mut tight = SseBatchCodec::with_limits(4, 12);
    let mut buf = BytesMut::from(&b"data: ok\n\ndata: 0123456789\n\n"[..]);
    let with_error = tight.decode(&mut buf).unwrap().unwrap();
    assert_eq!(with_error.len(), 2);
    let mut out = BytesMut::from(&b"kept"[..]);
    let err = tight.encode(&with_error, &mut out).unwrap_err();
    assert!(err.to_string().contains("unencodable-frame"), "{err}");
    assert_eq!(&out[..], b"kept");
}

/// Trial findings, session 27: a batch's `Debug` shows each item's real fields (an error item
/// kept in the side list showed offset 0, line 0), an event without fields is written as a
/// blank line alone (no event when decoded, as `SseCodec` does), and `SseFrame` is encoded
/// by value too.
#[test]
fn trial_findings_debug_fieldless_events_and_owned_encoding() {
    let stream = b"id: 1\nevent: e\ndata: a\ndata: b\n\ndata: x";
    let mut codec = SseBatchCodec::new();
    let (batches, err) = drive(&mut codec, &[stream]);
    assert_eq!(err, None);
    let items: Vec<_> = batches.iter().flat_map(|b| b.iter()).collect();
    assert_eq!(items.len(), 2);
    let e = items[1].error().unwrap();
    assert_eq!((e.offset(), e.line()), (32, 6));
    let shown = format!("{:?}", batches[1]);
    assert!(shown.contains("offset: 32, line: 6"), "{shown}");
    assert!(!shown.contains("4294967295"), "{shown}");
    let shown = format!("{:?}", batches[0]);
    assert!(shown.contains(r#"data: b"a\nb""#), "{shown}");
    assert!(shown.contains("data_line_starts"), "{shown}");

    // Blocks of only unknown fields: events without data, written back as a blank line.
    let mut codec = SseBatchCodec::new();
    let mut buf = BytesMut::from(&b"x\n\nfoo: bar\n\n"[..]);
    let batch = codec.decode(&mut buf).unwrap().unwrap();
    assert_eq!(batch.len(), 2);
    assert!(batch.iter().all(|e| !e.has_data() && e.data().is_empty()));
    assert_eq!(batch.get(1).unwrap().offset(), 3);
    let mut out = BytesMut::new();
    codec.encode(&batch, &mut out).unwrap();
    assert_eq!(&out[..], b"\n\n");
    assert!(SseBatchCodec::new().decode_eof(&mut out).unwrap().is_none());

    let mut ours = BytesMut::new();
    let frame = SseFrame::new(Bytes::from_static(b"{}"));
    codec.encode(frame.clone(), &mut ours).unwrap();
    let mut theirs = BytesMut::new();
    codec.encode(&frame, &mut theirs).unwrap();
    assert_eq!(ours, theirs);
}

/// Session-28 trial findings: `SseFrame::event_type` (an empty `event:` line is type
/// `message`, as `BatchEvent::event_type` says), `SseCodec::framing_only` (default limits, no
/// envelope), and line-1 columns that count a stripped BOM, in both codecs.
#[test]
fn trial_28_event_type_framing_only_and_bom_columns() {
    let stream: &[u8] =
        b"\xEF\xBB\xBFdata: X\n\nevent:\ndata: Y\n\nevent: endpoint\ndata: /m\n\n: c\n\n";
    let (frames, err) = drive(&mut SseCodec::framing_only(), &[stream]);
    assert!(err.is_none());
    let (limits, _) = drive(
        &mut SseCodec::with_limits(
            mcpwire::framing::DEFAULT_MAX_FRAME_LEN,
            mcpwire::framing::DEFAULT_MAX_FRAME_LEN + mcpwire::framing::sse::LINE_OVERHEAD,
            None,
        ),
        &[stream],
    );
    assert_eq!(format!("{frames:?}"), format!("{limits:?}"));
    assert!(frames.iter().all(|f| f.envelope().is_none()));
    let types: Vec<&[u8]> = frames.iter().map(SseFrame::event_type).collect();
    assert_eq!(types, [&b"message"[..], b"message", b"endpoint"]);
    assert_eq!(frames[1].event().map(|e| &e[..]), Some(&b""[..]));
    // `data: X` after the BOM: value at offset 9, line 1, column 10 (3 BOM bytes + 6).
    let p = frames[0].data_position(0).unwrap();
    assert_eq!((p.offset, p.line, p.col), (9, 1, 10));
    let (batches, _) = drive(&mut SseBatchCodec::new(), &[stream]);
    let events: Vec<_> = batches.iter().flat_map(|b| b.iter()).collect();
    assert_eq!(events.len(), 3);
    for (ev, f) in events.iter().zip(&frames) {
        assert_eq!(ev.event_type(), f.event_type());
        assert_eq!(ev.data_position(0), f.data_position(0));
    }
    // `check_sse_batch_codec` holds on the same stream, cut after the BOM.
    check_sse_batch_codec(&[&stream[..3], &stream[3..]], (1 << 20, 1 << 20), 2).unwrap();
}
