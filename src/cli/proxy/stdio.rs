//! `mcpwire proxy stdio -- SERVER [ARGS]...`: the stdio transport (spec digest §7.1).
//!
//! The client talks to us on our stdin/stdout; we spawn the server with piped stdin/stdout
//! and its stderr inherited (so it passes through unchanged). Each direction is framed as
//! NDJSON ([`NdjsonCodec`]), judged ([`Judge`]), and the accepted frames are forwarded as
//! their original bytes plus their original line terminator (`\n`, or `\r\n` where the
//! sender wrote one). Blank lines carry no message and are not forwarded. A last line without
//! its newline (the sender closed its end after it) is never forwarded: the judge answers it
//! as a frame that is not JSON (-32700, `unterminated-line`), back to its sender, who may
//! still be reading.
//!
//! Tasks: one reader per direction and one writer per output (the server's stdin, our
//! stdout). In front of each writer is a [`Lane`] with two byte budgets (`--max-queue-bytes`
//! each, default 16 MiB): frames forwarded from the other side wait for room in the first,
//! so a receiver that stops reading holds its sender back by bytes, and memory stays bounded
//! whatever the frame size (each frame is copied out of the read buffer, so that a queued
//! frame holds only its own bytes); messages the proxy makes for the receiver itself (error
//! replies to frames it sent) take room in the second and wait for it only while the writer
//! still writes: once it has written nothing for [`REPLY_PATIENCE`] they are dropped, with a
//! note. A reader therefore never waits on an output that takes nothing, other than the one
//! it forwards to, as a direct pipe would, and a slow reader on one side never blocks the
//! other direction (a reply waiting behind the client's queued frames, while the server blocks
//! writing, deadlocked session 14's byte bound). While a reader waits for room it goes on
//! reading its input up to [`READ_AHEAD`] bytes, so it sees the client close its end.
//!
//! Shutdown (spec digest §7.1): when the client closes our stdin, or on SIGTERM / SIGINT
//! (Ctrl-C off Unix; SDK clients signal the whole process group, so the server may have got it
//! too), we close the server's stdin and wait for it to exit: `--grace` seconds, then SIGTERM,
//! `--grace` seconds more, then SIGKILL. After the client's end, its stdin is closed once the
//! frames queued for it are written, and the first `--grace` period counts from then, renewed
//! while the server is held back by a client that still reads (a frame for the client waited
//! for room, and the client read some bytes, in the period); after a signal, at once. A
//! server that has exited gets no signal. A further signal during the shutdown skips the wait
//! in progress (the server's next step at once, what is left for the client given up). When
//! the server's output ends, what is queued for the client goes on while it reads. Either way the summary record is written. When the
//! server closes its stdout (it exited), we flush what is left to the client and exit with the
//! server's exit status (128 + signal number when a signal ended it).

use std::ffi::OsString;
use std::io;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use mcpwire::codec::NdjsonCodec;
use mcpwire::profile::{Direction, Session};
use mcpwire::{Limits, Parser};
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::codec::Decoder;

use super::judge::{Action, Judge};
use super::log::{Log, Undelivered};
use super::{CommonProxyArgs, Signals};

/// Default of `--max-queue-bytes`: bytes of forwarded frames queued for one output before
/// the sender's reader waits (and, separately, bytes of replies made for it).
pub const DEFAULT_QUEUE_BYTES: u32 = 16 << 20;
/// Read buffer growth step, bytes.
const READ_CHUNK: usize = 64 * 1024;
/// Bytes a reader waiting for room in a lane may read ahead of its frames (to see the end of
/// its input); past it, its sender waits too.
const READ_AHEAD: usize = 1 << 20;
/// Bytes counted per queued item on top of its payload (the item itself).
const ITEM_OVERHEAD: usize = 64;
/// How long a reply waits for room in its budget without the writer writing a byte before it
/// is dropped: a peer that reads its replies frees room well within it, even one that pauses
/// (re-trial: with 200 ms, a client reading in bursts with 0.3 s pauses lost 550,000 of
/// 1,000,000 replies).
const REPLY_PATIENCE: Duration = Duration::from_secs(1);
/// The most bytes handed to an output in one write, so that its progress ([`Lane::written`])
/// moves while a large frame goes out: our stdout writes each chunk on a blocking thread and
/// reports it written only when the whole chunk is (re-trial: a client reading 1 MB answers
/// at 150 KB/s showed no progress for 7 s, and lost 16 of 20 answers to the drain patience).
const WRITE_CHUNK: usize = 64 * 1024;
/// How long the client's output may take nothing, once the server's output has ended,
/// before what is left of it is given up (with a note).
const DRAIN_PATIENCE: Duration = Duration::from_secs(5);

/// `mcpwire proxy stdio` arguments.
#[derive(Debug, clap::Args)]
pub struct StdioArgs {
    #[command(flatten)]
    common: CommonProxyArgs,
    /// Seconds to wait for the server to exit after its stdin was closed (the client closed
    /// its end, or a SIGTERM / SIGINT came), before SIGTERM, and again before SIGKILL.
    /// A number from 0 to 1,000,000.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS", value_parser = super::parse_seconds)]
    grace: f64,
    /// Bytes of frames queued for one output (the server's stdin, the client's stdout) before
    /// the side sending them is held back (at least 1; a larger frame waits for the queue to
    /// empty). Error replies the proxy makes for a side have a budget of the same size of
    /// their own: over it they wait while that side still reads, and are dropped (noted in
    /// the log) once it has read nothing for 1 s.
    #[arg(long, default_value_t = DEFAULT_QUEUE_BYTES, value_name = "BYTES",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_queue_bytes: u32,
    /// The server command and its arguments.
    #[arg(required = true, last = true, value_name = "SERVER", value_parser = clap::value_parser!(OsString))]
    server: Vec<OsString>,
}

