//! The `mcpwire` command line: argument parsing (clap derive) and the `check` / `stats`
//! drivers. See DESIGN.md "CLI contract".

pub mod headers;
pub mod human;
pub mod input;
pub mod proxy;
pub mod record;
pub mod stats;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use annotate_snippets::Renderer;
use clap::{Parser as ClapParser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpwire::profile::{Direction, Profile, Validator};
use mcpwire::{Limits, Parser};
use serde::Serialize;

use input::{FrameReader, Source, Transport};
use record::Record;

/// Inputs larger than this (bytes, all files together) get a progress bar on a terminal.
const PROGRESS_MIN_BYTES: u64 = 50 * 1000 * 1000;

/// Capacity of the standard-output buffer (bytes): records are written in chunks of about
/// this size, not one `write(2)` per frame.
const OUT_BUF: usize = 64 * 1024;

/// Exit status: every frame valid.
pub const EXIT_VALID: u8 = 0;
/// Exit status: at least one frame invalid.
pub const EXIT_INVALID: u8 = 1;
/// Exit status: usage or I/O error.
pub const EXIT_ERROR: u8 = 2;

/// Line-rate MCP (Model Context Protocol) traffic checker.
#[derive(Debug, ClapParser)]
#[command(name = "mcpwire", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate every frame: JSON, JSON-RPC envelope, MCP profile rules.
    ///
    /// Exit status: 0 all frames valid, 1 some frame invalid, 2 usage or I/O error.
    Check(CheckArgs),
    /// Histograms of shapes, invalid frames by kind, methods, message sizes, id types and
    /// protocol revisions.
    Stats(StatsArgs),
    /// Validating MCP proxy: `proxy stdio` (a server subprocess) or `proxy http` (Streamable
    /// HTTP); see `mcpwire proxy --help`.
    #[command(subcommand)]
    Proxy(proxy::ProxyCommand),
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Diagnostics with carets and summary tables.
    Human,
    /// JSON lines: `check` prints one object per frame, then a summary object; `stats` one
    /// object per input, then a totals object when there are several inputs.
    Jsonl,
}

/// MCP profile to validate against (`--profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Revision 2026-07-28, strict (per-request `_meta` envelope, `resultType`).
    #[value(name = "2026-07-28")]
    Rev20260728,
    /// Revision 2025-11-25.
    #[value(name = "2025-11-25")]
    Rev20251125,
    /// Revision 2025-06-18.
    #[value(name = "2025-06-18")]
    Rev20250618,
    /// Revision 2025-03-26 (batches allowed).
    #[value(name = "2025-03-26")]
    Rev20250326,
    /// Revision 2024-11-05.
    #[value(name = "2024-11-05")]
    Rev20241105,
    /// Any revision before 2026-07-28 (union of the legacy rules).
    Legacy,
    /// Decided per input from the traffic (`server/discover` / `initialize`, per-request
    /// `_meta` protocolVersion); the default.
    Auto,
}

impl ProfileArg {
    /// The library profile.
    pub fn profile(self) -> Profile {
        match self {
            ProfileArg::Rev20260728 => Profile::V2026_07_28,
            ProfileArg::Rev20251125 => Profile::V2025_11_25,
            ProfileArg::Rev20250618 => Profile::V2025_06_18,
            ProfileArg::Rev20250326 => Profile::V2025_03_26,
            ProfileArg::Rev20241105 => Profile::V2024_11_05,
            ProfileArg::Legacy => Profile::Legacy,
            ProfileArg::Auto => Profile::Auto,
        }
    }
}

/// Which side sent the traffic (`--direction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DirectionArg {
    /// Client to server (also `c2s`).
    #[value(alias = "c2s")]
    ClientToServer,
    /// Server to client (also `s2c`).
    #[value(alias = "s2c")]
    ServerToClient,
    /// From the file name: `client-to-server` or `*.request.json` is client to server;
    /// `server-to-client`, `*.sse` or `*.response.json` is server to client; else (and
    /// stdin) unknown, and the direction rules are skipped.
    Auto,
}

impl DirectionArg {
    /// The direction of the input named `name` (`auto` infers it from the name).
    pub fn direction_of(self, name: &str) -> Direction {
        match self {
            DirectionArg::ClientToServer => Direction::ClientToServer,
            DirectionArg::ServerToClient => Direction::ServerToClient,
            DirectionArg::Auto => input::infer_direction(name),
        }
    }
}

