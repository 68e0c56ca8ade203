//! SSE framer: every raw `.sse` capture against a reference parser at every split point (small
//! streams) and in random reads (all), CR/LF/CRLF across reads, BOM, priming events,
//! unterminated events, limits at the boundary, linear cost.

mod framing_common;

use framing_common::*;
use mcpwire::framing::sse::{MAX_DATA_LINE_STARTS, SseEvent, SseFramer, position_in_data};
use mcpwire::framing::{FrameErrorKind, Status, StreamPos};

/// Where each line of `input` starts (CR, LF and CRLF end a line; a BOM is part of line 1).
fn line_starts(input: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'\r' if input.get(i + 1) == Some(&b'\n') => i += 2,
            b'\r' | b'\n' => i += 1,
            _ => {
                i += 1;
                continue;
            }
        }
        starts.push(i);
    }
    starts
}

/// The stream position of `input[offset]`, computed from the stream alone.
fn position_of(starts: &[usize], offset: usize) -> StreamPos {
    let line = starts.partition_point(|&s| s <= offset);
    StreamPos {
        offset: offset as u64,
        line: line as u64,
        col: (offset - starts[line - 1]) as u64 + 1,
    }
}

/// Checks [`SseEvent::data_position`] against the stream: each data byte maps to the same
/// byte of `input`, each LF joining two values and the end of the data to a line end, with
/// the line and column the stream gives; `data_line_starts` gives the same answers. Every
/// position for data up to 4 KiB, else the first and last 512 and every value's edges.
fn check_positions(input: &[u8], starts: &[usize], ev: &SseEvent<'_>) {
    let data = ev.data();
    let len = data.len();
    if !ev.has_data() {
        assert_eq!(ev.data_position(0), None);
        return;
    }
    let lines: Vec<_> = ev.data_line_starts().collect();
    // Past `MAX_DATA_LINE_STARTS` the first value not kept has line 0, and positions stop.
    let cut = lines
        .iter()
        .find(|d| d.pos.line == 0)
        .map_or(usize::MAX, |d| d.at);
    let kept = if cut == usize::MAX {
        ev.data_lines() as usize
    } else {
        MAX_DATA_LINE_STARTS + 2
    };
    assert_eq!(lines.len(), kept);
    let mut ats: Vec<usize> = if len <= 4096 {
        (0..=len).collect()
    } else {
        (0..512).chain(len - 512..=len).collect()
    };
    for d in &lines {
        ats.extend([d.at.saturating_sub(1), d.at, (d.at + 1).min(len)]);
    }
    for at in ats {
        if at >= cut {
            assert_eq!(
                ev.data_position(at),
                None,
                "data byte {at} past the kept starts"
            );
            continue;
        }
        let p = ev.data_position(at).expect("position inside the data");
        assert_eq!(position_in_data(&lines, len, at), Some(p));
        let o = p.offset as usize;
        assert_eq!(p, position_of(starts, o), "data byte {at}");
        if at < len && !lines.iter().any(|d| d.at == at + 1) {
            assert_eq!(input[o], data[at], "data byte {at} at stream offset {o}");
        } else {
            assert!(
                matches!(input[o], b'\r' | b'\n'),
                "line end for data byte {at}"
            );
        }
    }
    assert_eq!(ev.data_position(len + 1), None);
}

