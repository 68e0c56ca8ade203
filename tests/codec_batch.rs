//! `NdjsonBatchCodec` against `NdjsonRawCodec`: on any stream, fed in any reads, under either
//! oversize policy and any batch bound, the batches flattened are exactly the per-frame
//! codec's items (bytes, offsets, lines, CR notes, errors) in the same order, and a decoder
//! `Err` comes at the same point (`mcpwire::oracle::framing::check_ndjson_batch_codec`, which
//! the fuzz target `ndjson` runs too).

use mcpwire::codec::{NdjsonBatchCodec, OnOversize};
use mcpwire::oracle::framing::{check_ndjson_batch_codec, drive_codec as drive};
use proptest::prelude::*;

fn check(stream: &[u8], cuts: &[usize], max_line: usize, fatal: bool, max_batch: usize) {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    let mut reads = Vec::new();
    let mut at = 0;
    for c in cuts.into_iter().chain([stream.len()]) {
        reads.push(&stream[at..c]);
        at = c;
    }
    if let Err(d) = check_ndjson_batch_codec(&reads, max_line, fatal, max_batch) {
        panic!(
            "{d}\n stream {:?} reads {reads:?}",
            String::from_utf8_lossy(stream)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Streams over the bytes that matter to NDJSON framing (LF, CR, blank lines, long
    /// lines against a small limit), cut into up to 6 reads.
    #[test]
    fn batches_flatten_to_the_per_frame_items(
        stream in proptest::collection::vec(
            prop_oneof![4 => Just(b'a'), 2 => Just(b'\n'), 1 => Just(b'\r'), 1 => Just(b'{'), 1 => Just(b' ')],
            0..120,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
        max_line in 1usize..12,
        fatal in any::<bool>(),
        max_batch in 0usize..5,
    ) {
        check(&stream, &cuts, max_line, fatal, max_batch);
    }
}

/// Every split point of a stream with frames, a blank line, a CRLF line, a bare CR, an
/// oversize line and an unterminated last line, with each batch bound from 1 to 8.
#[test]
fn every_split_point_and_batch_bound() {
    let stream = b"{\"a\":1}\n\n{\"b\":2}\r\nx\ry\n0123456789abcdef\n{}\nlast";
    for fatal in [false, true] {
        for max_batch in 1..=8 {
            for k in 0..=stream.len() {
                check(stream, &[k], 12, fatal, max_batch);
            }
        }
    }
}

/// The batch bound at n - 1, n and n + 1 for a read of n = 5 lines: 2, 1 and 1 batches.
#[test]
fn batch_bound_boundary() {
    let stream = b"1\n2\n3\n4\n5\n";
    for (max, batches) in [(4, 2), (5, 1), (6, 1)] {
        let (got, err) = drive(
            &mut NdjsonBatchCodec::new().with_max_batch_frames(max),
            &[stream],
        );
        assert_eq!(err, None);
        assert_eq!(got.len(), batches, "max {max}");
        let frames: Vec<Vec<u8>> = got
            .iter()
            .flat_map(|b| b.iter().map(|f| f.bytes().to_vec()))
            .collect();
        assert_eq!(frames, [b"1", b"2", b"3", b"4", b"5"].map(|b| b.to_vec()));
    }
}

/// A fatal oversize line after two good lines in the same read: the two come as one batch,
/// then the decoder `Err` (as the per-frame codec yields two items, then `Err`).
#[test]
fn fatal_oversize_after_frames_ends_the_stream_after_their_batch() {
    let stream = b"{}\n[]\n0123456789\n{}\n";
    let mut codec = NdjsonBatchCodec::with_max_frame_len(4).on_oversize(OnOversize::Fatal);
    let (got, err) = drive(&mut codec, &[stream]);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].len(), 2);
    let e = err.expect("fatal oversize");
    assert!(e.contains("frame-too-large"), "{e}");
    assert!(e.contains("byte 6"), "{e}");
}

/// A borrowed frame's `Debug` shows its own bytes, not the batch's whole buffer.
#[test]
fn batch_frame_debug_shows_only_its_frame() {
    let (got, _) = drive(
        &mut NdjsonBatchCodec::new(),
        &[b"{\"a\":1}\n{\"second\":2}\n"],
    );
    let shown = format!("{:?}", got[0].get(0).unwrap());
    assert!(shown.contains(r#"b"{\"a\":1}""#), "{shown}");
    assert!(!shown.contains("second"), "{shown}");
}

/// The settings read back, the limit changed between calls, `for frame in &batch`, and the
/// encoders: a decoded batch written back is the stream without its blank lines and
/// stripped CRs, and a batch holding an error item writes nothing.
#[test]
fn settings_iteration_and_encoding() {
    use bytes::{Bytes, BytesMut};
    use mcpwire::framing::FrameErrorKind;
    use tokio_util::codec::{Decoder, Encoder};

    let mut codec = NdjsonBatchCodec::with_max_frame_len(8)
        .on_oversize(OnOversize::Fatal)
        .with_max_batch_frames(0);
    assert_eq!(codec.max_batch_frames(), 1);
    assert_eq!(codec.oversize_policy(), OnOversize::Fatal);
    assert_eq!(codec.max_frame_len(), 8);
    codec.set_max_frame_len(16);
    assert_eq!(codec.max_frame_len(), 16);

    let mut codec = NdjsonBatchCodec::new();
    let mut buf = BytesMut::from(&b"{\"a\":1}\r\n\n[]\n"[..]);
    let batch = codec.decode(&mut buf).unwrap().unwrap();
    let mut seen = Vec::new();
    for frame in &batch {
        seen.push(frame.bytes().to_vec());
    }
    assert_eq!(seen, [b"{\"a\":1}".to_vec(), b"[]".to_vec()]);
    assert_eq!(batch.iter().next_back().unwrap().bytes(), b"[]");

    let mut out = BytesMut::new();
    codec.encode(&batch, &mut out).unwrap();
    codec.encode(Bytes::from_static(b"{}"), &mut out).unwrap();
    codec.encode(&b"1"[..], &mut out).unwrap();
    codec
        .encode(&batch.get(1).unwrap().to_raw(), &mut out)
        .unwrap();
    assert_eq!(&out[..], b"{\"a\":1}\n[]\n{}\n1\n[]\n");

    // An oversize line (reported) makes its batch unencodable, and nothing is written.
    let mut codec = NdjsonBatchCodec::with_max_frame_len(4);
    let mut buf = BytesMut::from(&b"{}\n0123456789\n"[..]);
    let batch = codec.decode(&mut buf).unwrap().unwrap();
    assert_eq!(batch.len(), 2);
    let mut out = BytesMut::from(&b"kept\n"[..]);
    match codec.encode(&batch, &mut out) {
        Err(mcpwire::codec::CodecError::Frame(e)) => {
            assert_eq!(e.kind(), FrameErrorKind::UnencodableFrame);
            assert_eq!(e.offset(), 3);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(&out[..], b"kept\n");
}

/// A `RawFrame`'s `Debug` shows its error as a `FrameError` (kind, offset, line, len), as
/// `error()` gives it, not the compact tuple it is stored as (trial, session 26).
#[test]
fn raw_frame_debug_shows_the_frame_error() {
    let (got, _) = drive(
        &mut NdjsonBatchCodec::with_max_frame_len(4),
        &[b"{}\n0123456789\n"],
    );
    let frames: Vec<_> = got.into_iter().flat_map(|b| b.into_frames()).collect();
    let shown = format!("{:?}", frames[1]);
    assert!(shown.contains("FrameError"), "{shown}");
    assert!(shown.contains("FrameTooLarge"), "{shown}");
    assert!(shown.contains("offset: 3"), "{shown}");
    assert!(!shown.contains("Some((FrameTooLarge"), "{shown}");
    assert!(format!("{:?}", frames[0]).contains("error: None"));
}