/// The `--max-frame-bytes` parser: a byte count of at least 1 (0 would make every frame
/// `frame-too-large`, so it is a usage error).
pub(crate) fn frame_bytes() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
}

#[derive(Debug, clap::Args)]
struct CommonArgs {
    /// Framing of the input.
    #[arg(long, value_enum, default_value = "stdio")]
    transport: Transport,
    /// Largest frame accepted, in bytes (at least 1).
    #[arg(long, default_value_t = Limits::DEFAULT.max_frame_len, value_name = "BYTES",
          value_parser = frame_bytes())]
    max_frame_bytes: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// MCP profile: the rules of one revision, `legacy` (any revision before 2026-07-28) or
    /// `auto` (decided per input from `server/discover` / `initialize` and per-request
    /// `_meta` protocolVersion).
    #[arg(long, value_enum, default_value = "auto")]
    profile: ProfileArg,
    /// Direction of the traffic; `auto` reads it from the file name (`client-to-server`,
    /// `server-to-client`, `*.sse`, `*.request.json`, `*.response.json`), else unknown
    /// (direction rules skipped).
    #[arg(long, value_enum, default_value = "auto")]
    direction: DirectionArg,
    /// Streamable HTTP header-mirror check: a jsonl file of `{headers, body}` records (one
    /// POST each); every body is checked as a client-to-server message and against its
    /// `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` headers.
    /// `-` reads the records from standard input.
    #[arg(long, value_name = "FILE")]
    headers: Option<PathBuf>,
    /// Accept the Tasks extension (`io.modelcontextprotocol/tasks`): its methods and the
    /// `resultType` `"task"`, as when a peer has advertised it.
    #[arg(long)]
    tasks_extension: bool,
    #[command(flatten)]
    common: CommonArgs,
    /// Input files; `-` reads standard input as a stream. Optional with `--headers`.
    #[arg(required_unless_present = "headers", value_name = "FILE")]
    files: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct StatsArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Input files; `-` reads standard input as a stream.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Totals of a `check` run (the `summary` object).
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    /// Inputs read (including ones that failed to open).
    pub files: u64,
    /// Inputs that could not be read (opened or read to the end).
    pub io_errors: u64,
    /// Each input counted in `io_errors`, in input order: its name and the OS error, so a
    /// jsonl consumer sees which input failed without parsing stderr.
    pub unreadable: Vec<Unreadable>,
    /// Frames seen.
    pub frames: u64,
    /// Valid frames.
    pub valid: u64,
    /// Invalid frames.
    pub invalid: u64,
    /// Input bytes read.
    pub bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `bytes / seconds`.
    pub bytes_per_second: f64,
    /// Frames by shape.
    pub shapes: BTreeMap<String, u64>,
    /// Frames by method (requests and notifications).
    pub methods: BTreeMap<String, u64>,
    /// Violations by kind.
    pub violations: BTreeMap<String, u64>,
    /// SSE events with data of another type than `message`, by event type: skipped, not
    /// frames ([`FrameReader::other_events`]; empty for the other transports).
    pub sse_other_events: BTreeMap<String, u64>,
    /// SSE field lines whose name is none of `data`, `event`, `id`, `retry` (ignored by the
    /// event stream standard: a misspelt `Data:` line loses its value).
    pub sse_unknown_fields: u64,
}

/// An input that could not be opened or read to the end (`summary.unreadable`).
#[derive(Debug, Serialize)]
pub struct Unreadable {
    /// The input's name as given (`<stdin>` for standard input, `-` on the command line).
    pub file: String,
    /// The name's bytes in Base64 when they are not UTF-8 ([`Source::name_base64`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_base64: Option<String>,
    /// Frames read from it before the error (0 when it could not be opened).
    pub frames: u64,
    /// The error, as the OS reported it.
    pub error: String,
}

impl Summary {
    /// Counts an unreadable input: `io_errors`, its `unreadable` entry and a stderr line.
    ///
    /// # Errors
    /// Write errors on `err`.
    pub fn unreadable(
        &mut self,
        err: &mut dyn Write,
        src: &Source,
        frames: u64,
        e: &io::Error,
    ) -> io::Result<()> {
        self.io_errors += 1;
        let file = src.display_name();
        writeln!(err, "mcpwire: {}: {e}", human::printable(&file))?;
        self.unreadable.push(Unreadable {
            file,
            file_base64: src.name_base64(),
            frames,
            error: e.to_string(),
        });
        Ok(())
    }
}