/// Feeds `input` in reads of the given sizes; decode until partial after each read, `finish`
/// until partial at the end. Checks that zero-copy data ranges point at the data.
fn feed(
    input: &[u8],
    reads: &[usize],
    max_event: usize,
    max_line: usize,
) -> (Vec<SseItem>, SseFramer) {
    let mut f = SseFramer::with_limits(max_event, max_line);
    let starts = line_starts(input);
    let mut out = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    let mut pos = 0;
    let round = |f: &mut SseFramer, buf: &mut Vec<u8>, eof: bool, out: &mut Vec<SseItem>| loop {
        let d = if eof { f.finish(buf) } else { f.decode(buf) };
        let consumed = d.consumed;
        match &d.status {
            Status::Partial => {
                drop(d);
                buf.drain(..consumed);
                return;
            }
            Status::Complete(Ok(ev)) => {
                if let Some(r) = ev.data_range() {
                    assert_eq!(&buf[r], ev.data(), "zero-copy range");
                    assert_eq!(ev.data_lines(), 1);
                }
                check_positions(input, &starts, ev);
                out.push(Ok(RefEvent {
                    data: ev.data().to_vec(),
                    has_data: ev.has_data(),
                    event: ev.event().map(<[u8]>::to_vec),
                    id: ev.id().map(<[u8]>::to_vec),
                    retry: ev.retry(),
                    offset: ev.offset(),
                    line: ev.line(),
                }));
            }
            Status::Complete(Err(e)) => out.push(Err((e.kind(), e.offset(), e.line()))),
        }
        drop(d);
        buf.drain(..consumed);
    };
    for &n in reads {
        buf.extend_from_slice(&input[pos..pos + n]);
        pos += n;
        round(&mut f, &mut buf, false, &mut out);
        // Memory bound: a retained data line plus a partial line.
        assert!(
            buf.len() <= 2 * (max_line + 2),
            "pending {} bytes",
            buf.len()
        );
    }
    round(&mut f, &mut buf, true, &mut out);
    assert!(buf.is_empty());
    (out, f)
}

const BIG: usize = 4 * 1024 * 1024;

fn one_read(input: &[u8]) -> Vec<SseItem> {
    feed(input, &[input.len()], BIG, BIG + 64).0
}

#[test]
fn captures_match_reference() {
    let files = capture_files(".sse");
    if files.is_empty() {
        return;
    }
    let (mut events, mut messages, mut unterminated) = (0, 0, 0);
    for path in &files {
        let input = std::fs::read(path).unwrap();
        let expect = reference_sse(&input);
        let (got, f) = feed(&input, &[input.len()], BIG, BIG + 64);
        assert_eq!(got, expect, "{path:?} one read");
        assert!(f.bytes_examined() <= 2 * input.len() as u64);
        for seed in 0..3 {
            let reads = random_reads(input.len(), [64, 1000, 7][seed as usize], seed);
            let (got, f) = feed(&input, &reads, BIG, BIG + 64);
            assert_eq!(got, expect, "{path:?} random reads seed {seed}");
            assert!(
                f.bytes_examined() <= 2 * input.len() as u64,
                "{path:?} rescanned"
            );
        }
        if input.len() <= 2048 {
            for k in 0..=input.len() {
                let (got, _) = feed(&input, &split_at(input.len(), k), BIG, BIG + 64);
                assert_eq!(got, expect, "{path:?} split at {k}");
            }
            assert_eq!(
                feed(&input, &vec![1; input.len()], BIG, BIG + 64).0,
                expect,
                "{path:?} bytewise"
            );
        }
        for item in &expect {
            match item {
                Ok(ev) => {
                    events += 1;
                    if !ev.data.is_empty() {
                        messages += 1;
                        assert!(
                            ev.data.starts_with(b"{") && ev.data.ends_with(b"}"),
                            "{path:?}"
                        );
                    }
                }
                Err((FrameErrorKind::UnterminatedEvent, ..)) => unterminated += 1,
                Err(e) => panic!("{path:?}: {e:?}"),
            }
        }
    }
    println!(
        "{} files, {events} events, {messages} messages, {unterminated} unterminated",
        files.len()
    );
    assert!(messages > 250, "{messages}");
}

#[test]
fn line_ends_cr_lf_crlf_split_everywhere() {
    let input = "\u{feff}event: message\rdata: {\"a\":\"é😀\"}\r\n\r\nid: 7\ndata: x\ndata:  y\n\n: keep-alive\r\r\ndata\r\n\r\n".as_bytes();
    let expect = one_read(input);
    assert_eq!(expect, reference_sse(input));
    assert_eq!(expect.len(), 3, "{expect:?}");
    let e0 = expect[0].as_ref().unwrap();
    assert_eq!(
        (&e0.data[..], e0.event.as_deref(), e0.offset, e0.line),
        ("{\"a\":\"é😀\"}".as_bytes(), Some(&b"message"[..]), 3, 1)
    );
    let e1 = expect[1].as_ref().unwrap();
    assert_eq!(
        (&e1.data[..], e1.id.as_deref()),
        (&b"x\n y"[..], Some(&b"7"[..]))
    );
    let e2 = expect[2].as_ref().unwrap();
    assert_eq!((&e2.data[..], e2.has_data), (&b""[..], true));
    same_at_every_split(input, &expect);
}