/// What a writer task writes.
#[derive(Debug)]
enum Out {
    /// A forwarded frame and its terminator.
    Frame(Bytes, &'static [u8]),
    /// Bytes written as they are (under `--monitor`, everything as it is read).
    Raw(Bytes),
    /// An error reply the proxy made for the writer's peer (to a frame it sent); gets `\n`.
    Reply(Vec<u8>),
    /// An error response the proxy sends the writer's peer in place of a rejected frame
    /// (`Action::Replace`); gets `\n`.
    Replacement(Vec<u8>),
    /// The sender's side closed: flush and close this output.
    Close,
}

impl Out {
    /// Bytes it writes.
    fn len(&self) -> usize {
        match self {
            Out::Frame(b, t) => b.len() + t.len(),
            Out::Raw(b) => b.len(),
            Out::Reply(b) | Out::Replacement(b) => b.len() + 1,
            Out::Close => 0,
        }
    }

    /// Bytes it takes in a lane's budget.
    fn cost(&self) -> usize {
        ITEM_OVERHEAD + self.len()
    }

    /// Where it is counted in [`Lost`] when it is not delivered (`Close` is not).
    fn lost_index(&self) -> Option<usize> {
        match self {
            Out::Frame(..) => Some(Lost::FRAME),
            Out::Raw(_) => Some(Lost::RAW),
            Out::Reply(_) => Some(Lost::REPLY),
            Out::Replacement(_) => Some(Lost::REPLACEMENT),
            Out::Close => None,
        }
    }
}

/// Items of one lane that did not reach its output, by kind ([`Out::lost_index`]): dropped
/// before they were queued (no room, the writer gone, the sender's task ended), still queued
/// when the writer ended, or not yet handed to the output when it failed or was ended.
#[derive(Debug, Default)]
struct Lost {
    count: [AtomicU64; 4],
    bytes: [AtomicU64; 4],
}

impl Lost {
    const FRAME: usize = 0;
    const RAW: usize = 1;
    const REPLY: usize = 2;
    const REPLACEMENT: usize = 3;

    fn count(&self, i: usize) -> u64 {
        self.count[i].load(Relaxed)
    }

    fn bytes(&self, i: usize) -> u64 {
        self.bytes[i].load(Relaxed)
    }

    /// What one direction did not deliver: the frames (and replacements) it forwarded on the
    /// lane `forward`, and the replies made for its sender on the lane `back`.
    fn undelivered(forward: &Lost, back: &Lost) -> Undelivered {
        Undelivered {
            forwarded: forward.count(Lost::FRAME),
            replied: back.count(Lost::REPLY),
            replaced: forward.count(Lost::REPLACEMENT),
            bytes: forward.bytes(Lost::FRAME)
                + forward.bytes(Lost::RAW)
                + forward.bytes(Lost::REPLACEMENT)
                + back.bytes(Lost::REPLY),
        }
    }
}

/// One item for a writer and the budget room it holds until it is written. Dropped before
/// the writer has handed all its bytes to the output ([`Queued::delivered`]), it counts
/// itself in its lane's [`Lost`], wherever that happens (not queued, still queued, or in the
/// writer's buffer when the writer ended), so that what the summary calls forwarded or
/// replied and never arrived is reported too (re-trial: replies dropped past the budget,
/// and frames discarded on a SIGTERM, counted as delivered).
#[derive(Debug)]
struct Queued {
    out: Out,
    room: Option<OwnedSemaphorePermit>,
    /// Where it is counted if dropped undelivered; `None` once delivered.
    lost: Option<Arc<Lost>>,
}

impl Queued {
    /// It reached the output.
    fn delivered(mut self) {
        self.lost = None;
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        if let (Some(lost), Some(i)) = (&self.lost, self.out.lost_index()) {
            lost.count[i].fetch_add(1, Relaxed);
            lost.bytes[i].fetch_add(self.out.len() as u64, Relaxed);
        }
    }
}

/// The sending end of the queue in front of one writer (module docs): forwarded frames wait
/// for room in `frames`, replies made for the writer's peer take room in `replies` or are
/// dropped. Both budgets hold `budget` bytes; an item larger than that takes the whole
/// budget (it waits for the queue to empty).
#[derive(Clone, Debug)]
struct Lane {
    tx: mpsc::UnboundedSender<Queued>,
    frames: Arc<Semaphore>,
    replies: Arc<Semaphore>,
    budget: usize,
    /// The last reply was dropped (so that a run of drops is noted once).
    dropping: Arc<AtomicBool>,
    /// Bytes the writer has written so far (its progress).
    written: Arc<AtomicU64>,
    /// Twice the frames that had to wait for room so far (counted on entering and on leaving
    /// the wait), so odd while one waits: it changes, or is odd, whenever the sender is held
    /// back by this output's receiver.
    held: Arc<AtomicU64>,
    /// What was given to this lane and did not reach its output.
    lost: Arc<Lost>,
}

/// The receiving end of a [`Lane`]; closes both budgets when dropped, so that a reader
/// waiting for room stops waiting once the writer is gone.
struct LaneRx {
    rx: mpsc::UnboundedReceiver<Queued>,
    frames: Arc<Semaphore>,
    replies: Arc<Semaphore>,
    written: Arc<AtomicU64>,
}

impl Drop for LaneRx {
    fn drop(&mut self) {
        self.frames.close();
        self.replies.close();
    }
}

/// A lane with `budget` bytes (at least 1, at most `u32::MAX`) for frames and as many for
/// replies.
fn lane(budget: usize) -> (Lane, LaneRx) {
    let budget = budget.clamp(1, u32::MAX as usize);
    let (tx, rx) = mpsc::unbounded_channel();
    let frames = Arc::new(Semaphore::new(budget));
    let replies = Arc::new(Semaphore::new(budget));
    let written = Arc::new(AtomicU64::new(0));
    let rx = LaneRx {
        rx,
        frames: Arc::clone(&frames),
        replies: Arc::clone(&replies),
        written: Arc::clone(&written),
    };
    let tx = Lane {
        tx,
        frames,
        replies,
        budget,
        dropping: Arc::new(AtomicBool::new(false)),
        written,
        held: Arc::new(AtomicU64::new(0)),
        lost: Arc::new(Lost::default()),
    };
    (tx, rx)
}

/// The writer is gone (its output failed or the proxy is shutting down).
#[derive(Debug)]
struct Closed;

/// Why a reply was not queued ([`Lane::reply`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dropped {
    /// Its budget was spent and the writer wrote nothing for [`REPLY_PATIENCE`], or it came
    /// in a run of such drops (`first` false).
    Full { first: bool },
    /// The writer is gone.
    Gone,
}

