//! NDJSON (stdio) framer: captures at every split point and in random reads, the real read
//! boundaries of `chunks.jsonl`, limits at the boundary, CRLF and UTF-8 split across reads,
//! linear cost counted in bytes examined.

mod framing_common;

use framing_common::*;
use mcpwire::framing::ndjson::NdjsonFramer;
use mcpwire::framing::{DEFAULT_MAX_FRAME_LEN, FrameErrorKind, Status};

/// Feeds `input` in reads of the given sizes through a framer with limit `max`, like a CLI
/// reading a file: append the read, decode until partial, drop consumed bytes; at the end,
/// `finish` until partial.
fn feed(input: &[u8], reads: &[usize], max: usize) -> (Vec<NdItem>, NdjsonFramer) {
    let mut f = NdjsonFramer::with_max_frame_len(max);
    let mut out = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    let mut pos = 0;
    let push =
        |buf: &Vec<u8>, d: &mcpwire::framing::Decoded<_>, out: &mut Vec<NdItem>| match &d.status {
            Status::Complete(Ok(fr)) => {
                let fr: &mcpwire::framing::ndjson::NdjsonFrame = fr;
                out.push(Ok((
                    buf[fr.range()].to_vec(),
                    fr.offset(),
                    fr.line(),
                    fr.cr_stripped(),
                )))
            }
            Status::Complete(Err(e)) => out.push(Err((e.kind(), e.offset(), e.line()))),
            Status::Partial => {}
        };
    for &n in reads {
        buf.extend_from_slice(&input[pos..pos + n]);
        pos += n;
        loop {
            let d = f.decode(&buf);
            push(&buf, &d, &mut out);
            let done = d.status.is_partial();
            buf.drain(..d.consumed);
            if done {
                break;
            }
        }
        // Memory bound: pending bytes never exceed the limit + 2 (+ the read just appended).
        assert!(
            buf.len() <= max + 2,
            "pending {} > max {} + 2",
            buf.len(),
            max
        );
    }
    assert_eq!(pos, input.len());
    loop {
        let d = f.finish(&buf);
        push(&buf, &d, &mut out);
        let done = d.status.is_partial();
        buf.drain(..d.consumed);
        if done {
            break;
        }
    }
    assert!(buf.is_empty());
    (out, f)
}

fn one_read(input: &[u8], max: usize) -> Vec<NdItem> {
    feed(input, &[input.len()], max).0
}

/// `input` gives `expect` in one read, in the reference framer, split in two at every point
/// and fed byte by byte (`what` names the case in a failure).
fn assert_every_split(input: &[u8], max: usize, expect: &[NdItem], what: &str) {
    assert_eq!(one_read(input, max), expect, "{what}");
    assert_eq!(reference_ndjson(input, max), expect, "{what}");
    for k in 0..=input.len() {
        let got = feed(input, &split_at(input.len(), k), max).0;
        assert_eq!(got, expect, "{what} k {k}");
    }
    let got = feed(input, &vec![1; input.len()], max).0;
    assert_eq!(got, expect, "{what} bytewise");
}

#[test]
fn captures_match_reference_in_one_read_and_random_reads() {
    let files = capture_files(".jsonl");
    if files.is_empty() {
        return;
    }
    let mut frames = 0;
    for path in &files {
        let input = std::fs::read(path).unwrap();
        let expect = reference_ndjson(&input, DEFAULT_MAX_FRAME_LEN);
        assert!(
            expect.iter().all(Result::is_ok),
            "{path:?}: captures hold only whole lines"
        );
        let (got, f) = feed(&input, &[input.len()], DEFAULT_MAX_FRAME_LEN);
        assert_eq!(got, expect, "{path:?} one read");
        assert!(f.bytes_examined() <= input.len() as u64);
        for seed in 0..4 {
            let reads = random_reads(input.len(), [64, 997, 65536, 300][seed as usize], seed);
            let (got, f) = feed(&input, &reads, DEFAULT_MAX_FRAME_LEN);
            assert_eq!(got, expect, "{path:?} random reads seed {seed}");
            assert!(
                f.bytes_examined() <= input.len() as u64,
                "{path:?} rescanned bytes"
            );
        }
        // Every frame is one whole JSON object (a few hold an escaped lone surrogate that
        // serde_json rejects, so check the framing only: one object per line).
        for item in &expect {
            let (frame, ..) = item.as_ref().unwrap();
            assert!(frame.starts_with(b"{") && frame.ends_with(b"}"), "{path:?}");
        }
        frames += expect.len();
    }
    assert!(
        frames > 1000,
        "only {frames} frames in {} capture files",
        files.len()
    );
}

