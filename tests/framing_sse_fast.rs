//! The SSE framer's whole-event fast path against its line-by-line path: the same stream fed
//! in the same reads to a framer with the fast path and one without gives the same result at
//! every call (consumed bytes, event fields including the zero-copy range, errors, counters),
//! and the same events as the reference framer (`mcpwire::oracle::framing`). Streams mix
//! fast-path events (`[event: message]` + one `data:` line + blank line, LF / CRLF / CR) with
//! everything the fast path must leave alone: ids, retry, comments, several data lines, other
//! event names, fields without a colon, stray bytes, a BOM, a truncated tail, small limits.

use std::ops::Range;

use mcpwire::framing::sse::{DataLineStart, SseFramer};
use mcpwire::framing::{Decoded, FrameError, FrameErrorKind, Status};
use mcpwire::oracle::framing::{check_sse_splits, reads};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

const BIG: usize = 4 * 1024 * 1024;

/// Everything observable about one event.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ev {
    data: Vec<u8>,
    data_range: Option<Range<usize>>,
    has_data: bool,
    data_lines: u32,
    is_message: bool,
    event: Option<Vec<u8>>,
    event_type: Vec<u8>,
    id: Option<Vec<u8>>,
    /// The id's zero-copy range, when there is one, points at the id in the buffer (it is
    /// there only on the fast path, so it is checked, not compared).
    id_range_ok: bool,
    retry: Option<u64>,
    offset: u64,
    line: u64,
    data_offset: Option<u64>,
    data_line_starts: Vec<DataLineStart>,
}

/// One `decode` / `finish` call: its result and the framer's counters after it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    consumed: usize,
    item: Option<Result<Ev, FrameError>>,
    examined: u64,
    events: u64,
    comments: u64,
    bom_stripped: bool,
}

fn call(f: &mut SseFramer, buf: &[u8], eof: bool) -> Call {
    let d: Decoded<_> = if eof { f.finish(buf) } else { f.decode(buf) };
    let item = match d.status {
        Status::Partial => None,
        Status::Complete(Err(e)) => Some(Err(e)),
        Status::Complete(Ok(ev)) => Some(Ok(Ev {
            data: ev.data().to_vec(),
            data_range: ev.data_range(),
            has_data: ev.has_data(),
            data_lines: ev.data_lines(),
            is_message: ev.is_message(),
            event: ev.event().map(<[u8]>::to_vec),
            event_type: ev.event_type().to_vec(),
            id: ev.id().map(<[u8]>::to_vec),
            id_range_ok: ev.id_range().is_none_or(|r| ev.id() == Some(&buf[r])),
            retry: ev.retry(),
            offset: ev.offset(),
            line: ev.line(),
            data_offset: ev.data_offset(),
            data_line_starts: ev.data_line_starts().collect(),
        })),
    };
    Call {
        consumed: d.consumed,
        item,
        examined: f.bytes_examined(),
        events: f.events(),
        comments: f.comments(),
        bom_stripped: f.bom_stripped(),
    }
}

/// Feeds `reads` to a framer with the fast path and one without, in lockstep under the buffer
/// contract (decode until partial after each read, finish until partial at the end), and
/// requires identical calls. Returns every call and the fast-path event count.
fn lockstep(
    reads: &[&[u8]],
    max_event: usize,
    max_line: usize,
) -> Result<(Vec<Call>, u64), String> {
    let mut fast = SseFramer::with_limits(max_event, max_line);
    let mut slow = SseFramer::with_limits(max_event, max_line);
    slow.set_fast_path(false);
    let mut buf: Vec<u8> = Vec::new();
    let mut calls = Vec::new();
    let total: usize = reads.iter().map(|r| r.len()).sum();
    for (n, read) in reads.iter().enumerate() {
        buf.extend_from_slice(read);
        let eof = n + 1 == reads.len();
        loop {
            let a = call(&mut fast, &buf, eof);
            let b = call(&mut slow, &buf, eof);
            if let Some(Ok(ev)) = &a.item
                && let Some(r) = &ev.data_range
                && buf[r.clone()] != ev.data[..]
            {
                return Err(format!("zero-copy range {r:?} is not the data"));
            }
            if a != b {
                return Err(format!(
                    "call {} of read {n}, buffer {:?}:\n fast: {a:?}\n slow: {b:?}",
                    calls.len(),
                    String::from_utf8_lossy(&buf)
                ));
            }
            buf.drain(..a.consumed);
            let partial = a.item.is_none();
            calls.push(a);
            if calls.len() > 2 * total + 2 * reads.len() + 16 {
                return Err("no progress".into());
            }
            if partial {
                break;
            }
        }
    }
    if !buf.is_empty() {
        return Err(format!("{} bytes left after finish", buf.len()));
    }
    if slow.fast_path_events() != 0 {
        return Err("the fast path ran while switched off".into());
    }
    Ok((calls, fast.fast_path_events()))
}