impl Lane {
    /// The permits an item of `cost` bytes takes.
    fn permits(&self, cost: usize) -> u32 {
        cost.min(self.budget) as u32
    }

    /// `out` as an item of this lane, holding no room yet; counted as lost unless delivered.
    fn item(&self, out: Out) -> Queued {
        Queued {
            out,
            room: None,
            lost: Some(Arc::clone(&self.lost)),
        }
    }

    /// Queues a reply made for the writer's peer. When its budget is spent, it waits for room
    /// as long as the writer keeps writing (the peer reads: it is only slower than its
    /// sender), and is dropped once the writer has written nothing for [`REPLY_PATIENCE`] (the
    /// peer is not reading) — so a reply never waits on a peer that does not read, which is
    /// what let a reply deadlock the proxy. In a run of drops, later replies are dropped
    /// without waiting until one finds room again. `Err(Dropped::Full { first })` when it was
    /// dropped for want of room (`first` for the first drop of a run), `Err(Dropped::Gone)`
    /// when the writer is gone (its output closed: the reply is moot).
    async fn reply(&self, body: Vec<u8>) -> Result<(), Dropped> {
        let mut item = self.item(Out::Reply(body));
        if self.replies.is_closed() {
            return Err(Dropped::Gone);
        }
        let n = self.permits(item.out.cost());
        let room = match Arc::clone(&self.replies).try_acquire_many_owned(n) {
            Ok(room) => Some(room),
            Err(_) if self.dropping.load(Relaxed) => None,
            Err(_) => self.wait_for_reply_room(n).await,
        };
        let queued = room.is_some_and(|room| {
            item.room = Some(room);
            self.tx.send(item).is_ok()
        });
        if self.replies.is_closed() {
            return Err(Dropped::Gone);
        }
        let was_dropping = self.dropping.swap(!queued, Relaxed);
        if queued {
            Ok(())
        } else {
            Err(Dropped::Full {
                first: !was_dropping,
            })
        }
    }

    /// Waits for `n` permits of the reply budget while the writer makes progress; `None` once
    /// it has written nothing for [`REPLY_PATIENCE`], or when the writer is gone.
    async fn wait_for_reply_room(&self, n: u32) -> Option<OwnedSemaphorePermit> {
        let acquire = Arc::clone(&self.replies).acquire_many_owned(n);
        tokio::pin!(acquire);
        let mut seen = self.written.load(Relaxed);
        loop {
            tokio::select! {
                room = &mut acquire => return room.ok(),
                _ = tokio::time::sleep(REPLY_PATIENCE) => {
                    let now = self.written.load(Relaxed);
                    if now == seen {
                        return None;
                    }
                    seen = now;
                }
            }
        }
    }

    /// Queues the end of the output (takes no room).
    fn close(&self) {
        let _ = self.tx.send(self.item(Out::Close));
    }
}

/// The reading side of one direction while it forwards: its input, the bytes read but not
/// yet framed, whether the input ended, and whom to tell when it does.
struct Input<'a, R> {
    reader: &'a mut R,
    buf: &'a mut BytesMut,
    eof: &'a mut bool,
    ended: &'a Notify,
    /// Under `--monitor`: the bytes read and not yet forwarded as read.
    raw: Option<BytesMut>,
    /// The forward lane's [`Lost`].
    lost: Arc<Lost>,
}

impl<R> Drop for Input<'_, R> {
    /// Counts the bytes read and never passed on (the task ended, or its receiver is gone):
    /// under `--monitor` those not yet forwarded as read, otherwise those not yet framed
    /// (re-trial: up to 1 MiB read ahead under `--monitor` was missing from the count).
    fn drop(&mut self) {
        let n = self.raw.as_ref().map_or(self.buf.len(), BytesMut::len);
        self.lost.bytes[Lost::RAW].fetch_add(n as u64, Relaxed);
    }
}

impl<R: AsyncRead + Unpin> Input<'_, R> {
    /// Reads once into the buffer; marks the end of input (EOF or a read error).
    async fn read(&mut self) {
        self.buf.reserve(READ_CHUNK);
        let before = self.buf.len();
        match self.reader.read_buf(self.buf).await {
            Ok(0) | Err(_) => {
                *self.eof = true;
                self.ended.notify_one();
            }
            Ok(_) => {
                if let Some(raw) = &mut self.raw {
                    raw.extend_from_slice(&self.buf[before..]);
                }
            }
        }
    }

    /// Queues `out` on `lane`, waiting for room in its frame budget; meanwhile reads ahead
    /// (up to [`READ_AHEAD`] buffered bytes), so that the end of input is seen while the
    /// receiver is not reading.
    async fn forward(&mut self, lane: &Lane, out: Out) -> Result<(), Closed> {
        // Counted as lost if it is dropped on the way (the writer gone, or this task ended
        // while it waits for room).
        let mut item = lane.item(out);
        let n = lane.permits(item.out.cost());
        let room = match Arc::clone(&lane.frames).try_acquire_many_owned(n) {
            Ok(room) => room,
            Err(tokio::sync::TryAcquireError::Closed) => return Err(Closed),
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                // Held back: counted on entry and on exit, so that a wait spanning a whole
                // grace period still reads as one in progress (odd count).
                lane.held.fetch_add(1, Relaxed);
                let acquire = Arc::clone(&lane.frames).acquire_many_owned(n);
                tokio::pin!(acquire);
                let room = loop {
                    tokio::select! {
                        biased;
                        room = &mut acquire => break room,
                        // `read_buf` is cancel safe: a read that loses the race took no bytes.
                        _ = self.read(), if !*self.eof && self.buf.len() < READ_AHEAD => {}
                    }
                };
                lane.held.fetch_add(1, Relaxed);
                room.map_err(|_| Closed)?
            }
        };
        item.room = Some(room);
        lane.tx.send(item).map_err(|_| Closed)
    }
}

