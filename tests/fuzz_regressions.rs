//! Named regression tests for every input the fuzzers found (FUZZING.md, "Findings"). Each
//! test runs the exact bytes through the fuzz target's oracle and states the expected
//! behaviour. The same bytes are in `fuzz/regressions/<target>/` (replayed by
//! `tests/fuzz_replay.rs`) and in `corpora/hostile/fuzz-*.json`.
//!
//! A finding whose fix belongs to another layer and has not landed yet is `#[ignore]`d with
//! the finding number and owner in the reason, so `cargo test` lists it as ignored (never
//! silently skipped); `cargo test --test fuzz_regressions -- --ignored` runs it.

use mcpwire::oracle::targets;

/// F1 (envelope, fixed in core). `error.code` written `-0`: our parser read the integer 0,
/// while serde_json reads `-0` as the float -0.0 (so `as_i64()` is `None`, and a typed `i32`
/// code such as rmcp's is a deserialisation error). Fix: `-0` is not a plain integer, so
/// the frame is shape `invalid` with `invalid-error-object` (and an id `-0` is `invalid-id`).
#[test]
fn f1_error_code_negative_zero() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":"x"}}"#;
    assert_eq!(targets::envelope(frame), Ok(()));
    let env = mcpwire::parse(frame).unwrap();
    assert_eq!(env.shape(), mcpwire::Shape::Invalid);
    assert_eq!(env.error_code(), None);
    assert_eq!(
        env.invalid_reason().map(|e| e.kind().name()),
        Some("invalid-error-object")
    );
    // The fuzzer's original input (jsonrpc "3.0": shape invalid, same disagreement).
    let original = br#"{"jsonrpc":"3.0","id":3,"error":{"code":-0,"message":"User rejected sampling request"}}"#;
    assert_eq!(targets::envelope(original), Ok(()));
}

/// F2 (sse, owner: fuzz oracle; fixed in the reference). `retry:` with a value beyond
/// `u64::MAX`: the reference framer saturated it to `u64::MAX`, the framer ignores it (its
/// documented choice; WHATWG integers are unbounded). The reference now ignores it too, and
/// this input checks that both keep the earlier 500 ms.
#[test]
fn f2_sse_retry_beyond_u64_is_ignored() {
    let stream = b"retry: 500\n\nretry: 99999999999999999999\n\n";
    for splits in [&[][..], &[1, 13, 14, 20, 40][..]] {
        assert_eq!(
            mcpwire::oracle::framing::check_sse_splits(stream, splits, None),
            Ok(())
        );
    }
    assert_eq!(
        mcpwire::oracle::framing::reference_sse(stream).retry,
        Some(500)
    );
    // The fuzz input itself (layout: 0 read boundaries, default limits).
    let mut input = vec![0u8, 0];
    input.extend_from_slice(stream);
    assert_eq!(targets::sse(&input), Ok(()));
}

/// F3 (sse, fixed in the framer). A comment line (`: keep-alive`) between the single
/// `data:` line and the blank line did not end zero-copy retention of the data value, so
/// every following comment kept the buffer pinned at the data start: with limits (32, 40)
/// the fuzzer saw 78 and 79 pending bytes against the documented bound of 76 (event limit +
/// line limit + 4), and a server sending `data: …` then endless keep-alives made the
/// buffered bytes grow without bound. Fix: a comment copies the single value out like any
/// other field line does.
#[test]
fn f3_sse_comments_after_data_do_not_pin_the_buffer() {
    // The two fuzz inputs, exactly as found.
    for input in [
        &include_bytes!("../fuzz/regressions/sse/comments-after-data-pin-buffer")[..],
        &include_bytes!("../fuzz/regressions/sse/comments-after-data-pin-buffer-long")[..],
    ] {
        assert_eq!(targets::sse(input), Ok(()));
    }
    // Minimal form: a 32-byte data value (the event limit), then 200 keep-alives in 5-byte
    // reads, no blank line; then the blank line. The pending-bytes bound holds on every read
    // and the event still carries the data.
    let value = [b'x'; 32];
    let mut stream = b"data: ".to_vec();
    stream.extend_from_slice(&value);
    stream.push(b'\n');
    for _ in 0..200 {
        stream.extend_from_slice(b": keep-alive\n");
    }
    stream.extend_from_slice(b"\n");
    let reads: Vec<&[u8]> = stream.chunks(5).collect();
    let out = mcpwire::oracle::framing::run_sse(32, 40, &reads).expect("bound holds");
    assert_eq!(out.len(), 1);
    let ev = out[0].as_ref().unwrap();
    assert_eq!(ev.data, value);
    // Split invariance and the reference framer agree on the same stream (default limits).
    let splits: Vec<usize> = (0..stream.len()).step_by(7).collect();
    assert_eq!(
        mcpwire::oracle::framing::check_sse_splits(&stream, &splits, None),
        Ok(())
    );
}
