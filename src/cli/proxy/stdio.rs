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
//! stdout), connected by bounded channels, so a slow reader on one side never blocks the
//! other direction.
//!
//! Shutdown (spec digest §7.1): when the client closes our stdin, or on SIGTERM / SIGINT
//! (Ctrl-C off Unix; SDK clients signal the whole process group, so the server may have got it
//! too), we close the server's stdin and wait for it to exit: `--grace` seconds, then SIGTERM,
//! `--grace` seconds more, then SIGKILL. Either way the summary record is written. When the server closes its stdout (it
//! exited), we flush what is left to the client and exit with the server's exit status
//! (128 + signal number when a signal ended it).

use std::ffi::OsString;
use std::io;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use mcpwire::codec::NdjsonCodec;
use mcpwire::profile::{Direction, Session};
use mcpwire::{Limits, Parser};
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio_util::codec::Decoder;

use super::judge::{Action, Judge};
use super::log::Log;
use super::{CommonProxyArgs, Signals};

/// Capacity of the channel in front of each writer, in messages.
const CHANNEL: usize = 256;
/// Read buffer growth step, bytes.
const READ_CHUNK: usize = 64 * 1024;

/// `mcpwire proxy stdio` arguments.
#[derive(Debug, clap::Args)]
pub struct StdioArgs {
    #[command(flatten)]
    common: CommonProxyArgs,
    /// Seconds to wait for the server to exit after its stdin was closed (the client closed
    /// its end, or a SIGTERM / SIGINT came), before SIGTERM, and again before SIGKILL.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    grace: f64,
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
    /// A message the proxy made (error reply or replacement); gets `\n`.
    Line(Vec<u8>),
    /// The sender's side closed: flush and close this output.
    Close,
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
    let mut log = Log::open(c.log.as_deref())?;
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

    let (srv_tx, srv_rx) = mpsc::channel::<Out>(CHANNEL);
    let (cli_tx, cli_rx) = mpsc::channel::<Out>(CHANNEL);
    let server_writer = tokio::spawn(write_loop(child_in, srv_rx));
    let client_writer = tokio::spawn(write_loop(tokio::io::stdout(), cli_rx));
    let mut c2s = tokio::spawn(pump(
        Direction::ClientToServer,
        tokio::io::stdin(),
        NdjsonCodec::with_parser(c.max_frame_bytes, parser),
        judge.clone(),
        srv_tx.clone(),
        cli_tx.clone(),
        c.monitor,
    ));
    let mut s2c = tokio::spawn(pump(
        Direction::ServerToClient,
        child_out,
        NdjsonCodec::with_parser(c.max_frame_bytes, parser),
        judge.clone(),
        cli_tx,
        srv_tx,
        c.monitor,
    ));