#[test]
fn captures_replay_real_read_boundaries() {
    let files = capture_files("client-to-server.jsonl");
    if files.is_empty() {
        return;
    }
    for c2s in files {
        let dir = c2s.parent().unwrap();
        let chunks = std::fs::read_to_string(dir.join("chunks.jsonl")).unwrap();
        for (dir_name, file) in [
            ("c2s", "client-to-server.jsonl"),
            ("s2c", "server-to-client.jsonl"),
        ] {
            let input = std::fs::read(dir.join(file)).unwrap();
            let mut reads = Vec::new();
            let mut next = 0u64;
            for line in chunks.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                if v["dir"] != dir_name {
                    continue;
                }
                assert_eq!(
                    v["off"].as_u64().unwrap(),
                    next,
                    "{dir:?} chunks are contiguous"
                );
                let len = v["len"].as_u64().unwrap();
                reads.push(len as usize);
                next += len;
            }
            assert_eq!(next as usize, input.len(), "{dir:?} {dir_name}");
            let (got, _) = feed(&input, &reads, DEFAULT_MAX_FRAME_LEN);
            assert_eq!(
                got,
                reference_ndjson(&input, DEFAULT_MAX_FRAME_LEN),
                "{dir:?} {dir_name}"
            );
        }
    }
}

#[test]
fn capture_prefixes_at_every_split_point() {
    let files = capture_files(".jsonl");
    if files.is_empty() {
        return;
    }
    for path in &files {
        let input = std::fs::read(path).unwrap();
        // The first ~1.5 KB (a few whole lines plus a partial one): every two-read split and
        // byte-at-a-time give the same items as one read.
        let small = &input[..input.len().min(1500)];
        let expect = one_read(small, DEFAULT_MAX_FRAME_LEN);
        for k in 0..=small.len() {
            let (got, _) = feed(small, &split_at(small.len(), k), DEFAULT_MAX_FRAME_LEN);
            assert_eq!(got, expect, "{path:?} split at {k}");
        }
        let ones = vec![1; small.len()];
        assert_eq!(
            feed(small, &ones, DEFAULT_MAX_FRAME_LEN).0,
            expect,
            "{path:?} 1-byte reads"
        );
    }
}

/// Hand-made stream with CRLF, blank lines, multi-byte UTF-8 (2, 3, 4 bytes, U+2028) and an
/// unterminated last line, at every split point and every pair of split points.
#[test]
fn crlf_blank_utf8_split_everywhere() {
    let input = "{\"a\":\"é\"}\r\n\n\r\n{\"b\":\"\u{2028}€\"}\n{\"c\":\"😀\"}\r\n\r\r\n{\"d\":1}"
        .as_bytes();
    let expect = one_read(input, 64);
    assert_eq!(expect, reference_ndjson(input, 64));
    assert_eq!(expect.len(), 5);
    assert_eq!(
        expect[0],
        Ok(("{\"a\":\"é\"}".as_bytes().to_vec(), 0, 1, true))
    );
    // "\r\r\n": only the CR right before the LF is stripped; the line's content is "\r", a
    // bare CR (a reader that ends lines at CR sees two blank lines).
    assert_eq!(expect[3], Err((FrameErrorKind::BareCr, 44, 6)));
    assert_eq!(expect[4], Err((FrameErrorKind::UnterminatedLine, 47, 7)));
    for i in 0..=input.len() {
        for j in i..=input.len() {
            let reads = [i, j - i, input.len() - j];
            assert_eq!(feed(input, &reads, 64).0, expect, "split at {i},{j}");
        }
    }
}