/// Runs the stdio proxy; returns the server's exit status.
pub fn run(args: StdioArgs) -> io::Result<u8> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let r = rt.block_on(proxy(args));
    // Our stdin may still be blocked in a read on a blocking thread: don't wait for it.
    rt.shutdown_background();
    r
}

#[derive(Serialize)]
struct Start {
    event: &'static str,
    transport: &'static str,
    profile: &'static str,
    command: Vec<String>,
    pid: Option<u32>,
    monitor: bool,
    max_frame_bytes: usize,
}

#[derive(Serialize)]
struct Note<'a> {
    event: &'static str,
    message: &'a str,
}

async fn proxy(args: StdioArgs) -> io::Result<u8> {
    let c = &args.common;
    let mut log = Log::open(c.log.as_deref())?.max_bytes(c.log_max_bytes);
    let mut child = tokio::process::Command::new(&args.server[0])
        .args(&args.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "cannot start server {}: {e}",
                    args.server[0].to_string_lossy()
                ),
            )
        })?;
    log.record(&Start {
        event: "start",
        transport: "stdio",
        profile: c.profile.as_str(),
        command: args
            .server
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect(),
        pid: child.id(),
        monitor: c.monitor,
        max_frame_bytes: c.max_frame_bytes,
    });
    let judge =
        Judge::new(c.profile, c.max_in_flight, log, c.monitor).max_frame_len(c.max_frame_bytes);
    let judge = Arc::new(Mutex::new(Shared {
        session: judge.new_session(),
        judge,
    }));
    let (child_in, child_out) = match (child.stdin.take(), child.stdout.take()) {
        (Some(i), Some(o)) => (i, o),
        _ => return Err(io::Error::other("server pipes missing")),
    };
    let parser = Parser::with_limits(Limits {
        max_frame_len: c.max_frame_bytes,
        ..Limits::DEFAULT
    });

    let (to_server, server_rx) = lane(args.max_queue_bytes as usize);
    let (to_client, client_rx) = lane(args.max_queue_bytes as usize);
    let (server_lost, client_lost) = (Arc::clone(&to_server.lost), Arc::clone(&to_client.lost));
    // Told when the server's stdin is closed: every frame queued for it written, or its
    // stdin failed.
    let stdin_closed = Arc::new(Notify::new());
    let server_writer = tokio::spawn({
        let closed = Arc::clone(&stdin_closed);
        async move {
            let r = write_loop(child_in, server_rx, false).await;
            closed.notify_one();
            r
        }
    });
    // Our stdout writes on a blocking thread: a write is done once the next one is taken.
    let client_writer = tokio::spawn(write_loop(tokio::io::stdout(), client_rx, true));
    // Told when the client closes its end (also while its frames wait for the server).
    let client_ended = Arc::new(Notify::new());
    // How far the server has been held back by the client (`Lane::held`) and how much the
    // client has read (the client writer's byte count): the grace period is renewed when
    // both moved since the last look (or a frame still waits), so only a server whose output
    // waits for a client that reads it is given more time; output that flows freely (the
    // queue never full) does not renew it (re-trial: "something queued" renewed a server
    // spamming notifications after its EOF for up to 20 s against a 1 s grace).
    let client_progress = {
        let (held, written) = (Arc::clone(&to_client.held), Arc::clone(&to_client.written));
        move || (held.load(Relaxed), written.load(Relaxed))
    };
    // Whether anything still waits for the client (frames or replies).
    let client_pending = {
        let (frames, replies, budget) = (
            Arc::clone(&to_client.frames),
            Arc::clone(&to_client.replies),
            to_client.budget,
        );
        move || frames.available_permits() < budget || replies.available_permits() < budget
    };
    let mut c2s = tokio::spawn(pump(
        Direction::ClientToServer,
        tokio::io::stdin(),
        NdjsonCodec::with_parser(c.max_frame_bytes, parser),
        judge.clone(),
        to_server.clone(),
        to_client.clone(),
        c.monitor,
        Arc::clone(&client_ended),
    ));
    let mut s2c = tokio::spawn(pump(
        Direction::ServerToClient,
        child_out,
        NdjsonCodec::with_parser(c.max_frame_bytes, parser),
        judge.clone(),
        to_client,
        to_server,
        c.monitor,
        Arc::new(Notify::new()),
    ));

    let grace = Duration::from_secs_f64(args.grace);
    // SIGTERM / SIGINT (an SDK client ending the session kills our process group): the
    // server may have got the same signal, or not (a signal to our pid alone); either way we
    // close its stdin as a closing client would, give it the grace period, then SIGTERM, then
    // SIGKILL (spec digest §7.1), and still write the summary.
    let mut signals = Signals::new()?;
    let (mut c2s_done, mut s2c_done) = (false, false);
    let mut stage = Stop::Running;
    // After the client's end (not after a signal), the grace period starts once the server's
    // stdin is closed, every frame the client sent written to it (the transport's order:
    // close the input, then wait), and is renewed while the server is held back by a client
    // that still reads (`client_progress`), so a server answering a slow client is not ended
    // while it works (re-trial: a server that started reading after 6 s got SIGTERM at 5 s with all
    // 100,000 requests still queued for it, and one writing 100 KB answers to a slow reader
    // lost 1,700 of 3,000); output that flows freely (a server sending notifications after
    // its EOF) does not renew it. A server that never reads its input holds the shutdown up
    // as it would hold up a client writing to it through a pipe; SIGTERM or SIGINT to the
    // proxy then ends it.
    let mut renew = false;
    // A signal once the shutdown has started (a further one after the first, or one after the
    // client's end) skips the current wait: the next step (SIGTERM, SIGKILL) is taken at
    // once, and what is left for the client is given up (re-trial: a second SIGTERM and a
    // SIGINT were ignored while a slow client kept the drain going for over 45 s).
    let mut hurry = false;
    let mut seen_progress = (0, 0);
    let deadline = tokio::time::sleep(Duration::MAX / 4);
    tokio::pin!(deadline);
    // Wait for the server's stdout to close; the client closing first starts the shutdown.
    loop {
        tokio::select! {
            _ = &mut s2c => {
                s2c_done = true;
                break;
            }
            // The client closed its end: its frames still queued go on to the server, then
            // its stdin is closed.
            _ = client_ended.notified(), if stage == Stop::Running => stage = Stop::Draining,
            _ = &mut c2s, if stage == Stop::Running => {
                c2s_done = true;
                stage = Stop::Draining;
            }
            _ = stdin_closed.notified(), if stage == Stop::Draining => {
                stage = Stop::Grace;
                renew = true;
                seen_progress = client_progress();
                deadline.as_mut().reset(tokio::time::Instant::now() + grace);
            }
            name = signals.recv() => {
                if matches!(stage, Stop::Running | Stop::Draining) {
                    note(&judge, &format!("{name} received: closing the server's stdin"));
                    // Ending the writer closes the server's stdin (its EOF).
                    server_writer.abort();
                    c2s.abort();
                    stage = Stop::Grace;
                    renew = false;
                    deadline.as_mut().reset(tokio::time::Instant::now() + grace);
                    continue;
                }
                note_hurry(&judge, name);
                hurry = true;
                renew = false;
                match stage.next(&mut child, &judge, "after its stdin closed") {
                    Some(wait) => deadline.as_mut().reset(tokio::time::Instant::now() + wait.unwrap_or(grace)),
                    None => break,
                }
            }
            _ = &mut deadline, if !matches!(stage, Stop::Running | Stop::Draining) => {
                let now = client_progress();
                let held_back = now.0 != seen_progress.0 || now.0 % 2 == 1;
                if stage == Stop::Grace && renew && held_back && now.1 != seen_progress.1 {
                    seen_progress = now;
                    deadline.as_mut().reset(tokio::time::Instant::now() + grace);
                    continue;
                }
                match stage.next(&mut child, &judge, "after its stdin closed") {
                    Some(wait) => deadline.as_mut().reset(tokio::time::Instant::now() + wait.unwrap_or(grace)),
                    None => break,
                }
            }
        }
    }
    // The server's output ended (it closed its stdout, or its output could not be
    // delivered); it should be exiting.
    let status = loop {
        tokio::select! {
            s = child.wait() => break s?,
            _ = tokio::time::sleep(grace) => {}
            name = signals.recv() => {
                note_hurry(&judge, name);
                hurry = true;
            }
        }
        if stage
            .next(&mut child, &judge, "after its output ended")
            .is_none()
        {
            break child.wait().await?;
        }
    };
    // What is queued for the client still goes to it while it reads (re-trial: a fixed 5 s
    // wait cut a slow reader off, one frame of ten lost without a word); given up, with a
    // note, once it has read nothing for DRAIN_PATIENCE.
    let mut client_writer = client_writer;
    let mut client_writer_done = false;
    let mut seen = client_progress().1;
    loop {
        if !hurry {
            tokio::select! {
                _ = &mut client_writer => {
                    client_writer_done = true;
                    break;
                }
                _ = tokio::time::sleep(DRAIN_PATIENCE) => {}
                name = signals.recv() => {
                    note_hurry(&judge, name);
                    hurry = true;
                }
            }
        }
        if hurry {
            if client_pending() {
                note(
                    &judge,
                    "output for the client not delivered: given up on a signal",
                );
            }
            break;
        }
        let now = client_progress().1;
        if now == seen {
            // Given up; only noted when something still waited for the client (otherwise
            // its writer only waits for the end of the server's output, held open by
            // something else, such as the server's own children).
            if client_pending() {
                note(
                    &judge,
                    &format!(
                        "output for the client not delivered: it read nothing for {} s after \
                         the server's output ended",
                        DRAIN_PATIENCE.as_secs()
                    ),
                );
            }
            break;
        }
        seen = now;
    }
    // Every task ends before the counts are read: what each drops on its way out (a frame
    // waiting for room, the items queued or unflushed) counts itself as lost.
    if !client_writer_done {
        end_task(client_writer).await;
    }
    if !c2s_done {
        end_task(c2s).await;
    }
    if !s2c_done {
        end_task(s2c).await;
    }
    end_task(server_writer).await;
    let code = exit_code(status);
    let mut guard = judge.lock().unwrap_or_else(|p| p.into_inner());
    let log = &mut guard.judge.log;
    log.stats.c2s.undelivered = Some(Lost::undelivered(&server_lost, &client_lost));
    log.stats.s2c.undelivered = Some(Lost::undelivered(&client_lost, &server_lost));
    log.summary(Some(i32::from(code)));
    Ok(code)
}