/// Feeds `input` split at every pair of points: the same items as `expect` each time (and
/// `feed`'s own checks, positions included, on every split).
fn same_at_every_split(input: &[u8], expect: &[SseItem]) {
    for i in 0..=input.len() {
        for j in i..=input.len() {
            let reads = [i, j - i, input.len() - j];
            assert_eq!(
                feed(input, &reads, BIG, BIG + 64).0,
                expect,
                "split at {i},{j}"
            );
        }
    }
}

/// Error offsets in joined data: each `data:` value of a multi-line event maps to its own
/// line, with comments, other fields and every line-end kind between the values, a BOM
/// before a first-line value, and a stream split at every pair of points (`feed` checks every
/// position of every event against the stream; this input makes sure those checks meet joined
/// data). Before, positions past the first value were the first value's offset plus the
/// index in the joined data (README: "approximate").
#[test]
fn data_positions_of_joined_values_split_everywhere() {
    let input = "\u{feff}data: {\"a\":\r: ping\r\ndata:1,\nid: 9\ndata:   \"b\":[]}\r\n\r\ndata: x\r\rdata:y\n\n".as_bytes();
    let (items, _) = feed(input, &[input.len()], BIG, BIG + 64);
    assert_eq!(items.len(), 3, "{items:?}");
    // The first event's data is `{"a":` LF `1,` LF `  "b":[]}`: its last value starts on line 5
    // after `data: ` (column 7), at stream offset 43.
    let mut f = SseFramer::new();
    let d = f.finish(input);
    let Status::Complete(Ok(ev)) = d.status else {
        panic!("{:?}", d.status)
    };
    assert_eq!(ev.data(), &b"{\"a\":\n1,\n  \"b\":[]}"[..]);
    let lines: Vec<_> = ev.data_line_starts().collect();
    let got: Vec<_> = lines
        .iter()
        .map(|d| (d.at, d.pos.line, d.pos.col, d.pos.offset))
        .collect();
    assert_eq!(got, [(0, 1, 10, 9), (6, 3, 6, 28), (9, 5, 7, 43)]);
    assert_eq!(
        ev.data_position(5).map(|p| p.offset),
        Some(14),
        "the CR ending line 1"
    );
    same_at_every_split(input, &items);
}

/// Memory bound of the data positions (review, session 9): each `data:` line kept a 32-byte
/// start, so a 4 MiB event of empty `data:` lines held 128 MiB of positions. At most
/// `MAX_DATA_LINE_STARTS` later starts are kept: positions are exact through the last kept
/// line (boundary: one line more or fewer), unknown past it.
#[test]
fn data_line_starts_are_bounded() {
    for lines in [
        MAX_DATA_LINE_STARTS,
        MAX_DATA_LINE_STARTS + 1,
        MAX_DATA_LINE_STARTS + 2,
        100_000,
    ] {
        let input = format!("{}\n", "data:\n".repeat(lines));
        let (items, _) = feed(input.as_bytes(), &[input.len()], BIG, BIG + 64);
        assert_eq!(items.len(), 1);
        let mut f = SseFramer::new();
        let d = f.finish(input.as_bytes());
        let Status::Complete(Ok(ev)) = d.status else {
            panic!("{:?}", d.status)
        };
        let starts: Vec<_> = ev.data_line_starts().collect();
        let unknown = starts.iter().filter(|d| d.pos.line == 0).count();
        assert_eq!(starts.len(), lines.min(MAX_DATA_LINE_STARTS + 2), "{lines}");
        assert_eq!(
            unknown,
            usize::from(lines > MAX_DATA_LINE_STARTS + 1),
            "{lines}"
        );
        // The last kept value: line MAX + 1, at index MAX in the data (one LF per line).
        let last = MAX_DATA_LINE_STARTS.min(lines - 1);
        let p = ev.data_position(last).unwrap();
        assert_eq!(
            (p.line, p.col, p.offset),
            (last as u64 + 1, 6, 6 * last as u64 + 5)
        );
        if lines > MAX_DATA_LINE_STARTS + 1 {
            assert_eq!(ev.data_position(MAX_DATA_LINE_STARTS + 1), None);
        }
    }
}