#[test]
fn cr_at_end_of_one_read_lf_at_start_of_next() {
    let input = b"{}\r\n{}\r\n";
    let (got, f) = feed(input, &[3, 5], 16);
    assert_eq!(
        got,
        vec![
            Ok((b"{}".to_vec(), 0, 1, true)),
            Ok((b"{}".to_vec(), 4, 2, true))
        ]
    );
    assert_eq!(f.cr_stripped_lines(), 2);
}

#[test]
fn limit_at_boundary_and_one_byte_either_side() {
    let max = 16;
    for len in [max - 1, max, max + 1] {
        for crlf in [false, true] {
            let mut input = vec![b'x'; len];
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            input.extend_from_slice(b"{}\n");
            let expect = if len <= max {
                vec![Ok((vec![b'x'; len], 0, 1, crlf))]
            } else {
                vec![Err((FrameErrorKind::FrameTooLarge, 0, 1))]
            };
            let next = Ok((b"{}".to_vec(), input.len() as u64 - 3, 2, false));
            let expect: Vec<NdItem> = expect.into_iter().chain([next]).collect();
            assert_every_split(&input, max, &expect, &format!("len {len} crlf {crlf}"));
        }
    }
}

#[test]
fn oversize_line_is_reported_before_its_newline_and_discarded() {
    let max = 8;
    let mut f = NdjsonFramer::with_max_frame_len(max);
    // max + 1 bytes: could still be max bytes + CR, so no verdict yet.
    let d = f.decode(b"123456789");
    assert_eq!(d.status, Status::Partial);
    assert_eq!(d.consumed, 0);
    // max + 2 bytes without LF: too large whatever follows; reported now, bytes dropped.
    let d = f.decode(b"123456789x");
    match d.status {
        Status::Complete(Err(e)) => {
            assert_eq!(
                (e.kind(), e.offset(), e.line(), e.len()),
                (FrameErrorKind::FrameTooLarge, 0, 1, 10)
            );
            assert_eq!(e.kind().http_status(), Some(413));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(d.consumed, 10);
    // The rest of the line is dropped as it arrives; the next line is a frame.
    let d = f.decode(b"yyyyyyyyyyyyyyyyyyyy");
    assert_eq!((d.consumed, d.status), (20, Status::Partial));
    let d = f.decode(b"zz\n{}\n");
    assert_eq!(d.consumed, 6);
    match d.status {
        Status::Complete(Ok(fr)) => assert_eq!((fr.range(), fr.offset(), fr.line()), (3..5, 33, 2)),
        other => panic!("{other:?}"),
    }
    assert_eq!(f.oversize_lines(), 1);
}

#[test]
fn oversize_in_stream_keeps_going_same_as_reference() {
    let input = b"{\"a\":1}\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n\n{\"b\":2}\nyyyyyyyyyyyyyyyyyyyyyyyyyy";
    let expect = reference_ndjson(input, 10);
    assert_eq!(expect.len(), 4);
    for k in 0..=input.len() {
        assert_eq!(
            feed(input, &split_at(input.len(), k), 10).0,
            expect,
            "k {k}"
        );
    }
    for seed in 0..20 {
        assert_eq!(
            feed(input, &random_reads(input.len(), 7, seed), 10).0,
            expect
        );
    }
}

#[test]
fn unterminated_last_line_is_reported_with_its_bytes() {
    let mut f = NdjsonFramer::new();
    let buf = b"{\"a\":1}\n{\"b\":";
    let d = f.decode(buf);
    assert_eq!(d.consumed, 8);
    let rest = &buf[8..];
    let d = f.decode(rest);
    assert_eq!((d.consumed, d.status.is_partial()), (0, true));
    let d = f.finish(rest);
    let Status::Complete(Err(e)) = d.status else {
        panic!()
    };
    assert_eq!(
        (e.kind(), e.offset(), e.line()),
        (FrameErrorKind::UnterminatedLine, 8, 2)
    );
    assert_eq!(&rest[d.consumed - e.len()..d.consumed], b"{\"b\":");
    // Drained.
    assert_eq!(f.finish(&[]).status, Status::Partial);
}

/// Trial finding: at end of stream, a last line of `max + 1` bytes without LF was
/// `unterminated-line` (-32700) while `max + 2` bytes, or `max + 1` with an LF, were
/// `frame-too-large` (-32600); and a last lone CR (`{}\n\r`) was an unterminated line though
/// a lone CR with its LF is a blank line. Limits at the boundary and one byte either side,
/// with and without a last CR, in every split.
#[test]
fn unterminated_last_line_at_the_limit() {
    let max = 16;
    for len in [max - 1, max, max + 1, max + 2] {
        for cr in [false, true] {
            let mut input = b"{}\n".to_vec();
            input.extend(std::iter::repeat_n(b'x', len));
            if cr {
                input.push(b'\r');
            }
            let kind = if len > max {
                FrameErrorKind::FrameTooLarge
            } else {
                FrameErrorKind::UnterminatedLine
            };
            let expect: Vec<NdItem> = vec![Ok((b"{}".to_vec(), 0, 1, false)), Err((kind, 3, 2))];
            for k in 0..=input.len() {
                assert_eq!(
                    feed(&input, &split_at(input.len(), k), max).0,
                    expect,
                    "len {len} cr {cr} k {k}"
                );
            }
            mcpwire::oracle::framing::check_ndjson_splits(&input, &[3, 7], max)
                .unwrap_or_else(|e| panic!("len {len} cr {cr}: {e}"));
        }
    }
    for (input, frames) in [(&b"{}\n\r"[..], 1), (b"\r", 0), (b"{}\r\n\r", 1)] {
        let (got, f) = feed(input, &[input.len()], 8);
        let crlf = input.starts_with(b"{}\r");
        let want: Vec<NdItem> = (0..frames)
            .map(|_| Ok((b"{}".to_vec(), 0, 1, crlf)))
            .collect();
        assert_eq!(got, want, "{input:?}");
        assert_eq!(f.blank_lines(), 1, "{input:?}");
        mcpwire::oracle::framing::check_ndjson_splits(input, &[1], 8)
            .unwrap_or_else(|e| panic!("{input:?}: {e}"));
    }
}

#[test]
fn empty_input_and_only_blank_lines() {
    assert_eq!(one_read(b"", 8), vec![]);
    let (got, f) = feed(b"\n\r\n\n", &[4], 8);
    assert_eq!(got, vec![]);
    assert_eq!(f.blank_lines(), 3);
}

/// A 4 MB line arriving in 64-byte reads: each byte is examined once (linear), counted, not
/// timed. A quadratic framer would examine ~125 G bytes here.
#[test]
fn four_mb_line_in_64_byte_reads_is_linear() {
    let mut input = vec![b'a'; 4_000_000];
    input[0] = b'"';
    input[3_999_999] = b'"';
    input.push(b'\n');
    let reads = vec![64; input.len() / 64]
        .into_iter()
        .chain(std::iter::once(input.len() % 64))
        .collect::<Vec<_>>();
    let (got, f) = feed(&input, &reads, DEFAULT_MAX_FRAME_LEN);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_ref().unwrap().0.len(), 4_000_000);
    assert_eq!(
        f.bytes_examined(),
        input.len() as u64,
        "every byte examined exactly once"
    );
    // Same when the line is oversize and being discarded.
    let (got, f) = feed(&input, &reads, 1_000_000);
    assert_eq!(got, vec![Err((FrameErrorKind::FrameTooLarge, 0, 1))]);
    assert!(f.bytes_examined() <= input.len() as u64);
}

#[test]
fn set_max_frame_len_applies_to_line_in_progress() {
    let mut f = NdjsonFramer::with_max_frame_len(100);
    let d = f.decode(b"0123456789");
    assert!(d.status.is_partial());
    f.set_max_frame_len(4);
    let d = f.decode(b"0123456789");
    let Status::Complete(Err(e)) = d.status else {
        panic!("{:?}", d.status)
    };
    assert_eq!(e.kind(), FrameErrorKind::FrameTooLarge);
}

/// Hostile trial (session 20): a bare CR (one not right before the LF) hid a second message
/// from mcpwire. JSON reads a CR as whitespace, so the LF-delimited line below was one valid
/// `ping`; the Python SDK reads stdin with universal newlines, so to a Python server it is
/// three lines, the middle one a valid `tools/call`. The line is now `bare-cr`, its bytes
/// dropped, and the stream goes on; in any read split.
#[test]
fn a_bare_cr_hides_no_message() {
    let smuggle: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1,\"x\":\r{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":2,\"params\":{\"name\":\"delete_all\",\"arguments\":{}}}\r}\n";
    assert!(
        mcpwire::parse(&smuggle[..smuggle.len() - 1]).is_ok(),
        "valid JSON with CR whitespace"
    );
    let mut input = smuggle.to_vec();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":3}\r\n");
    let next = smuggle.len() as u64;
    let expect: Vec<NdItem> = vec![
        Err((FrameErrorKind::BareCr, 0, 1)),
        Ok((
            input[smuggle.len()..input.len() - 2].to_vec(),
            next,
            2,
            true,
        )),
    ];
    assert_every_split(&input, DEFAULT_MAX_FRAME_LEN, &expect, "smuggle");
    let (_, f) = feed(&input, &vec![1; input.len()], DEFAULT_MAX_FRAME_LEN);
    assert_eq!(
        (f.bare_cr_lines(), f.frames(), f.cr_stripped_lines()),
        (1, 1, 1)
    );
    // Every byte examined once, the CR at the end of a read included.
    assert_eq!(f.bytes_examined(), input.len() as u64);
}