// ===== stream generator =====

#[derive(Clone, Debug)]
enum Line {
    /// `data:` with or without the space.
    Data(Vec<u8>, bool),
    /// `data` without a colon (a data field with an empty value).
    DataNoColon,
    /// `event:` + `message`, with or without the space.
    EventMessage(bool),
    /// `event:` + another value (or `message` with two spaces, or `messages`).
    Event(Vec<u8>),
    /// `id:` with or without the space.
    Id(Vec<u8>, bool),
    Retry(Vec<u8>),
    Comment(Vec<u8>),
    Unknown(Vec<u8>),
    /// Raw bytes, line ends included (anything).
    Raw(Vec<u8>),
    Blank,
}

fn eol() -> impl Strategy<Value = &'static [u8]> {
    prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..])]
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => Just(b'a'),
        1 => Just(b' '),
        1 => Just(b':'),
        1 => Just(b'{'),
        1 => Just(b'"'),
        1 => Just(0u8),
        1 => Just(0xEFu8),
        1 => Just(b'7'),
    ];
    prop::collection::vec(byte, 0..24)
}

fn raw() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        Just(b'\r'),
        Just(b'\n'),
        Just(b':'),
        Just(b' '),
        Just(b'd'),
        Just(b'a'),
        Just(b't'),
        Just(0xEFu8),
        Just(0xBBu8),
        Just(0xBFu8),
    ];
    prop::collection::vec(byte, 0..12)
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        4 => (value(), any::<bool>()).prop_map(|(v, s)| Line::Data(v, s)),
        1 => Just(Line::DataNoColon),
        2 => any::<bool>().prop_map(Line::EventMessage),
        1 => prop_oneof![
            value(),
            Just(b" message".to_vec()),
            Just(b"messages".to_vec()),
            Just(b"message ".to_vec()),
            Just(Vec::new()),
        ]
        .prop_map(Line::Event),
        1 => (value(), any::<bool>()).prop_map(|(v, s)| Line::Id(v, s)),
        1 => prop_oneof![Just(b"500".to_vec()), value()].prop_map(Line::Retry),
        1 => value().prop_map(Line::Comment),
        1 => value().prop_map(Line::Unknown),
        1 => raw().prop_map(Line::Raw),
        1 => Just(Line::Blank),
    ]
}

/// A block: a fast-path event (mostly) or any lines, each with its line end.
fn block() -> impl Strategy<Value = Vec<(Line, &'static [u8])>> {
    let fast = (
        prop::option::of(any::<bool>()),
        eol(),
        prop::option::of((value(), any::<bool>(), any::<bool>(), eol())),
        value(),
        any::<bool>(),
        eol(),
        eol(),
    )
        .prop_map(|(event, e1, id, v, space, e2, e3)| {
            let mut b = Vec::new();
            if let Some(s) = event {
                b.push((Line::EventMessage(s), e1));
            }
            // An `id:` line (with or without the space) before or after the event line.
            if let Some((id, space, first, e)) = id {
                let at = if first { 0 } else { b.len() };
                b.insert(at, (Line::Id(id, space), e));
            }
            b.push((Line::Data(v, space), e2));
            b.push((Line::Blank, e3));
            b
        });
    let any_lines = (prop::collection::vec((line(), eol()), 0..5), eol()).prop_map(|(mut v, e)| {
        v.push((Line::Blank, e));
        v
    });
    prop_oneof![3 => fast, 2 => any_lines]
}