/// Ends a task that has not been awaited to its end, and waits until it has ended (its
/// future dropped).
async fn end_task<T>(task: tokio::task::JoinHandle<T>) {
    task.abort();
    let _ = task.await;
}

/// Where the shutdown of the server stands (spec digest §7.1: close its stdin, wait, SIGTERM,
/// wait, SIGKILL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Not shutting down.
    Running,
    /// The client closed its end; its frames are still being written to the server, whose
    /// stdin is closed after them.
    Draining,
    /// Its stdin is closed; waiting for it to exit.
    Grace,
    /// SIGTERM sent; waiting again.
    Terminated,
    /// SIGKILL sent.
    Killed,
}

impl Stop {
    /// The next step once the current one's wait ran out: sends the signal and says how long
    /// to wait next (`Some(None)`: the grace period; `Some(Some(d))`: `d`), or `None` when
    /// the server was already killed.
    fn next(
        &mut self,
        child: &mut tokio::process::Child,
        judge: &Arc<Mutex<Shared>>,
        when: &str,
    ) -> Option<Option<Duration>> {
        // A server that has exited gets no signal, and no note that it is "still running"
        // (re-trial: both were logged for a server that had exited 0, or on SIGTERM).
        if matches!(child.try_wait(), Ok(Some(_))) {
            *self = Stop::Killed;
            return None;
        }
        match *self {
            Stop::Running | Stop::Draining | Stop::Grace => {
                *self = Stop::Terminated;
                note(
                    judge,
                    &format!("server still running {when}: sending SIGTERM"),
                );
                if !terminate(child) {
                    return self.next(child, judge, when);
                }
                Some(None)
            }
            Stop::Terminated => {
                *self = Stop::Killed;
                note(
                    judge,
                    &format!("server still running {when} and SIGTERM: killing it"),
                );
                let _ = child.start_kill();
                // Its stdout may be held open by its own children: give up on it soon.
                Some(Some(Duration::from_secs(1)))
            }
            Stop::Killed => None,
        }
    }
}

