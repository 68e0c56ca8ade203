//! Allocation checks with dhat's heap statistics (its testing mode; one test per binary, as
//! dhat allows one profiler per process).
//!
//! * `Tracked::Answered { method }` moves the method out of the tracker's entry: matching a
//!   response must not copy its request's method (review: it was cloned once per response);
//!   a 64 KiB method name would show as at least 64 KiB allocated if it were copied.
//! * An SSE event of many `data:` lines grows the framer's positions buffer (32 bytes per
//!   line); the next event gives that memory back (hostile trial, session 13: it was kept for
//!   the rest of the stream).

use mcpwire::framing::Status;
use mcpwire::framing::sse::SseFramer;
use mcpwire::profile::{Direction, Profile, Session, Tracked};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn allocations() {
    let _profiler = dhat::Profiler::builder().testing().build();
    answered_moves_the_method_out_of_the_tracker();
    sse_positions_of_a_large_event_are_not_retained();
}

fn answered_moves_the_method_out_of_the_tracker() {
    const LONG: usize = 64 * 1024;
    let method = format!("x/{}", "m".repeat(LONG));
    let request = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}"}}"#);
    let response = r#"{"jsonrpc":"2.0","id":7,"result":{}}"#;
    let mut s = Session::new(Profile::V2025_06_18, 16);
    let mut out = Vec::with_capacity(16);
    let env = mcpwire::parse(request.as_bytes()).unwrap();
    assert_eq!(
        s.check(Direction::ClientToServer, &env, &mut out),
        Tracked::Request
    );
    out.clear();
    let env = mcpwire::parse(response.as_bytes()).unwrap();
    let before = dhat::HeapStats::get().total_bytes;
    let tracked = s.check(Direction::ServerToClient, &env, &mut out);
    let allocated = dhat::HeapStats::get().total_bytes - before;
    let Tracked::Answered { method: got } = tracked else {
        panic!("{tracked:?}")
    };
    assert_eq!(got, method);
    assert!(
        allocated < LONG as u64,
        "checking the response allocated {allocated} bytes (the method was copied)"
    );
}

/// Decodes every event of `stream` (fed whole), returning the number with data.
fn events(f: &mut SseFramer, stream: &[u8]) -> usize {
    let mut pos = 0;
    let mut n = 0;
    loop {
        let d = f.finish(&stream[pos..]);
        match d.status {
            Status::Partial => return n,
            Status::Complete(r) => n += usize::from(!r.unwrap().data().is_empty()),
        }
        pos += d.consumed;
    }
}

fn sse_positions_of_a_large_event_are_not_retained() {
    const LINES: usize = 100_000;
    let mut f = SseFramer::new();
    f.set_max_data_line_starts(usize::MAX);
    let mut big = b"data: x\n".repeat(LINES);
    big.push(b'\n');
    let small = b"data: a\ndata: b\n\n";
    // Warm-up: the scratch buffers' steady state for small multi-line events.
    assert_eq!(events(&mut f, small), 1);
    let base = dhat::HeapStats::get().curr_bytes;
    assert_eq!(events(&mut f, &big), 1);
    let grown = dhat::HeapStats::get().curr_bytes;
    // The positions alone: 32 bytes per line beyond the first.
    assert!(grown >= base + 32 * (LINES - 1), "{base} → {grown}");
    assert_eq!(events(&mut f, small), 1);
    let after = dhat::HeapStats::get().curr_bytes;
    // Given back: at most 1,024 positions (32 KiB) are kept, plus the joined data buffer
    // (bounded by the event size: its 2 × LINES bytes, at most twice that in capacity).
    assert!(
        after < base + 32 * 1024 + 4 * LINES,
        "{base} → {grown} → {after}: the large event's positions were kept"
    );
}