fn render(lines: &[(Line, &'static [u8])], out: &mut Vec<u8>) {
    for (l, e) in lines {
        // Each line is a field name (colon and space included) and a value.
        let (name, value): (&[u8], &[u8]) = match l {
            Line::Data(v, space) => (if *space { b"data: " } else { b"data:" }, v),
            Line::DataNoColon => (b"data", b""),
            Line::EventMessage(space) => {
                let name: &[u8] = if *space {
                    b"event: message"
                } else {
                    b"event:message"
                };
                (name, b"")
            }
            Line::Event(v) => (b"event:", v),
            Line::Id(v, space) => (if *space { b"id: " } else { b"id:" }, v),
            Line::Retry(v) => (b"retry: ", v),
            Line::Comment(v) => (b":", v),
            Line::Unknown(v) => (b"x-field: ", v),
            Line::Raw(v) => {
                out.extend_from_slice(v);
                continue;
            }
            Line::Blank => (b"", b""),
        };
        out.extend_from_slice(name);
        out.extend_from_slice(value);
        out.extend_from_slice(e);
    }
}

#[derive(Clone, Debug)]
struct Case {
    stream: Vec<u8>,
    splits: Vec<usize>,
    bytewise: bool,
    limits: Option<(usize, usize)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![3 => Just(0usize), 1 => Just(1), 1 => Just(2), 2 => Just(3)],
        prop::collection::vec(block(), 0..8),
        prop::option::weighted(0.25, any::<prop::sample::Index>()),
        prop::collection::vec(0usize..512, 0..8),
        prop::bool::weighted(0.1),
        prop::option::weighted(
            0.3,
            prop_oneof![(0usize..32, 0usize..48), (0usize..32, Just(BIG))],
        ),
    )
        .prop_map(|(bom, blocks, cut, splits, bytewise, limits)| {
            let mut stream = b"\xEF\xBB\xBF"[..bom].to_vec();
            for b in &blocks {
                render(b, &mut stream);
            }
            if let Some(c) = cut {
                stream.truncate(c.index(stream.len() + 1));
            }
            Case {
                stream,
                splits,
                bytewise,
                limits,
            }
        })
}

fn check(c: &Case) -> Result<u64, TestCaseError> {
    let (ev_max, line_max) = c.limits.unwrap_or((BIG, BIG + 64));
    let whole = lockstep(&[&c.stream[..]], ev_max, line_max).map_err(TestCaseError::fail)?;
    let split_reads: Vec<&[u8]> = if c.bytewise {
        let mut v: Vec<&[u8]> = c.stream.chunks(1).collect();
        v.push(&[]);
        v
    } else {
        reads(&c.stream, &c.splits)
    };
    let split = lockstep(&split_reads, ev_max, line_max).map_err(TestCaseError::fail)?;
    // Split invariance of the items (not of the calls: a split read has more partials).
    let items = |calls: &[Call]| -> Vec<Result<Ev, FrameError>> {
        calls
            .iter()
            .filter_map(|c| c.item.clone())
            .map(|r| {
                r.map(|mut e| {
                    e.data_range = None;
                    e
                })
            })
            .collect()
    };
    prop_assert_eq!(items(&whole.0), items(&split.0), "split reads vs one read");
    // And the reference framer (also run with the fast path on, in split reads).
    check_sse_splits(&c.stream, &c.splits, c.limits)
        .map_err(|d| TestCaseError::fail(d.to_string()))?;
    Ok(whole.1 + split.1)
}

#[test]
fn fast_path_agrees_with_line_by_line_path() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let fast = std::cell::Cell::new(0u64);
    runner
        .run(&case(), |c| {
            fast.set(fast.get() + check(&c)?);
            Ok(())
        })
        .unwrap();
    // The generator must actually exercise the fast path.
    assert!(
        fast.get() > u64::from(cases),
        "fast-path events {}",
        fast.get()
    );
}

// ===== hand-written cases =====

fn lockstep_ok(reads: &[&[u8]], max_event: usize, max_line: usize) -> (Vec<Call>, u64) {
    lockstep(reads, max_event, max_line).unwrap_or_else(|e| panic!("{e}"))
}

fn events(calls: &[Call]) -> Vec<Result<Ev, FrameError>> {
    calls.iter().filter_map(|c| c.item.clone()).collect()
}

