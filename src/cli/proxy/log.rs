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
//! * `{"event":"summary","c2s":{…},"s2c":{…},"violations":{KIND:N},"exit_status":INT|null,
//!   "log_records_dropped":N}`, each direction with its [`DirStats`] (on stdio, with what was
//!   not delivered: [`Undelivered`]).
//!
//! A `--log` file is written in place. The log on stderr is written by a thread of its own
//! through a queue of at most [`STDERR_QUEUE_BYTES`] bytes, so that a stderr nobody reads
//! never blocks the proxy (re-trial: once the pipe was full, a log write blocked the whole
//! stdio proxy, signals included); a record that finds the queue full is dropped and counted
//! (`log_records_dropped`). At the end the summary is queued whatever the room, and the proxy
//! waits for the thread to write everything while it makes progress, giving up once it has
//! written nothing for [`STDERR_PATIENCE`] (re-trial: a fixed 1 s cut a slow reader off
//! mid-record, without the summary). `--log-max-bytes` bounds the bytes of the records (the
//! summary aside), dropping and counting those past it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use serde::Serialize;

/// Counters of one direction.
#[derive(Debug, Default, Serialize)]
pub struct DirStats {
    /// Frames read (including rejected ones).
    pub frames: u64,
    /// Bytes of those frames (without line terminators). A frame rejected before it was read
    /// whole counts the bytes seen when it was rejected: an oversize line at least its limit
    /// plus one (not its rest, even when `--monitor` passes it on), an oversize HTTP body its
    /// limit plus one (its `Content-Length` is not trusted as a count), a body in a content
    /// coding 0 (refused or passed on unread).
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
    /// Bytes of all of these (frames and messages with their line terminators), plus the
    /// bytes read from the sender and not yet framed when the proxy ended (under
    /// `--monitor`: all the bytes read and not passed on).
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

/// Bytes of records queued for the stderr log's thread before further ones are dropped (a
/// record larger than that is queued only into an empty queue): records repeat a frame's id
/// and method, so a count of records bounded nothing (re-trial: 4,096 records of 3 MB methods
/// took 2.9 GB).
pub const STDERR_QUEUE_BYTES: usize = 16 << 20;
/// How long the end of the proxy waits for the stderr log's thread to write something before
/// it gives up on the rest.
pub const STDERR_PATIENCE: Duration = Duration::from_secs(1);
/// The most bytes the stderr log's thread writes at a time (so that its progress shows).
const STDERR_CHUNK: usize = 64 * 1024;

/// Where records go.
enum Sink {
    /// A `--log` file (or another writer), written in place.
    InPlace(Box<dyn Write + Send>),
    /// Stderr, through the queue of a thread that writes it; `done` is told when the thread
    /// has written everything and ended.
    Thread {
        queue: Option<Sender<Vec<u8>>>,
        /// Bytes queued and not yet written.
        queued: Arc<AtomicUsize>,
        /// Bytes the thread has written (its progress).
        written: Arc<AtomicU64>,
        done: Receiver<()>,
    },
}

/// Where records go.
pub struct Log {
    sink: Sink,
    /// Records dropped: the stderr log's queue was full, or they would have taken the log
    /// past `max_bytes`.
    dropped: u64,
    /// Bytes of the records written (or queued for stderr) so far, the summary aside.
    bytes: u64,
    /// `--log-max-bytes`.
    max_bytes: Option<u64>,
    /// The counters reported by [`Log::summary`].
    pub stats: Stats,
}

impl Log {
    /// A log writing to `path`, or to stderr when `None` (through a thread: module docs).
    pub fn open(path: Option<&Path>) -> io::Result<Self> {
        let sink = match path {
            // The error names the path (re-trial finding: "No such file or directory" alone).
            Some(p) => {
                Sink::InPlace(Box::new(BufWriter::new(File::create(p).map_err(|e| {
                    io::Error::new(e.kind(), format!("--log {}: {e}", p.display()))
                })?)))
            }
            None => {
                let (queue, lines) = mpsc::channel::<Vec<u8>>();
                let (done_tx, done) = mpsc::channel();
                let queued = Arc::new(AtomicUsize::new(0));
                let written = Arc::new(AtomicU64::new(0));
                std::thread::Builder::new()
                    .name("mcpwire-log".into())
                    .spawn({
                        let (queued, written) = (Arc::clone(&queued), Arc::clone(&written));
                        move || {
                            for line in lines {
                                // Locked per record, not for the thread's life: the rest of the
                                // process may write to stderr too.
                                let mut err = io::stderr().lock();
                                for chunk in line.chunks(STDERR_CHUNK) {
                                    if err.write_all(chunk).is_err() {
                                        break;
                                    }
                                    written.fetch_add(chunk.len() as u64, Relaxed);
                                }
                                queued.fetch_sub(line.len(), Relaxed);
                            }
                            let _ = done_tx.send(());
                        }
                    })?;
                Sink::Thread {
                    queue: Some(queue),
                    queued,
                    written,
                    done,
                }
            }
        };
        Ok(Self {
            sink,
            dropped: 0,
            bytes: 0,
            max_bytes: None,
            stats: Stats::default(),
        })
    }

    /// Bounds the records (the summary aside) to `max` bytes in all (`--log-max-bytes`); a
    /// record that would go past it is dropped and counted. `None`: no bound.
    pub fn max_bytes(mut self, max: Option<u64>) -> Self {
        self.max_bytes = max;
        self
    }