/// A bare CR at every position of a line, and CRs that are not bare: a CR right before the
/// LF (stripped), a CRLF blank line. One read and every split give the same items as the
/// reference.
#[test]
fn bare_cr_at_every_position_and_split() {
    let line = b"{\"id\":1,\"method\":\"m\"}";
    for at in 0..=line.len() {
        let mut input = line[..at].to_vec();
        input.push(b'\r');
        input.extend_from_slice(&line[at..]);
        input.extend_from_slice(b"\n\r\n{}\r\n");
        let expect = reference_ndjson(&input, 64);
        let bare = at < line.len();
        assert_eq!(
            expect.first().map(|i| i.as_ref().err().map(|e| e.0)),
            Some(bare.then_some(FrameErrorKind::BareCr)),
            "at {at}"
        );
        let (got, f) = feed(&input, &[input.len()], 64);
        assert_eq!(got, expect, "at {at}");
        assert_eq!(f.bare_cr_lines(), u64::from(bare));
        for k in 0..=input.len() {
            assert_eq!(
                feed(&input, &split_at(input.len(), k), 64).0,
                expect,
                "at {at} k {k}"
            );
        }
    }
}

/// The limit applies first: a line of `max` bytes with a bare CR is `bare-cr`, one of
/// `max + 1` is `frame-too-large` (its bytes are discarded unread); one byte either side.
#[test]
fn bare_cr_against_the_limit() {
    let max = 16;
    for len in [max - 1, max, max + 1] {
        for crlf in [false, true] {
            let mut input = vec![b' '; len];
            input[len / 2] = b'\r';
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            input.extend_from_slice(b"{}\n");
            let kind = if len <= max {
                FrameErrorKind::BareCr
            } else {
                FrameErrorKind::FrameTooLarge
            };
            let expect: Vec<NdItem> = vec![
                Err((kind, 0, 1)),
                Ok((b"{}".to_vec(), input.len() as u64 - 3, 2, false)),
            ];
            assert_every_split(&input, max, &expect, &format!("len {len} crlf {crlf}"));
        }
    }
}

/// Review: a CR as the last byte of a full search window (`max + 2` bytes without an LF) is
/// past the limit whatever follows: the line is too large at once, and the whole window counts
/// as examined (the CR was left out), as for a window without a CR.
#[test]
fn a_cr_closing_a_full_window_is_too_large_and_examined() {
    let max = 4;
    for tail in [&b"x"[..], b"\r"] {
        let mut f = NdjsonFramer::with_max_frame_len(max);
        let buf = [&b"xxxxx"[..], tail].concat();
        let d = f.decode(&buf);
        match d.status {
            Status::Complete(Err(e)) => assert_eq!(e.kind(), FrameErrorKind::FrameTooLarge),
            other => panic!("{tail:?}: {other:?}"),
        }
        assert_eq!(d.consumed, max + 2);
        assert_eq!(f.bytes_examined(), (max + 2) as u64, "{tail:?}");
    }
}