#[derive(Serialize)]
struct SummaryLine<'a> {
    summary: &'a Summary,
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Check(a) => run_check(&a),
        Command::Stats(a) => stats::run(
            &a.files,
            a.common.transport,
            a.common.max_frame_bytes,
            a.common.format,
        ),
        Command::Proxy(p) => proxy::run(p),
    };
    match r {
        Ok(code) => ExitCode::from(code),
        // The reader of our output went away (`| head`): nothing more can be reported, and
        // the run did not finish, so it is never a success. `check` decides its own status
        // (see `run_check`); everything else exits 2 without a message.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_ERROR),
        Err(e) => {
            let _ = writeln!(anstream::stderr(), "mcpwire: {e}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// A progress bar on stderr when the inputs are large and stderr is a terminal.
pub fn progress(sources: &[Source]) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let total: u64 = sources
        .iter()
        .filter_map(|s| {
            s.path()
                .and_then(|p| std::fs::metadata(p).ok())
                .map(|m| m.len())
        })
        .sum();
    if total < PROGRESS_MIN_BYTES {
        return None;
    }
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta}")
    {
        pb.set_style(style);
    }
    Some(pb)
}

/// Runs `check` and returns its exit status.
///
/// When standard output is closed early (EPIPE, e.g. `mcpwire check … | head -1`), reading
/// stops at once and the status is the verdict so far: 1 when some frame judged before the
/// pipe closed was invalid, else 2 (an I/O error: the inputs were not all checked). It is
/// never 0, since the frames after the closed pipe were not judged.
fn run_check(args: &CheckArgs) -> io::Result<u8> {
    let mut sum = Summary::default();
    match check_inputs(args, &mut sum) {
        Ok(()) => Ok(if sum.io_errors > 0 {
            EXIT_ERROR
        } else if sum.invalid > 0 {
            EXIT_INVALID
        } else {
            EXIT_VALID
        }),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(if sum.invalid > 0 {
            EXIT_INVALID
        } else {
            EXIT_ERROR
        }),
        Err(e) => Err(e),
    }
}

/// Checks every input of `args`, writing records and the summary, and counting into `sum`.
fn check_inputs(args: &CheckArgs, sum: &mut Summary) -> io::Result<()> {
    let c = &args.common;
    if args.headers.as_deref() == Some(Path::new("-"))
        && args.files.iter().any(|f| f == Path::new("-"))
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "`--headers -` and a `-` FILE cannot both read standard input",
        ));
    }
    if args.files.iter().filter(|f| *f == Path::new("-")).count() > 1 {
        // The second `-` would read nothing (the first drained standard input): refused
        // rather than reported as an empty input (new-user trial, session 12).
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "`-` (standard input) given more than once",
        ));
    }
    let sources: Vec<Source> = args.files.iter().map(|f| Source::from_arg(f)).collect();
    let multi = sources.len() + usize::from(args.headers.is_some()) > 1;
    let limits = Limits {
        max_frame_len: c.max_frame_bytes,
        ..Limits::DEFAULT
    };
    let parser = Parser::with_limits(limits);
    let renderer = Renderer::styled();
    // Buffered: flushed after each frame only when reading stdin (a stream whose records
    // must come out as its frames arrive), else when full and at the end. The buffer sits
    // under the colour adapter: above it, stripping styles off a full buffer wrote each
    // piece between two escape codes with its own `write` call (8 per violation; trial
    // finding: 200,000 violations took 1.6 million system calls).
    // JSON lines hold no styles (serde_json escapes ESC), so nothing is stripped from them:
    // the strip adapter scanned every byte and took 42 % of `check --format jsonl` on 1M
    // small frames (perf, session 22).
    let choice = match c.format {
        Format::Jsonl => anstream::ColorChoice::AlwaysAnsi,
        Format::Human => anstream::AutoStream::choice(&io::stdout()),
    };
    let buffered: Box<dyn Write> =
        Box::new(io::BufWriter::with_capacity(OUT_BUF, io::stdout().lock()));
    let mut out = anstream::AutoStream::new(buffered, choice);
    let mut err = anstream::stderr().lock();
    let pb = progress(&sources);
    let started = Instant::now();
    for src in &sources {
        sum.files += 1;
        let name = src.display_name();
        let reader = match src.open() {
            Ok(r) => r,
            Err(e) => {
                out.flush()?;
                sum.unreadable(&mut err, src, 0, &e)?;
                continue;
            }
        };
        let direction = args.direction.direction_of(&name);
        let mut checker = record::Checker::new(new_validator(args, direction), direction);
        let streaming = matches!(src, Source::Stdin);
        let name_base64 = src.name_base64();
        let mut frames = FrameReader::new(reader, c.transport, c.max_frame_bytes)
            .empty_body_is_frame(direction == Direction::ClientToServer);
        let mut n = 0u64;
        let mut reported = 0u64;
        loop {
            let frame = match frames.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => {
                    out.flush()?;
                    sum.unreadable(&mut err, src, n, &e)?;
                    break;
                }
            };
            n += 1;
            let mut rec: Record = record::judge(&parser, &mut checker, &frame, n);
            if multi {
                rec.file = Some(name.clone());
                rec.file_base64 = name_base64.clone();
            }
            tally(sum, &rec);
            match c.format {
                Format::Jsonl => {
                    out.write_all(&record::json_line(&rec)?)?;
                }
                Format::Human => {
                    if !rec.valid {
                        human::write_violations(&mut out, &renderer, &name, &frame, &rec)?;
                    }
                }
            }
            if streaming {
                out.flush()?;
            }
            if let Some(pb) = &pb {
                let now = frames.bytes_read;
                if now - reported >= 1 << 20 {
                    pb.inc(now - reported);
                    reported = now;
                }
            }
        }
        sum.bytes += frames.bytes_read;
        sum.sse_unknown_fields += frames.sse_unknown_fields();
        for (name, n) in std::mem::take(&mut frames.other_events) {
            input::add_event_type(&mut sum.sse_other_events, name, n);
        }
        if let Some(pb) = &pb {
            pb.inc(frames.bytes_read - reported);
        }
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    if let Some(path) = &args.headers {
        let opts = headers::Options {
            parser: &parser,
            validator: new_validator(args, Direction::ClientToServer),
            max_frame_bytes: c.max_frame_bytes,
            format: c.format,
            multi,
            renderer: &renderer,
        };
        headers::run(path, &opts, sum, &mut out, &mut err)?;
    }
    sum.seconds = started.elapsed().as_secs_f64();
    sum.bytes_per_second = if sum.seconds > 0.0 {
        sum.bytes as f64 / sum.seconds
    } else {
        0.0
    };
    match c.format {
        Format::Jsonl => {
            out.write_all(&record::json_line(&SummaryLine { summary: sum })?)?;
        }
        Format::Human => write_summary(&mut out, sum)?,
    }
    out.flush()
}

