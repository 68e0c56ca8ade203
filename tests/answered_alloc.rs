//! `Tracked::Answered { method }` moves the method out of the tracker's entry: matching a
//! response must not copy its request's method (review: it was cloned once per response).
//! A counting global allocator measures the bytes one `Session::check` of a response
//! allocates; a 64 KiB method name would show as at least 64 KiB if it were copied.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use mcpwire::profile::{Direction, Profile, Session, Tracked};

struct Counting;

thread_local! {
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the counter is a thread-local `Cell`
// whose `try_with` never allocates or panics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = BYTES.try_with(|b| b.set(b.get() + layout.size()));
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = BYTES.try_with(|b| b.set(b.get() + new_size));
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
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
    let before = BYTES.with(Cell::get);
    let tracked = s.check(Direction::ServerToClient, &env, &mut out);
    let allocated = BYTES.with(Cell::get) - before;
    let Tracked::Answered { method: got } = tracked else {
        panic!("{tracked:?}")
    };
    assert_eq!(got, method);
    assert!(
        allocated < LONG,
        "checking the response allocated {allocated} bytes (the method was copied)"
    );
}