/// The common event shapes, with every line end, all through the fast path; every split
/// point agrees with the line-by-line path.
#[test]
fn common_shapes_take_the_fast_path() {
    for ev in ["event: message", "event:message", ""] {
        for data in ["data: ", "data:"] {
            for eol in ["\n", "\r\n", "\r"] {
                let mut s = String::new();
                for payload in ["{\"a\":1}", "", " x: y "] {
                    if !ev.is_empty() {
                        s += ev;
                        s += eol;
                    }
                    s += data;
                    s += payload;
                    s += eol;
                    s += eol;
                }
                let s = s.as_bytes();
                let (calls, fast) = lockstep_ok(&[s], BIG, BIG + 64);
                let evs = events(&calls);
                assert_eq!(evs.len(), 3, "{s:?}");
                // A CR-ended blank line as the last byte still dispatches (no need for the
                // next byte), so all three go through the fast path.
                assert_eq!(fast, 3, "{:?}", String::from_utf8_lossy(s));
                let first = evs[0].as_ref().unwrap();
                assert_eq!(first.data, b"{\"a\":1}");
                assert_eq!(first.data_range.as_ref().map(|r| r.len()), Some(7));
                assert_eq!(first.event.is_some(), !ev.is_empty());
                for k in 0..=s.len() {
                    let (split, _) = lockstep_ok(&[&s[..k], &s[k..]], BIG, BIG + 64);
                    let strip = |v: Vec<Result<Ev, FrameError>>| -> Vec<_> {
                        v.into_iter()
                            .map(|r| {
                                r.map(|mut e| {
                                    e.data_range = None;
                                    e
                                })
                            })
                            .collect()
                    };
                    assert_eq!(strip(events(&split)), strip(evs.clone()), "split at {k}");
                }
            }
        }
    }
}

/// What the fast path leaves to the line-by-line path.
#[test]
fn ineligible_events_fall_back() {
    for s in [
        &b"data: x\nid: 1\n\n"[..],
        b"id: 1\nid: 2\ndata: x\n\n",
        b"id: 1\nevent: message\nid: 2\ndata: x\n\n",
        b"event: message\nid: 1\nevent: message\ndata: x\n\n",
        b"id: a\0b\ndata: x\n\n",
        b"id\ndata: x\n\n",
        b"id: 1\nretry: 5\ndata: x\n\n",
        b"id: 1\r",
        b"id: 1\ndata: x",
        b"id: 1\nevent: other\ndata: x\n\n",
        b": ka\n\n",
        b"data: a\ndata: b\n\n",
        b"event: other\ndata: x\n\n",
        b"event:  message\ndata: x\n\n",
        b"data\n\n",
        b"retry: 10\ndata: x\n\n",
        b"data: x\n: ka\n\n",
        b"data: x\n",
        b"data: x\r",
        b"event: message\r",
        b"event: message\ndata: x",
        b"data: x\rdata: y\r\r",
    ] {
        let (_, fast) = lockstep_ok(&[s], BIG, BIG + 64);
        assert_eq!(fast, 0, "{:?}", String::from_utf8_lossy(s));
        check_sse_splits(s, &[], None).unwrap();
    }
    // A comment before the event ends no event: the event after it is still a fast one.
    let (calls, fast) = lockstep_ok(&[b": ka\ndata: x\n\n"], BIG, BIG + 64);
    assert_eq!(fast, 1);
    assert_eq!(events(&calls)[0].as_ref().unwrap().offset, 5);
    // BOM split across reads, then a fast event.
    let (_, fast) = lockstep_ok(&[b"\xEF\xBB", b"\xBFdata: x\n\n"], BIG, BIG + 64);
    assert_eq!(fast, 1);
    // A CRLF split between reads after the blank line's CR: the LF is skipped at the start
    // of the next call and the next event is a fast one.
    let (calls, fast) = lockstep_ok(&[b"data: a\r\n\r", b"\ndata: b\r\n\r\n"], BIG, BIG + 64);
    assert_eq!(fast, 2);
    let e = events(&calls);
    assert_eq!(e[1].as_ref().unwrap().offset, 11);
    assert_eq!(e[1].as_ref().unwrap().line, 3);
}