/// Sends SIGTERM to the server; false where that is not possible (not Unix, or it has
/// exited), so the caller goes on to kill it.
fn terminate(child: &tokio::process::Child) -> bool {
    #[cfg(unix)]
    {
        let pid = child
            .id()
            .and_then(|id| rustix::process::Pid::from_raw(id as i32));
        if let Some(pid) = pid {
            return rustix::process::kill_process(pid, rustix::process::Signal::TERM).is_ok();
        }
    }
    #[cfg(not(unix))]
    let _ = child;
    false
}

/// The judge and the one session of the stdio connection, shared by both directions.
struct Shared {
    judge: Judge,
    session: Session,
}

fn note(judge: &Mutex<Shared>, message: &str) {
    judge
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .judge
        .log
        .record(&Note {
            event: "note",
            message,
        });
}

/// Notes a signal received once the shutdown has started (its waits are skipped).
fn note_hurry(judge: &Mutex<Shared>, name: &str) {
    note(
        judge,
        &format!("{name} received during the shutdown: not waiting"),
    );
}

/// Who sends in direction `dir`.
fn sender(dir: Direction) -> &'static str {
    match dir {
        Direction::ClientToServer => "client",
        Direction::ServerToClient => "server",
        _ => "sender",
    }
}

/// The server's exit status as ours: its code, or 128 + the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    if let Some(c) = status.code() {
        return (c & 0xff) as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return (128 + sig).clamp(0, 255) as u8;
        }
    }
    1
}

/// Reads one direction: frames, judges and routes every frame until EOF. Forwarded frames
/// wait for room in `forward` (reading ahead meanwhile, [`Input::forward`]); replies to the
/// sender go to `back` ([`Lane::reply`]). `ended` is told when the input ends. Under `monitor`
/// every read is forwarded as it is, before it is framed: nothing is held back or dropped,
/// not even a line over the frame limit (whose bytes the framer discards), and frames are
/// only judged and logged.
#[allow(clippy::too_many_arguments)]
async fn pump<R: AsyncRead + Unpin>(
    dir: Direction,
    mut reader: R,
    mut codec: NdjsonCodec,
    judge: Arc<Mutex<Shared>>,
    forward: Lane,
    back: Lane,
    monitor: bool,
    ended: Arc<Notify>,
) {
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut eof = false;
    let mut input = Input {
        reader: &mut reader,
        buf: &mut buf,
        eof: &mut eof,
        ended: &ended,
        raw: monitor.then(BytesMut::new),
        lost: Arc::clone(&forward.lost),
    };
    'read: loop {
        // Under `monitor`: everything read goes on as it was read, before it is framed.
        while let Some(fresh) = input
            .raw
            .as_mut()
            .filter(|r| !r.is_empty())
            .map(|r| r.split())
        {
            if input
                .forward(&forward, Out::Raw(fresh.freeze()))
                .await
                .is_err()
            {
                break 'read;
            }
        }
        loop {
            let item = if *input.eof {
                codec.decode_eof(input.buf)
            } else {
                codec.decode(input.buf)
            };
            let frame = match item {
                Ok(Some(f)) => f,
                Ok(None) => break,
                // Only I/O or fatal framing errors; neither is produced by this codec's
                // report-oversize policy on an in-memory buffer.
                Err(_) => break 'read,
            };
            let action = {
                let mut guard = judge.lock().unwrap_or_else(|p| p.into_inner());
                let Shared { judge, session } = &mut *guard;
                let parsed = frame.envelope().map(|e| e.envelope());
                judge.judge(session, dir, frame.offset(), frame.bytes(), parsed, None)
            };
            let sent = match action {
                // Already forwarded as read.
                Action::Forward if monitor => Ok(()),
                // Never an unterminated last line: the judge answers or drops it (and under
                // `monitor` it went on as read).
                Action::Forward => {
                    let term: &'static [u8] = if frame.cr_stripped() { b"\r\n" } else { b"\n" };
                    // Copied out of the read buffer: a zero-copy slice would keep the whole
                    // buffer it came from alive while queued, and the budget counts only the
                    // frame (re-trial: 155,000 small frames read one at a time held 691 MB
                    // against a 16 MiB budget).
                    let bytes = Bytes::copy_from_slice(frame.bytes());
                    input.forward(&forward, Out::Frame(bytes, term)).await
                }
                Action::Reply { body, .. } => {
                    reply(&back, body, &judge, dir).await;
                    Ok(())
                }
                Action::Replace(body) => input.forward(&forward, Out::Replacement(body)).await,
                // (Only under the HTTP policy; handled as its name says.)
                Action::ReplyAndReplace {
                    body, to_receiver, ..
                } => {
                    reply(&back, body, &judge, dir).await;
                    input.forward(&forward, Out::Replacement(to_receiver)).await
                }
                Action::Batch {
                    reply: body,
                    to_receiver,
                    ..
                } => {
                    if let Some(body) = body {
                        reply(&back, body, &judge, dir).await;
                    }
                    let mut sent = Ok(());
                    for body in to_receiver {
                        if sent.is_ok() {
                            sent = input.forward(&forward, Out::Replacement(body)).await;
                        } else {
                            // Not sent after all: counted as lost like the one that failed.
                            drop(forward.item(Out::Replacement(body)));
                        }
                    }
                    sent
                }
                Action::Drop => Ok(()),
            };
            if sent.is_err() {
                // The receiving side is gone; the proxy is shutting down.
                break 'read;
            }
        }
        if *input.eof {
            if input.raw.as_ref().is_none_or(|r| r.is_empty()) {
                break;
            }
        } else {
            input.read().await;
        }
    }
    forward.close();
}