/// `set_max_data_line_starts`: a smaller cap at the boundary and one line either side, no
/// cap (every start kept, what the CLI uses), and `reset` keeps the setting.
#[test]
fn data_line_starts_cap_is_configurable() {
    for (cap, lines) in [(2, 3), (2, 4), (2, 5), (usize::MAX, 5000)] {
        let input = format!("{}\n", "data:\n".repeat(lines));
        let mut f = SseFramer::new();
        f.set_max_data_line_starts(cap);
        f.reset();
        let d = f.finish(input.as_bytes());
        let Status::Complete(Ok(ev)) = d.status else {
            panic!("{:?}", d.status)
        };
        let starts: Vec<_> = ev.data_line_starts().collect();
        let kept = lines.min(cap.saturating_add(2));
        assert_eq!(starts.len(), kept, "{cap} {lines}");
        let unknown = starts.iter().filter(|d| d.pos.line == 0).count();
        assert_eq!(
            unknown,
            usize::from(lines > cap.saturating_add(1)),
            "{cap} {lines}"
        );
        let last = lines - 1;
        let known = ev.data_position(last);
        if lines <= cap.saturating_add(1) {
            let p = known.unwrap();
            assert_eq!((p.line, p.offset), (lines as u64, 6 * last as u64 + 5));
        } else {
            assert_eq!(known, None, "{cap} {lines}");
        }
    }
}

#[test]
fn cr_at_end_of_read_then_lf_is_one_line_end() {
    let input = b"data: 1\r\n\r\ndata: 2\r\n\r\n";
    let expect = one_read(input);
    assert_eq!(expect.len(), 2);
    // CR ends the first read, LF starts the next, at each line end.
    for k in [8, 10, 19, 21] {
        assert_eq!(input[k - 1], b'\r');
        assert_eq!(
            feed(input, &split_at(input.len(), k), BIG, BIG + 64).0,
            expect,
            "k {k}"
        );
    }
    assert_eq!(expect[1].as_ref().unwrap().line, 3);
}

#[test]
fn bom_split_across_reads_is_stripped_once() {
    let input = b"\xEF\xBB\xBFdata: 1\n\n";
    for k in 0..=4 {
        let (got, f) = feed(input, &split_at(input.len(), k), BIG, BIG + 64);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ref().unwrap().data, b"1");
        assert!(f.bom_stripped());
    }
    // A second BOM is not stripped: it becomes part of a field name (ignored field).
    let (got, _) = feed(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\n", &[15], BIG, BIG + 64);
    assert!(!got[0].as_ref().unwrap().has_data);
}

#[test]
fn priming_event_and_comment_only_blocks() {
    let input = b"id: 1\r\ndata: \r\nretry: 500\r\n\r\n:\r\n\r\n: ping\n\nretry: x\n\n";
    let got = one_read(input);
    assert_eq!(got, reference_sse(input));
    // Priming event returned (not a message); comment blocks give nothing; an invalid retry
    // still makes an (empty) event because the field line was seen.
    assert_eq!(got.len(), 2);
    let p = got[0].as_ref().unwrap();
    assert_eq!(
        (p.has_data, p.data.is_empty(), p.retry, p.id.as_deref()),
        (true, true, Some(500), Some(&b"1"[..]))
    );
    assert_eq!(got[1].as_ref().unwrap().retry, None);
}