/// The event limit at limit - 1, limit and limit + 1, through the fast path: the first two
/// are fast-path events, the third is the line-by-line path's `EventTooLarge` at the same
/// offset, and the stream goes on (with a fast event).
#[test]
fn event_limit_boundary_through_the_fast_path() {
    let max = 16;
    for ev in ["", "event: message\r\n"] {
        for len in [max - 1, max, max + 1] {
            let mut s = b"data: ok\r\n\r\n".to_vec();
            s.extend_from_slice(ev.as_bytes());
            s.extend_from_slice(b"data: ");
            s.extend(std::iter::repeat_n(b'x', len));
            s.extend_from_slice(b"\r\n\r\ndata: ok\r\n\r\n");
            let (calls, fast) = lockstep_ok(&[&s], max, 1024);
            let evs = events(&calls);
            assert_eq!(evs.len(), 3);
            let (second, line) = (12, 3);
            if len <= max {
                assert_eq!(fast, 3, "len {len}");
                let e = evs[1].as_ref().unwrap();
                assert_eq!((e.data.len(), e.offset, e.line), (len, second, line));
                assert_eq!(e.data_range.as_ref().map(|r| r.len()), Some(len));
            } else {
                assert_eq!(fast, 2, "len {len}");
                let e = evs[1].clone().unwrap_err();
                assert_eq!(
                    (e.kind(), e.offset(), e.line(), e.len()),
                    (FrameErrorKind::EventTooLarge, second, line, max + 1)
                );
            }
            assert_eq!(evs[2].as_ref().unwrap().data, b"ok");
            for k in 0..=s.len() {
                let (split, _) = lockstep_ok(&[&s[..k], &s[k..]], max, 1024);
                assert_eq!(
                    events(&split)
                        .into_iter()
                        .map(|r| r.map(|e| (e.data, e.offset, e.line)))
                        .collect::<Vec<_>>(),
                    evs.iter()
                        .cloned()
                        .map(|r| r.map(|e| (e.data, e.offset, e.line)))
                        .collect::<Vec<_>>(),
                    "len {len} split at {k}"
                );
            }
        }
    }
}

/// The line limit at the boundary, through the fast path: a data line (or `event:` line) of
/// exactly the limit is a fast event, one byte over is `LineTooLong` from the line-by-line path.
#[test]
fn line_limit_boundary_through_the_fast_path() {
    // `data: ` + 10 bytes = 16.
    for max_line in [15, 16, 17] {
        let s = b"data: 0123456789\n\ndata: ok\n\n";
        let (calls, fast) = lockstep_ok(&[s], 1024, max_line);
        let evs = events(&calls);
        if max_line >= 16 {
            assert_eq!(fast, 2);
            assert_eq!(evs[0].as_ref().unwrap().data, b"0123456789");
        } else {
            assert_eq!(fast, 1);
            assert_eq!(
                evs[0].clone().unwrap_err().kind(),
                FrameErrorKind::LineTooLong
            );
        }
    }
    // `event: message` is 14 bytes; `event:message` 13.
    for (ev, max_line) in [
        ("event: message", 13),
        ("event: message", 14),
        ("event:message", 12),
        ("event:message", 13),
    ] {
        let s = format!("{ev}\ndata: x\n\n");
        let (calls, fast) = lockstep_ok(&[s.as_bytes()], 1024, max_line);
        let evs = events(&calls);
        if max_line >= ev.len() {
            assert_eq!(fast, 1);
            assert_eq!(evs[0].as_ref().unwrap().data, b"x");
        } else {
            assert_eq!(fast, 0);
            assert_eq!(
                evs[0].clone().unwrap_err().kind(),
                FrameErrorKind::LineTooLong
            );
        }
    }
}

/// Resumable servers put an `id:` line on every event (the Python SDK before `event:`, the
/// TypeScript SDK after it): with every line end and both orders, every event goes through
/// the fast path, its id is read zero-copy, and every split point agrees with the
/// line-by-line path.
#[test]
fn resumable_events_take_the_fast_path() {
    for order in ["id event", "event id", "id"] {
        for eol in ["\n", "\r\n", "\r"] {
            for id in ["id: ", "id:"] {
                let mut s = String::new();
                for (k, payload) in ["{\"a\":1}", "", " x: y "].iter().enumerate() {
                    let id_line = format!("{id}{}-{k}{eol}", 60 + k);
                    let ev_line = format!("event: message{eol}");
                    match order {
                        "id event" => s += &(id_line + &ev_line),
                        "event id" => s += &(ev_line + &id_line),
                        _ => s += &id_line,
                    }
                    s += "data: ";
                    s += payload;
                    s += eol;
                    s += eol;
                }
                let s = s.as_bytes();
                let shown = String::from_utf8_lossy(s);
                let (calls, fast) = lockstep_ok(&[s], BIG, BIG + 64);
                let evs = events(&calls);
                assert_eq!(evs.len(), 3, "{shown:?}");
                assert_eq!(fast, 3, "{shown:?}");
                for (k, ev) in evs.iter().enumerate() {
                    let ev = ev.as_ref().unwrap();
                    assert_eq!(ev.id.as_deref(), Some(format!("{}-{k}", 60 + k).as_bytes()));
                    assert!(ev.id_range_ok);
                    assert_eq!(ev.event.is_some(), order != "id", "{shown:?}");
                }
                // Line numbers count the id line.
                let lines_per_event = if order == "id" { 3 } else { 4 };
                assert_eq!(evs[1].as_ref().unwrap().line, 1 + lines_per_event);
                for k in 0..=s.len() {
                    let (split, _) = lockstep_ok(&[&s[..k], &s[k..]], BIG, BIG + 64);
                    let strip = |v: Vec<Result<Ev, FrameError>>| -> Vec<_> {
                        v.into_iter()
                            .map(|r| r.map(|e| (e.data, e.id, e.offset, e.line)))
                            .collect()
                    };
                    assert_eq!(strip(events(&split)), strip(evs.clone()), "split at {k}");
                }
                check_sse_splits(s, &[], None).unwrap();
            }
        }
    }
}