    let grace = Duration::from_secs_f64(args.grace.max(0.0));
    // SIGTERM / SIGINT (an SDK client ending the session kills our process group): the
    // server may have got the same signal, or not (a signal to our pid alone); either way we
    // close its stdin as a closing client would, give it the grace period, then SIGTERM, then
    // SIGKILL (spec digest §7.1), and still write the summary.
    let mut signals = Signals::new()?;
    let mut server_writer = Some(server_writer);
    let mut stage = Stop::Running;
    let deadline = tokio::time::sleep(Duration::MAX / 4);
    tokio::pin!(deadline);
    // Wait for the server's stdout to close; the client closing first starts the shutdown.
    loop {
        tokio::select! {
            _ = &mut s2c => break,
            _ = &mut c2s, if stage == Stop::Running => {
                stage = Stop::Grace;
                deadline.as_mut().reset(tokio::time::Instant::now() + grace);
            }
            name = signals.recv(), if stage == Stop::Running => {
                note(&judge, &format!("{name} received: closing the server's stdin"));
                // Dropping the writer closes the server's stdin (its EOF).
                if let Some(w) = server_writer.take() {
                    w.abort();
                }
                c2s.abort();
                stage = Stop::Grace;
                deadline.as_mut().reset(tokio::time::Instant::now() + grace);
            }
            _ = &mut deadline, if stage != Stop::Running => {
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
        match tokio::time::timeout(grace, child.wait()).await {
            Ok(s) => break s?,
            Err(_) => {
                if stage
                    .next(&mut child, &judge, "after its output ended")
                    .is_none()
                {
                    break child.wait().await?;
                }
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), client_writer).await;
    c2s.abort();
    if let Some(w) = server_writer {
        w.abort();
    }
    let code = exit_code(status);
    judge
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .judge
        .log
        .summary(Some(i32::from(code)));
    Ok(code)
}

/// Where the shutdown of the server stands (spec digest §7.1: close its stdin, wait, SIGTERM,
/// wait, SIGKILL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Not shutting down.
    Running,
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
        match *self {
            Stop::Running | Stop::Grace => {
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

/// Reads one direction: frames, judges and routes every frame until EOF. Under `monitor`
/// every read is forwarded as it is, before it is framed: nothing is held back or dropped,
/// not even a line over the frame limit (whose bytes the framer discards), and frames are
/// only judged and logged.
async fn pump<R: AsyncRead + Unpin>(
    dir: Direction,
    mut reader: R,
    mut codec: NdjsonCodec,
    judge: Arc<Mutex<Shared>>,
    forward: mpsc::Sender<Out>,
    back: mpsc::Sender<Out>,
    monitor: bool,
) {
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut eof = false;
    'read: loop {
        loop {
            let item = if eof {
                codec.decode_eof(&mut buf)
            } else {
                codec.decode(&mut buf)
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
                    forward.send(Out::Frame(frame.into_bytes(), term)).await
                }
                Action::Reply { body, .. } => {
                    // The sender may be gone already (it closed its end); its reply is moot.
                    let _ = back.send(Out::Line(body)).await;
                    Ok(())
                }
                Action::Replace(body) => forward.send(Out::Line(body)).await,
                // (Only under the HTTP policy; handled as its name says.)
                Action::ReplyAndReplace {
                    body, to_receiver, ..
                } => {
                    let _ = back.send(Out::Line(body)).await;
                    forward.send(Out::Line(to_receiver)).await
                }
                Action::Batch {
                    reply, to_receiver, ..
                } => {
                    if let Some(body) = reply {
                        let _ = back.send(Out::Line(body)).await;
                    }
                    let mut sent = Ok(());
                    for body in to_receiver {
                        sent = forward.send(Out::Line(body)).await;
                        if sent.is_err() {
                            break;
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
        if eof {
            break;
        }
        buf.reserve(READ_CHUNK);
        let before = buf.len();
        match reader.read_buf(&mut buf).await {
            Ok(0) => eof = true,
            Ok(_) if monitor => {
                let fresh = Bytes::copy_from_slice(&buf[before..]);
                if forward.send(Out::Raw(fresh)).await.is_err() {
                    break;
                }
            }
            Ok(_) => {}
            Err(_) => eof = true,
        }
    }
    let _ = forward.send(Out::Close).await;
}

/// Writes what arrives on `rx` to `w`, flushing whenever the channel is momentarily empty.
async fn write_loop<W: AsyncWrite + Unpin>(w: W, mut rx: mpsc::Receiver<Out>) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(READ_CHUNK, w);
    while let Some(first) = rx.recv().await {
        let mut close = put(&mut w, first).await?;
        while !close {
            match rx.try_recv() {
                Ok(m) => close = put(&mut w, m).await?,
                Err(_) => break,
            }
        }
        w.flush().await?;
        if close {
            let _ = w.shutdown().await;
            return Ok(());
        }
    }
    w.flush().await?;
    let _ = w.shutdown().await;
    Ok(())
}

/// Writes one item; true when it was [`Out::Close`].
async fn put<W: AsyncWrite + Unpin>(w: &mut BufWriter<W>, m: Out) -> io::Result<bool> {
    match m {
        Out::Frame(b, term) => {
            w.write_all(&b).await?;
            w.write_all(term).await?;
        }
        Out::Raw(b) => w.write_all(&b).await?,
        Out::Line(b) => {
            w.write_all(&b).await?;
            w.write_all(b"\n").await?;
        }
        Out::Close => return Ok(true),
    }
    Ok(false)
}