#[test]
fn id_with_nul_is_ignored_and_unknown_fields_too() {
    let input = b"id: a\0b\nfoo: bar\ndata: 1\n\n";
    let got = one_read(input);
    assert_eq!(got, reference_sse(input));
    assert_eq!(got[0].as_ref().unwrap().id, None);
}

#[test]
fn unterminated_event_at_end_of_stream() {
    for (input, offset, line) in [
        (
            &b"data: 1\n\nevent: message\ndata: {\"a\"\n"[..],
            9u64,
            3u64,
        ),
        (&b"data: 1\n\ndata: {\"a\""[..], 9, 3),
        (&b"data: 1\n\nid"[..], 9, 3),
    ] {
        let got = one_read(input);
        assert_eq!(got, reference_sse(input));
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            Err((FrameErrorKind::UnterminatedEvent, offset, line))
        );
    }
    // A trailing comment or blank lines are not an event.
    assert_eq!(one_read(b"data: 1\n\n: bye").len(), 1);
    assert_eq!(one_read(b"data: 1\n\n\n\n").len(), 1);
}

#[test]
fn event_limit_at_boundary_and_one_byte_either_side() {
    let max = 16;
    for len in [max - 1, max, max + 1] {
        // Single line.
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', len));
        input.extend_from_slice(b"\n\ndata: ok\n\n");
        let (got, _) = feed(&input, &[input.len()], max, 1024);
        if len <= max {
            assert_eq!(got[0].as_ref().unwrap().data.len(), len);
        } else {
            assert_eq!(got[0], Err((FrameErrorKind::EventTooLarge, 0, 1)));
        }
        assert_eq!(got[1].as_ref().unwrap().data, b"ok", "stream goes on");
        assert_eq!(got.len(), 2);
        for k in 0..=input.len() {
            assert_eq!(
                feed(&input, &split_at(input.len(), k), max, 1024).0,
                got,
                "len {len} k {k}"
            );
        }
        // Joined: two lines of (len - 1) / 2 and the rest plus the LF between them.
        let a = (len - 1) / 2;
        let b = len - 1 - a;
        let mut input = b"id: 1\ndata: ".to_vec();
        input.extend(std::iter::repeat_n(b'a', a));
        input.extend_from_slice(b"\ndata: ");
        input.extend(std::iter::repeat_n(b'b', b));
        input.extend_from_slice(b"\ndata: more?\n\ndata: ok\n\n");
        // The third data line pushes it over in every case but shows the joined limit; test
        // the first two lines alone too.
        let two = {
            let mut v = input.clone();
            let cut = v.windows(13).position(|w| w == b"\ndata: more?\n").unwrap();
            v.drain(cut..cut + 12);
            v
        };
        let (got, _) = feed(&two, &[two.len()], max, 1024);
        if len <= max {
            assert_eq!(
                got[0].as_ref().unwrap().data.len(),
                len,
                "{:?}",
                String::from_utf8_lossy(&two)
            );
        } else {
            assert_eq!(got[0], Err((FrameErrorKind::EventTooLarge, 0, 1)));
        }
        assert_eq!(got[1].as_ref().unwrap().data, b"ok");
        for k in 0..=two.len() {
            assert_eq!(
                feed(&two, &split_at(two.len(), k), max, 1024).0,
                got,
                "joined len {len} k {k}"
            );
        }
    }
}

#[test]
fn line_limit_at_boundary_and_one_byte_either_side() {
    let max_line = 20;
    for len in [max_line - 1, max_line, max_line + 1] {
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', len - 6));
        input.extend_from_slice(b"\r\n\r\ndata: ok\r\n\r\n");
        let (got, _) = feed(&input, &[input.len()], 1024, max_line);
        if len <= max_line {
            assert_eq!(got[0].as_ref().unwrap().data.len(), len - 6);
        } else {
            assert_eq!(got[0], Err((FrameErrorKind::LineTooLong, 0, 1)));
        }
        assert_eq!(got[1].as_ref().unwrap().data, b"ok");
        assert_eq!(got[1].as_ref().unwrap().line, 3);
        for k in 0..=input.len() {
            assert_eq!(
                feed(&input, &split_at(input.len(), k), 1024, max_line).0,
                got,
                "len {len} k {k}"
            );
        }
        assert_eq!(feed(&input, &vec![1; input.len()], 1024, max_line).0, got);
    }
}