/// The line limit on the `id:` line at limit - 1, limit and limit + 1: within it the event
/// is a fast one; over it the line-by-line path reports `LineTooLong` at the same place.
#[test]
fn id_line_limit_boundary_through_the_fast_path() {
    // `id: 012345678901` is 16 bytes, `id:012345678901` 15 (both longer than the 14 of
    // `event: message`, so only the id line meets the limit).
    for (id, len) in [("id: ", 16), ("id:", 15)] {
        for max_line in [len - 1, len, len + 1] {
            let s = format!("{id}012345678901\nevent: message\ndata: x\n\ndata: ok\n\n");
            let (calls, fast) = lockstep_ok(&[s.as_bytes()], 1024, max_line);
            let evs = events(&calls);
            if max_line >= len {
                assert_eq!(fast, 2, "{s:?} max {max_line}");
                let ev = evs[0].as_ref().unwrap();
                assert_eq!(ev.id.as_deref(), Some(&b"012345678901"[..]));
                assert_eq!(ev.data, b"x");
            } else {
                assert_eq!(fast, 1, "{s:?} max {max_line}");
                let e = evs[0].clone().unwrap_err();
                assert_eq!(e.kind(), FrameErrorKind::LineTooLong);
                assert_eq!(e.offset(), 0);
            }
            check_sse_splits(s.as_bytes(), &[], Some((1024, max_line))).unwrap();
        }
    }
}

/// `id:` values of every length from 0 to 24 bytes (the short-id step reads lines of up to
/// 20 bytes, so values of 15 and 16 bytes sit on either side of it), with every line end,
/// plain or holding a NUL (the event keeps no id) or another control byte at each position:
/// the fast path and the line-by-line path agree at every call and every split point, and
/// a NUL-free id is read zero-copy on the fast path.
#[test]
fn ids_of_every_length_through_the_fast_path() {
    for len in 0..=24usize {
        for eol in ["\n", "\r\n", "\r"] {
            let plain: String = (0..len)
                .map(|i| char::from(b'0' + (i % 10) as u8))
                .collect();
            let mut values = vec![(plain.clone(), true)];
            for at in 0..len {
                for odd in ['\0', '\u{b}'] {
                    let mut v = plain.clone().into_bytes();
                    v[at] = odd as u8;
                    values.push((String::from_utf8(v).unwrap(), odd != '\0'));
                }
            }
            for (value, kept) in values {
                let s = format!(
                    "id: {value}{eol}event: message{eol}data: x{eol}{eol}data: ok{eol}{eol}"
                );
                let shown = format!("{s:?}");
                let (calls, fast) = lockstep_ok(&[s.as_bytes()], 1024, 1024);
                let evs = events(&calls);
                assert_eq!(evs.len(), 2, "{shown}");
                let ev = evs[0].as_ref().unwrap();
                assert_eq!(ev.data, b"x", "{shown}");
                if kept {
                    assert_eq!(fast, 2, "{shown}");
                    assert_eq!(ev.id.as_deref(), Some(value.as_bytes()), "{shown}");
                    assert!(ev.id_range_ok, "{shown}");
                } else {
                    assert_eq!(fast, 1, "{shown}");
                    assert_eq!(ev.id, None, "{shown}");
                }
                check_sse_splits(s.as_bytes(), &[], Some((1024, 1024))).unwrap();
            }
        }
    }
}