    /// Writes one record (a file is flushed after it; records are rare: start, violations,
    /// notes, summary). A record that would take the log past its bound ([`Log::max_bytes`])
    /// is dropped and counted, and so is one that finds the stderr queue full.
    /// Logging failures are ignored: the proxy keeps forwarding.
    pub fn record<T: Serialize>(&mut self, rec: &T) {
        let Some(line) = line(rec) else { return };
        let bytes = self.bytes + line.len() as u64;
        if self.max_bytes.is_some_and(|max| bytes > max) {
            self.dropped += 1;
            return;
        }
        self.bytes = bytes;
        if !self.sink.put(line, true) {
            self.dropped += 1;
        }
    }

    /// Writes the summary record and ends the log. On stderr the summary is queued whatever
    /// the room, and this waits for the thread to write everything while it makes progress;
    /// once it has written nothing for [`STDERR_PATIENCE`] (a stderr nobody reads: the rest
    /// and the summary are lost), it gives up and the proxy ends.
    pub fn summary(&mut self, exit_status: Option<i32>) {
        #[derive(Serialize)]
        struct Summary<'a> {
            event: &'static str,
            c2s: &'a DirStats,
            s2c: &'a DirStats,
            violations: &'a BTreeMap<String, u64>,
            exit_status: Option<i32>,
            log_records_dropped: u64,
        }
        let Some(rec) = line(&Summary {
            event: "summary",
            c2s: &self.stats.c2s,
            s2c: &self.stats.s2c,
            violations: &self.stats.violations,
            exit_status,
            log_records_dropped: self.dropped,
        }) else {
            return;
        };
        self.sink.put(rec, false);
        if let Sink::Thread {
            queue,
            written,
            done,
            ..
        } = &mut self.sink
        {
            // The thread ends once the queue is empty and closed.
            if queue.take().is_some() {
                let mut seen = written.load(Relaxed);
                while let Err(RecvTimeoutError::Timeout) = done.recv_timeout(STDERR_PATIENCE) {
                    let now = written.load(Relaxed);
                    if now == seen {
                        break;
                    }
                    seen = now;
                }
            }
        }
    }
}

impl Sink {
    /// Writes `line` (a file: in place, flushed), or queues it for the stderr thread; with
    /// `bounded`, only into an empty queue or one with room for it under
    /// [`STDERR_QUEUE_BYTES`]. False when it was not queued for want of room.
    fn put(&mut self, line: Vec<u8>, bounded: bool) -> bool {
        match self {
            Sink::InPlace(out) => {
                let _ = out.write_all(&line);
                let _ = out.flush();
            }
            Sink::Thread {
                queue: Some(q),
                queued,
                ..
            } => {
                let before = queued.load(Relaxed);
                if bounded && before > 0 && before + line.len() > STDERR_QUEUE_BYTES {
                    return false;
                }
                queued.fetch_add(line.len(), Relaxed);
                let _ = q.send(line);
            }
            Sink::Thread { queue: None, .. } => {}
        }
        true
    }
}

/// `rec` as one JSON line.
/// One record as a JSON line, with DEL, the C1 controls and U+2028 / U+2029 escaped as in
/// `check`'s JSON lines (re-trial, session 22: a client's method name put a raw U+009B, a
/// terminal's escape-sequence introducer, into the log, which is stderr by default).
fn line<T: Serialize>(rec: &T) -> Option<Vec<u8>> {
    crate::cli::record::json_line(rec).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Rec {
        pad: String,
    }

    /// `{"pad":"…"}` plus its newline: 11 + `n` bytes.
    fn rec(n: usize) -> Rec {
        Rec { pad: "x".repeat(n) }
    }

    /// Writes three 100-byte records under a bound of `max` bytes; returns the lines written
    /// before the summary and the summary's `log_records_dropped`.
    fn bounded(max: u64) -> (usize, u64) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = Log::open(Some(&path)).unwrap().max_bytes(Some(max));
        for _ in 0..3 {
            log.record(&rec(89));
        }
        log.summary(Some(0));
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (summary, records) = lines.split_last().unwrap();
        assert!(records.iter().all(|l| l.len() == 99), "{records:?}");
        let summary: serde_json::Value = serde_json::from_str(summary).unwrap();
        assert_eq!(summary["event"], "summary");
        (
            records.len(),
            summary["log_records_dropped"].as_u64().unwrap(),
        )
    }

    /// `--log-max-bytes` at the boundary and one byte either side: two records of 100 bytes
    /// fit in 200 bytes, not in 199; the summary is always written.
    #[test]
    fn the_log_bound_drops_and_counts_records_past_it() {
        assert_eq!(bounded(199), (1, 2));
        assert_eq!(bounded(200), (2, 1));
        assert_eq!(bounded(201), (2, 1));
        assert_eq!(bounded(0), (0, 3));
        assert_eq!(bounded(300), (3, 0));
    }
}

#[cfg(test)]
mod escape_tests {
    /// Re-trial, session 22: a client's method name put raw C1, DEL and U+2028 into the log.
    #[test]
    fn log_lines_escape_terminal_controls() {
        #[derive(serde::Serialize)]
        struct Rec<'a> {
            method: &'a str,
        }
        let m = "x\u{9b}[31m\u{7f}\u{2028}\u{1b}\u{e9}";
        let l = super::line(&Rec { method: m }).unwrap();
        let text = std::str::from_utf8(&l).unwrap();
        for raw in ['\u{9b}', '\u{7f}', '\u{2028}', '\u{1b}'] {
            assert!(!text.contains(raw), "{raw:?} in {text}");
        }
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["method"], m);
        assert!(text.ends_with("\u{e9}\"}\n"), "{text}");
    }
}