/// A `data:` line over the line limit whose value takes the event's data over the event limit
/// is `EventTooLarge` (-32600 / 413), as a data line ending within the line limit is: with the
/// default limits (line = event + 64) every overlong data line is such a line. Found by a
/// new-user trial: a 5 MB single-line event gave `line-too-long`, which has no JSON-RPC code
/// or HTTP status. Lines that do not carry data over the limit stay `LineTooLong`.
#[test]
fn overlong_data_line_is_event_too_large() {
    let (max_event, max_line) = (20, 84);
    // Value lengths: at the event limit, one over (line ends within the line limit), and
    // around the line limit (`data: ` + 78 = 84).
    for value_len in [19, 20, 21, 77, 78, 79, 80, 500] {
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', value_len));
        input.extend_from_slice(b"\n\ndata: ok\n\n");
        let (got, _) = feed(&input, &[input.len()], max_event, max_line);
        if value_len <= max_event {
            assert_eq!(got[0].as_ref().unwrap().data.len(), value_len);
        } else {
            assert_eq!(
                got[0],
                Err((FrameErrorKind::EventTooLarge, 0, 1)),
                "value {value_len}"
            );
        }
        assert_eq!(got[1].as_ref().unwrap().data, b"ok", "value {value_len}");
        for k in 0..=input.len() {
            assert_eq!(
                feed(&input, &split_at(input.len(), k), max_event, max_line).0,
                got,
                "value {value_len} k {k}"
            );
        }
    }
    // The second data line of an event: joined data over the event limit.
    let mut input = b"event: message\ndata: 0123456789\ndata: ".to_vec();
    input.extend(std::iter::repeat_n(b'y', 100));
    input.extend_from_slice(b"\n\ndata: ok\n\n");
    let (got, _) = feed(&input, &[input.len()], max_event, max_line);
    assert_eq!(got[0], Err((FrameErrorKind::EventTooLarge, 0, 1)));
    assert_eq!(got[1].as_ref().unwrap().data, b"ok");
    // Over the line limit but not over the event limit (a line limit below the event
    // limit), and a non-data line: `LineTooLong`.
    for (input, max_event, max_line) in [
        (&b"data: 0123456789\n\ndata: ok\n\n"[..], 1024, 12),
        (
            &b"event: 0123456789abcdef\ndata: x\n\ndata: ok\n\n"[..],
            4,
            12,
        ),
        (&b": a long comment line\n\ndata: ok\n\n"[..], 4, 12),
    ] {
        let (got, _) = feed(input, &[input.len()], max_event, max_line);
        assert_eq!(
            got[0],
            Err((FrameErrorKind::LineTooLong, 0, 1)),
            "{input:?}"
        );
        assert_eq!(got[1].as_ref().unwrap().data, b"ok");
    }
}

