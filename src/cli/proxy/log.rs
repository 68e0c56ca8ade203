//! The proxy's jsonl log: one `start` record, one `violation` record per violation, one
//! `summary` record with per-direction, per-method counts at the end.
//!
//! Records (one JSON object per line):
//!
//! * `{"event":"start","transport":"stdio"|"http","profile":…,"command":[…]|null,"listen":…,"upstream":…}`
//! * `{"event":"violation","dir":"c2s"|"s2c","frame":N,"offset":BYTE,"shape":…,"id":…,
//!   "method":…,"kind":…,"code":INT|null,"at":BYTE,"message":…,"action":…}` where `frame`
//!   counts frames per direction from 1, `offset` is the stream offset of the frame (stdio) or
//!   0 (HTTP bodies), `at` the byte offset of the violation inside the frame, and `action` one
//!   of `replied` (error reply sent to the sender), `replaced` (a rejected response replaced by
//!   an error response to its receiver; over HTTP the client is also sent its error reply),
//!   `dropped`, `forwarded` (`--monitor`).
//! * `{"event":"summary","c2s":{…},"s2c":{…},"violations":{KIND:N},"exit_status":INT|null}`,
//!   each direction with its [`DirStats`] (on stdio, with what was not delivered:
//!   [`Undelivered`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

/// Counters of one direction.
#[derive(Debug, Default, Serialize)]
pub struct DirStats {
    /// Frames read (including rejected ones).
    pub frames: u64,
    /// Bytes of those frames (without line terminators).
    pub bytes: u64,
    /// Frames forwarded unchanged.
    pub forwarded: u64,
    /// Frames with at least one violation.
    pub rejected: u64,
    /// Error replies the proxy sent back to this direction's sender.
    pub replied: u64,
    /// Rejected responses replaced by an error response to the receiver.
    pub replaced: u64,
    /// Rejected frames dropped without a reply.
    pub dropped: u64,
    /// Frames by shape name.
    pub shapes: BTreeMap<String, u64>,
    /// Requests and notifications by method, each element of a batch counted as one (at most
    /// `MAX_METHODS` names of at most `MAX_METHOD_LEN` bytes; the rest under
    /// `"(other methods)"`).
    pub methods: BTreeMap<String, u64>,
    /// SSE events with data of another type than `message` (not messages: passed on, not
    /// validated), by event type, bounded as in `check`'s summary.
    pub sse_other_events: BTreeMap<String, u64>,
    /// SSE field lines of an unknown name (ignored by the event stream standard: a misspelt
    /// `Data:` line loses its value).
    pub sse_unknown_fields: u64,
    /// stdio only (absent over HTTP): what of this direction's traffic did not reach its
    /// receiver, although counted above under the action it got.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undelivered: Option<Undelivered>,
}

/// The part of one direction's traffic that was not delivered (stdio): replies dropped past
/// their budget (the sender read none for 1 s), and anything still queued, or not yet written
/// out, when the proxy ended (a signal, the server's exit, an output that failed or stopped
/// reading). Each is also counted under its action (`forwarded`, `replied`, `replaced`), which
/// says what the proxy did with the frame, not whether it arrived. An item counts as delivered
/// once its output took all its bytes; our stdout says so only for whole writes (up to
/// 64 KiB), so up to 64 KiB of what went to the client when the proxy ended may be counted
/// here although part of it arrived.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Undelivered {
    /// Forwarded frames that did not reach the receiver (under `--monitor`: 0, its bytes are
    /// in `bytes`).
    pub forwarded: u64,
    /// Error replies that did not reach this direction's sender.
    pub replied: u64,
    /// Replacements (error responses for the receiver) that did not reach it.
    pub replaced: u64,
    /// Bytes of all of these (frames and messages with their line terminators; under
    /// `--monitor`, the bytes read and not passed on).
    pub bytes: u64,
}

/// Whole-session counters.
#[derive(Debug, Default, Serialize)]
pub struct Stats {
    /// Client → server.
    pub c2s: DirStats,
    /// Server → client.
    pub s2c: DirStats,
    /// Violations by kind.
    pub violations: BTreeMap<String, u64>,
}

/// One violation record.
#[derive(Debug, Serialize)]
pub struct ViolationRecord<'a> {
    /// Always `"violation"`.
    pub event: &'static str,
    /// `c2s` or `s2c`.
    pub dir: &'static str,
    /// Frame number in this direction (from 1).
    pub frame: u64,
    /// Stream offset of the frame (bytes).
    pub offset: u64,
    /// Shape name (`invalid` when the frame has no envelope).
    pub shape: &'a str,
    /// The raw id text, when readable.
    pub id: Option<&'a str>,
    /// The method, when readable.
    pub method: Option<&'a str>,
    /// Stable kebab-case kind.
    pub kind: &'a str,
    /// JSON-RPC error code, when the kind has one.
    pub code: Option<i32>,
    /// Byte offset inside the frame.
    pub at: usize,
    /// Human message.
    pub message: &'a str,
    /// `replied`, `replaced`, `dropped` or `forwarded`.
    pub action: &'static str,
}

/// Where records go.
pub struct Log {
    out: Box<dyn Write + Send>,
    /// The counters reported by [`Log::summary`].
    pub stats: Stats,
}

impl Log {
    /// A log writing to `path`, or to stderr when `None`.
    pub fn open(path: Option<&Path>) -> io::Result<Self> {
        let out: Box<dyn Write + Send> = match path {
            // The error names the path (re-trial finding: "No such file or directory" alone).
            Some(p) => Box::new(BufWriter::new(File::create(p).map_err(|e| {
                io::Error::new(e.kind(), format!("--log {}: {e}", p.display()))
            })?)),
            None => Box::new(io::stderr()),
        };
        Ok(Self {
            out,
            stats: Stats::default(),
        })
    }

    /// Writes one record and flushes (records are rare: start, violations, summary).
    /// Logging failures are ignored: the proxy keeps forwarding.
    pub fn record<T: Serialize>(&mut self, rec: &T) {
        let mut line = match serde_json::to_vec(rec) {
            Ok(l) => l,
            Err(_) => return,
        };
        line.push(b'\n');
        let _ = self.out.write_all(&line);
        let _ = self.out.flush();
    }

    /// Writes the summary record.
    pub fn summary(&mut self, exit_status: Option<i32>) {
        #[derive(Serialize)]
        struct Summary<'a> {
            event: &'static str,
            c2s: &'a DirStats,
            s2c: &'a DirStats,
            violations: &'a BTreeMap<String, u64>,
            exit_status: Option<i32>,
        }
        let stats = std::mem::take(&mut self.stats);
        self.record(&Summary {
            event: "summary",
            c2s: &stats.c2s,
            s2c: &stats.s2c,
            violations: &stats.violations,
            exit_status,
        });
        self.stats = stats;
    }
}