/// A validator for one input flowing in `direction`, with the options of `args`.
fn new_validator(args: &CheckArgs, direction: Direction) -> Validator {
    let mut v = Validator::new(args.profile.profile(), direction);
    if args.tasks_extension {
        v.enable_tasks_extension();
    }
    v
}

pub(crate) fn tally(sum: &mut Summary, rec: &Record) {
    sum.frames += 1;
    if rec.valid {
        sum.valid += 1;
    } else {
        sum.invalid += 1;
    }
    *sum.shapes.entry(rec.shape.to_owned()).or_default() += 1;
    if let Some(m) = &rec.method {
        *sum.methods.entry(m.clone()).or_default() += 1;
    }
    for v in &rec.violations {
        *sum.violations.entry(v.kind.clone()).or_default() += 1;
    }
}

fn write_summary(out: &mut dyn Write, sum: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "{} frame{}: {} valid, {} invalid; {} in {:.3} s ({}/s){}",
        sum.frames,
        if sum.frames == 1 { "" } else { "s" },
        sum.valid,
        sum.invalid,
        human::bytes(sum.bytes),
        sum.seconds,
        human::bytes(sum.bytes_per_second as u64),
        if sum.io_errors > 0 {
            format!("; {} input(s) unreadable", sum.io_errors)
        } else {
            String::new()
        },
    )?;
    human::write_counts(out, "by shape", &sum.shapes)?;
    human::write_counts(out, "by method", &sum.methods)?;
    human::write_counts(out, "violations by kind", &sum.violations)?;
    human::write_counts(
        out,
        "SSE events of other types (skipped, not frames)",
        &sum.sse_other_events,
    )?;
    human::write_unknown_fields(out, sum.sse_unknown_fields)?;
    Ok(())
}