/// Hostile trial, session 21: a comment (or an `id:`, `retry:` or unknown field) over the line
/// limit dropped the rest of its event, so the message after it was never validated, while a
/// WHATWG reader ignores such a line and dispatches the event. Now only the line is dropped:
/// `LineTooLong` at the line's start, then the event. An overlong `event:` or `data:` line
/// still drops the event (its type, or its data, is not known). Limits: line 20, event 100;
/// each input at the limit, one byte under and one over, at every split and byte by byte.
#[test]
fn overlong_ignored_line_drops_only_itself() {
    const MAX_LINE: usize = 20;
    /// The event kept after the long line: data, id, first line.
    type Kept = Option<(&'static [u8], Option<&'static [u8]>, u64)>;
    // (line prefix, what follows it, the event when kept).
    let cases: &[(&[u8], &[u8], Kept)] = &[
        (b":", b"\ndata: m\n\n", Some((b"m", None, 2))),
        (b": ", b"\ndata: m\n\n", Some((b"m", None, 2))),
        (b"id: ", b"\ndata: m\n\n", Some((b"m", None, 2))),
        (b"retry: 1", b"\ndata: m\n\n", Some((b"m", None, 2))),
        (b"foo: ", b"\ndata: m\n\n", Some((b"m", None, 2))),
        (b"xxxxxxx", b"\ndata: m\n\n", Some((b"m", None, 2))),
        // After the data line (zero-copy until then) and an id: the event keeps its data,
        // joins the next data line, and keeps its id.
        (
            b"data: a\nid: 5\n: ",
            b"\ndata: b\n\n",
            Some((b"a\nb", Some(b"5"), 1)),
        ),
        // A long id replaces an earlier one, but its value is not kept: no id.
        (b"id: 5\nid: ", b"\ndata: b\n\n", Some((b"b", None, 1))),
        // Still the whole event: its type or its data is unknown.
        (b"event: ", b"\ndata: m\n\n", None),
        (b"data: m\nevent: ", b"\n\n", None),
    ];
    for &(prefix, rest, want) in cases {
        // The long line is the last line of `prefix`, padded to `len` bytes.
        let line_start = prefix
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        for len in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1] {
            let mut input = prefix.to_vec();
            input.resize(line_start + len, b'7');
            input.extend_from_slice(rest);
            input.extend_from_slice(b"data: ok\n\n");
            let (got, _) = feed(&input, &[input.len()], 100, MAX_LINE);
            let last = got.last().unwrap().as_ref().unwrap();
            assert_eq!(last.data, b"ok", "{input:?}");
            if len > MAX_LINE {
                let line = 1 + prefix[..line_start].iter().filter(|&&b| b == b'\n').count();
                // At the long line, or at the start of the event dropped with it.
                let at = match want {
                    Some(_) => (line_start as u64, line as u64),
                    None => (0, 1),
                };
                assert_eq!(
                    got[0],
                    Err((FrameErrorKind::LineTooLong, at.0, at.1)),
                    "{input:?}"
                );
                match want {
                    Some((data, id, line)) => {
                        assert_eq!(got.len(), 3, "{input:?}: {got:?}");
                        let ev = got[1].as_ref().unwrap();
                        assert_eq!((&ev.data[..], ev.id.as_deref(), ev.line), (data, id, line));
                        assert_eq!(ev.offset, if line == 1 { 0 } else { len as u64 + 1 });
                    }
                    None => assert_eq!(got.len(), 2, "{input:?}: {got:?}"),
                }
            } else {
                assert!(got.iter().all(Result::is_ok), "{input:?}: {got:?}");
            }
            for k in 0..=input.len() {
                assert_eq!(
                    feed(&input, &split_at(input.len(), k), 100, MAX_LINE).0,
                    got,
                    "{input:?} k {k}"
                );
            }
            assert_eq!(feed(&input, &vec![1; input.len()], 100, MAX_LINE).0, got);
        }
    }
    // The trial's input at the default limits: a 4 MiB + 65-byte comment, then a message
    // with a raw control character. The message is a frame (for the validator to reject).
    let mut input = vec![b':'];
    input.resize(4 * 1024 * 1024 + 65, b'c');
    input.extend_from_slice(
        b"\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"\x01\"}}\n\n",
    );
    let mut f = SseFramer::new();
    let mut items = Vec::new();
    let mut pos = 0;
    loop {
        let d = f.finish(&input[pos..]);
        match &d.status {
            Status::Partial => break,
            Status::Complete(Ok(ev)) => items.push(Ok(ev.data().to_vec())),
            Status::Complete(Err(e)) => items.push(Err((e.kind(), e.offset()))),
        }
        pos += d.consumed;
    }
    assert_eq!(
        items.len(),
        2,
        "{:?}",
        items
            .iter()
            .map(|i| i.as_ref().map(Vec::len))
            .collect::<Vec<_>>()
    );
    assert_eq!(items[0], Err((FrameErrorKind::LineTooLong, 0)));
    assert!(items[1].as_ref().unwrap().starts_with(b"{\"jsonrpc\""));
}

