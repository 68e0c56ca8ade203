//! Sans-I/O framing (DESIGN.md layer 1): `ndjson` (stdio), `sse` (text/event-stream) and `body`
//! (one HTTP body) framers. No tokio dependency.