/// Sends a reply to the sender in direction `dir` on its lane `back` ([`Lane::reply`]); a
/// sender that does not read its replies loses them past the budget (or is gone already: then
/// the reply is moot), and the first drop of a run is noted in the log.
async fn reply(back: &Lane, body: Vec<u8>, judge: &Mutex<Shared>, dir: Direction) {
    if back.reply(body).await == Err(Dropped::Full { first: true }) {
        note(
            judge,
            &format!(
                "replies to the {} dropped: more than {} bytes of replies wait for it and it \
                 reads none (further drops in a row are not noted)",
                sender(dir),
                back.budget
            ),
        );
    }
}

/// Writes what arrives on `rx` to `w`, flushing whenever the queue is momentarily empty; an
/// item's room in the lane's budget is given back once it is written. `handed_off`: `w`
/// takes a write before it is done ([`Counting`]).
async fn write_loop<W: AsyncWrite + Unpin>(
    w: W,
    mut rx: LaneRx,
    handed_off: bool,
) -> io::Result<()> {
    let mut unflushed = Unflushed {
        items: Vec::new(),
        end: rx.written.load(Relaxed),
        written: Arc::clone(&rx.written),
    };
    let w = Counting {
        inner: w,
        written: Arc::clone(&rx.written),
        handed_off,
        taken: 0,
    };
    let mut w = BufWriter::with_capacity(READ_CHUNK, w);
    while let Some(first) = rx.rx.recv().await {
        let mut close = unflushed.put(&mut w, first).await?;
        while !close {
            match rx.rx.try_recv() {
                Ok(m) => close = unflushed.put(&mut w, m).await?,
                Err(_) => break,
            }
        }
        w.flush().await?;
        unflushed.delivered();
        if close {
            let _ = w.shutdown().await;
            return Ok(());
        }
    }
    w.flush().await?;
    let _ = w.shutdown().await;
    Ok(())
}

/// The items a writer has put into its buffer since its last flush, each with the end of its
/// bytes in the output's byte count ([`Lane::written`]). They keep their room in the lane's
/// budget until flushed, so that an empty budget means nothing waits for this output. When
/// the writer ends first (its output failed, or its task was ended), those the output had
/// not taken whole are counted as lost.
struct Unflushed {
    items: Vec<(u64, Queued)>,
    /// The end of the last item put, in bytes written to the output.
    end: u64,
    written: Arc<AtomicU64>,
}

impl Unflushed {
    /// Writes one item into `w`; true when it was [`Out::Close`].
    async fn put<W: AsyncWrite + Unpin>(
        &mut self,
        w: &mut BufWriter<W>,
        item: Queued,
    ) -> io::Result<bool> {
        self.end += item.out.len() as u64;
        // Held before it is written, so that a write that fails counts it.
        self.items.push((self.end, item));
        match &self.items[self.items.len() - 1].1.out {
            Out::Frame(b, term) => {
                w.write_all(b).await?;
                w.write_all(term).await?;
            }
            Out::Raw(b) => w.write_all(b).await?,
            Out::Reply(b) | Out::Replacement(b) => {
                w.write_all(b).await?;
                w.write_all(b"\n").await?;
            }
            Out::Close => return Ok(true),
        }
        Ok(false)
    }

    /// Everything put was flushed to the output.
    fn delivered(&mut self) {
        for (_, item) in self.items.drain(..) {
            item.delivered();
        }
    }
}

impl Drop for Unflushed {
    fn drop(&mut self) {
        let written = self.written.load(Relaxed);
        for (end, item) in self.items.drain(..) {
            if end <= written {
                item.delivered();
            }
        }
    }
}

/// An output that counts the bytes written to it (a writer's progress, [`Lane::written`]).
/// With `handed_off` (tokio's stdout, which takes a write and does it on a blocking thread),
/// a write's bytes count once the next write or a flush is taken, which waits for it to be
/// done: so that bytes still stuck in a write to a full pipe when the proxy ends are not
/// counted as delivered.
struct Counting<W> {
    inner: W,
    written: Arc<AtomicU64>,
    handed_off: bool,
    /// With `handed_off`: the bytes of the last write taken, not yet known to be done.
    taken: u64,
}