#[test]
fn four_mb_data_line_in_64_byte_reads_is_linear() {
    let mut input = b"event: message\r\ndata: ".to_vec();
    input.extend(std::iter::repeat_n(b'a', 4_000_000));
    input.extend_from_slice(b"\r\n\r\n");
    let mut reads = vec![64; input.len() / 64];
    reads.push(input.len() % 64);
    let (got, f) = feed(&input, &reads, 4_000_000, 4_000_064);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_ref().unwrap().data.len(), 4_000_000);
    // Line-end search once per byte plus field names (up to the colon).
    assert!(
        f.bytes_examined() <= input.len() as u64 + 16,
        "{} examined",
        f.bytes_examined()
    );
}

/// Hostile trial (session 13): misspelt field names (`Data:`, `data :`, ` data:`, a second
/// BOM before `data:` mid-stream) make the standard ignore the line, so the value is lost
/// and the event carries no data. `SseFramer::unknown_fields` counts such lines (split
/// anywhere, the same count); the known fields, comments and blank lines are not counted.
#[test]
fn unknown_field_names_are_counted() {
    let input = b"Data: M\n\ndata : M\n\n\xef\xbb\xbf\xef\xbb\xbfdata: M\n\n data: M\n\nfoo\n\n";
    let known = b"\xef\xbb\xbf: c\nevent: x\nid: 1\nretry: 5\ndata: {}\n\ndata:\n\n";
    for (stream, want, with_data) in [(&input[..], 5, 0), (&known[..], 0, 1)] {
        for split in 0..=stream.len() {
            let mut f = SseFramer::new();
            let mut got = 0;
            let mut buf = Vec::new();
            for (part, last) in [(&stream[..split], false), (&stream[split..], true)] {
                buf.extend_from_slice(part);
                loop {
                    let d = if last { f.finish(&buf) } else { f.decode(&buf) };
                    let consumed = d.consumed;
                    let done = match d.status {
                        Status::Partial => true,
                        Status::Complete(Ok(ev)) => {
                            got += usize::from(!ev.data().is_empty());
                            false
                        }
                        Status::Complete(Err(e)) => panic!("{e}"),
                    };
                    buf.drain(..consumed);
                    if done {
                        break;
                    }
                }
            }
            assert_eq!(f.unknown_fields(), want, "split {split}");
            assert_eq!(got, with_data, "split {split}");
        }
    }
}

/// Hostile trial (session 14): a caller that broke the buffer contract (a shorter buffer than
/// the bytes the framer kept) made `SseFramer::decode` panic on a slice index. Release builds
/// now drop the event in progress and go on from a line start (no panic, no out-of-bounds
/// read); debug builds assert, to catch the caller's bug. Exact inputs of the trial.
#[test]
#[cfg(not(debug_assertions))]
fn a_broken_buffer_contract_does_not_panic() {
    let mut f = SseFramer::new();
    let _ = f.decode(b"data: aaaaaaaaaaaaaaaaaaaaaaaa");
    let d = f.decode(b"d\n\n");
    assert!(d.consumed <= 3);
    let mut f = SseFramer::new();
    let _ = f.decode(b"data: aaaa\ndata: bbbbbbbbbbbbb");
    let _ = f.decode(b"\n\n");
    let _ = f.finish(b"");
    // The framer goes on: a well-formed event after the broken call is framed.
    let mut f = SseFramer::new();
    let _ = f.decode(b"data: aaaaaaaaaaaaaaaaaaaaaaaa");
    let d = f.decode(b"\ndata: {}\n\n");
    let Status::Complete(Ok(ev)) = &d.status else {
        panic!("{:?}", d.status.is_partial())
    };
    assert_eq!(ev.data(), b"{}");
}

/// The same misuse in a debug build is an assertion naming the contract.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "buffer contract broken")]
fn a_broken_buffer_contract_asserts_in_debug_builds() {
    let mut f = SseFramer::new();
    let _ = f.decode(b"data: aaaaaaaaaaaaaaaaaaaaaaaa");
    let _ = f.decode(b"d\n\n");
}
