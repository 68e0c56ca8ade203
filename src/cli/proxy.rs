//! `mcpwire proxy`: a validating MCP proxy (issue 8).
//!
//! * [`stdio`]: `mcpwire proxy stdio [OPTIONS] -- SERVER [ARGS]...` spawns the server and
//!   sits between the client (our stdin/stdout) and the server (its stdin/stdout), spec
//!   digest §7.1.
//! * [`http`]: `mcpwire proxy http --listen 127.0.0.1:PORT --upstream URL`, a Streamable
//!   HTTP reverse proxy, spec digest §7.2.
//!
//! Both frame and validate every message in both directions with [`mcpwire::profile::Session`]
//! and forward the original bytes of every accepted frame. What happens to a rejected frame
//! is decided by [`judge::Judge`] (shared by both transports) and logged as jsonl by
//! [`log::Log`].

pub mod http;
pub mod judge;
pub mod log;
pub mod sessions;
pub mod stdio;

use std::io;
use std::path::PathBuf;

use clap::Subcommand;
use mcpwire::framing::DEFAULT_MAX_FRAME_LEN;
use mcpwire::profile::Profile;

/// `mcpwire proxy` subcommands.
#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Spawn an MCP server over stdio and proxy our stdin/stdout to it, validating both
    /// directions.
    ///
    /// Rejected client requests are answered with a JSON-RPC error and never forwarded;
    /// rejected notifications are dropped; every violation is logged as jsonl. Exit status:
    /// the server's (128 + signal number when it was killed by a signal).
    Stdio(stdio::StdioArgs),
    /// Streamable HTTP reverse proxy: listen on a loopback address and forward to the
    /// upstream MCP endpoint, validating every POST body (and its mirrored headers) and every
    /// response message.
    ///
    /// A rejected POST is answered with its JSON-RPC error reply (HTTP 400, 404, 413 …) and
    /// never forwarded; responses (JSON or SSE) stream through unchanged and their violations
    /// are logged. Runs until SIGINT / SIGTERM, then writes the summary record.
    Http(http::HttpArgs),
}

/// Options common to both transports.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonProxyArgs {
    /// MCP profile the traffic is validated against.
    #[arg(long, default_value = "auto", value_parser = parse_profile)]
    pub profile: Profile,
    /// Write the jsonl log (violations, then a summary) to FILE instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Bytes of records the log (file or stderr) may take; past it, records are dropped and
    /// counted in the summary's `log_records_dropped`. The summary is always written.
    /// Default: no bound.
    #[arg(long, value_name = "BYTES")]
    pub log_max_bytes: Option<u64>,
    /// Largest frame (stdio line, HTTP body, SSE event) accepted, in bytes (at least 1). A
    /// client's POST body over it is answered 413 (`proxy http --max-body-bytes` may set a
    /// smaller body limit, never a larger one).
    #[arg(long, default_value_t = DEFAULT_MAX_FRAME_LEN, value_name = "BYTES",
          value_parser = super::frame_bytes())]
    pub max_frame_bytes: usize,
    /// Requests tracked in flight per sender (responses are matched to them).
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub max_in_flight: usize,
    /// Log violations but forward every frame unchanged (no error replies, nothing dropped).
    #[arg(long)]
    pub monitor: bool,
}

/// The most seconds a duration option takes (`--grace`, `--read-timeout`): about 11.6 days.
pub const MAX_SECONDS: f64 = 1_000_000.0;

/// Parses a number of seconds from 0 to [`MAX_SECONDS`] (re-trial: `--grace inf` and
/// `--grace 1e30` panicked converting to a duration, `NaN` was read as 0).
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|e| format!("{e}"))?;
    if (0.0..=MAX_SECONDS).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{s} is not a number of seconds from 0 to {MAX_SECONDS}"
        ))
    }
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse::<Profile>().map_err(|e| e.to_string())
}

/// Runs `mcpwire proxy …`; returns the process exit status.
pub fn run(cmd: ProxyCommand) -> io::Result<u8> {
    match cmd {
        ProxyCommand::Stdio(a) => stdio::run(a),
        ProxyCommand::Http(a) => http::run(a),
    }
}

/// The termination signals the proxies react to: SIGTERM and SIGINT on Unix, Ctrl-C
/// elsewhere.
pub struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    /// Installs the handlers (needs a running tokio runtime with signals enabled).
    ///
    /// # Errors
    /// The OS refused to install a handler.
    pub fn new() -> io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Self {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Self {})
        }
    }

    /// Waits for the next signal; returns its name (`"SIGTERM"`, `"SIGINT"`, or `"Ctrl-C"`
    /// off Unix).
    pub async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            match tokio::signal::ctrl_c().await {
                Ok(()) => "Ctrl-C",
                // No handler could be installed: never resolve, as with no signal at all.
                Err(_) => std::future::pending().await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Durations at their bounds and just past them; `inf`, `NaN` and `1e30` are refused.
    #[test]
    fn seconds_are_numbers_within_bounds() {
        assert_eq!(parse_seconds("0"), Ok(0.0));
        assert_eq!(parse_seconds("1000000"), Ok(MAX_SECONDS));
        assert_eq!(parse_seconds("0.25"), Ok(0.25));
        for bad in ["-0.001", "1000000.001", "inf", "NaN", "1e30", "x", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        // The largest is still a duration, and still fits after now.
        let d = std::time::Duration::try_from_secs_f64(MAX_SECONDS).unwrap();
        assert!(std::time::Instant::now().checked_add(d).is_some());
    }
}