impl<W> Counting<W> {
    /// `n` more bytes taken by the output.
    fn took(&mut self, n: usize) {
        if self.handed_off {
            let done = std::mem::replace(&mut self.taken, n as u64);
            self.written.fetch_add(done, Relaxed);
        } else {
            self.written.fetch_add(n as u64, Relaxed);
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Counting<W> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        let this = &mut *self;
        let buf = &buf[..buf.len().min(WRITE_CHUNK)];
        let r = std::pin::Pin::new(&mut this.inner).poll_write(cx, buf);
        if let std::task::Poll::Ready(Ok(n)) = r {
            this.took(n);
        }
        r
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let r = std::pin::Pin::new(&mut self.inner).poll_flush(cx);
        if let std::task::Poll::Ready(Ok(())) = r {
            self.took(0);
        }
        r
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::Pin;
    use std::sync::atomic::AtomicUsize;
    use std::task::{Context, Poll};
    use tokio::io::ReadBuf;

    /// An endless source of one valid NDJSON line, repeated; counts the bytes read from it.
    struct Repeat {
        line: Vec<u8>,
        at: usize,
        read: Arc<AtomicUsize>,
    }

    impl AsyncRead for Repeat {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = &mut *self;
            let n = buf.remaining().min(this.line.len() - this.at);
            buf.put_slice(&this.line[this.at..this.at + n]);
            this.at = (this.at + n) % this.line.len();
            this.read.fetch_add(n, Relaxed);
            Poll::Ready(Ok(()))
        }
    }

    fn shared(max: usize) -> Arc<Mutex<Shared>> {
        let log = Log::open(Some(std::path::Path::new("/dev/null"))).unwrap();
        let judge = Judge::new(mcpwire::profile::Profile::Auto, 16, log, false).max_frame_len(max);
        Arc::new(Mutex::new(Shared {
            session: judge.new_session(),
            judge,
        }))
    }

    fn codec(max: usize) -> NdjsonCodec {
        let parser = Parser::with_limits(Limits {
            max_frame_len: max,
            ..Limits::DEFAULT
        });
        NdjsonCodec::with_parser(max, parser)
    }

    /// Open since session 9: a receiver that stops reading let the proxy queue 256 frames per
    /// direction (up to 1 GiB at the 4 MiB frame limit). A sender of 1 MiB lines to a
    /// receiver that reads nothing is now held back once the budget is queued: the reader
    /// stops at the budget plus what it reads ahead ([`READ_AHEAD`]) plus a frame or two
    /// in flight (one being written, one waiting for room), far below 256 frames.
    #[test]
    fn a_receiver_that_stops_reading_holds_the_sender_back_by_bytes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let data = "x".repeat(1 << 20);
            let line = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}"#
            ) + "\n";
            let line_len = line.len();
            let read = Arc::new(AtomicUsize::new(0));
            let src = Repeat {
                line: line.into_bytes(),
                at: 0,
                read: Arc::clone(&read),
            };
            // Nobody reads `_far_end`: the writer blocks once its pipe and buffer are full.
            let (stalled, _far_end) = tokio::io::duplex(1024);
            let budget = DEFAULT_QUEUE_BYTES as usize;
            let (forward, forward_rx) = lane(budget);
            let (back, _back_rx) = lane(budget);
            let room = Arc::clone(&forward.frames);
            let writer = tokio::spawn(write_loop(stalled, forward_rx, false));
            let max = 4 << 20;
            let reader = tokio::spawn(pump(
                Direction::ServerToClient,
                src,
                codec(max),
                shared(max),
                forward,
                back,
                false,
                Arc::new(Notify::new()),
            ));
            // Until the budget is spent (each step gives the reader the thread).
            let mut waited = 0;
            while room.available_permits() >= line_len {
                tokio::time::sleep(Duration::from_millis(10)).await;
                waited += 1;
                assert!(waited < 6000, "the queue never filled");
            }
            // Time to read more, if anything still let it.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let held = read.load(Relaxed);
            let bound = budget + READ_AHEAD + 3 * line_len + 2 * READ_CHUNK;
            assert!(
                held <= bound,
                "read {held} bytes with the receiver stalled (bound {bound})"
            );
            assert!(held >= budget, "read only {held} bytes");
            assert!(!reader.is_finished() && !writer.is_finished());
            reader.abort();
            writer.abort();
        });
    }

    /// Replies have a budget of their own: with the frame budget spent they are still
    /// queued. With the reply budget spent, a reply waits while the writer makes progress (its
    /// peer reads, only slower: re-trial, 2,000,000 invalid lines from a client reading
    /// everything lost 1.4 million replies when replies never waited), and is dropped once
    /// the writer has written nothing for [`REPLY_PATIENCE`]; later replies of that run are
    /// dropped at once, until one finds room again.
    #[test]
    fn replies_take_their_own_budget_and_wait_only_on_a_writer_that_writes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (lane, mut rx) = lane(1000);
            let frames = Arc::clone(&lane.frames)
                .try_acquire_many_owned(1000)
                .unwrap();
            // 165 bytes each (payload, newline, item) of 1000: six fit, the seventh does not.
            for _ in 0..6 {
                assert_eq!(lane.reply(vec![b'x'; 100]).await, Ok(()));
            }
            // No progress: dropped after the patience, the first of a run; the next at once.
            assert_eq!(
                lane.reply(vec![b'x'; 100]).await,
                Err(Dropped::Full { first: true })
            );
            assert_eq!(
                lane.reply(vec![b'x'; 100]).await,
                Err(Dropped::Full { first: false })
            );
            // The writer takes one: room for one again, and the run of drops is over.
            drop(rx.rx.try_recv().unwrap());
            assert_eq!(lane.reply(vec![b'x'; 100]).await, Ok(()));
            // A writer that keeps writing, slower than the replies come: the reply waits for
            // it instead of being dropped.
            let written = Arc::clone(&lane.written);
            let slow_writer = tokio::spawn(async move {
                for _ in 0..4 {
                    tokio::time::sleep(REPLY_PATIENCE / 2).await;
                    written.fetch_add(10, Relaxed);
                }
                drop(rx.rx.recv().await);
                rx
            });
            assert_eq!(lane.reply(vec![b'x'; 100]).await, Ok(()));
            let mut rx = slow_writer.await.unwrap();
            // A reply larger than the whole budget takes all of it: queued once it is empty.
            while rx.rx.try_recv().is_ok() {}
            assert_eq!(lane.reply(vec![b'x'; 5000]).await, Ok(()));
            drop(frames);
            // The writer gone: the budgets close, a waiting reader stops waiting.
            drop(rx);
            assert!(lane.frames.is_closed() && lane.replies.is_closed());
            assert_eq!(lane.reply(vec![b'x'; 1]).await, Err(Dropped::Gone));
        });
    }
}
