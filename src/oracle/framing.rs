//! Reference framers: simple, obviously-correct NDJSON and SSE framers for differential tests.
