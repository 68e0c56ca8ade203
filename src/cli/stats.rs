//! `mcpwire stats`: shapes, invalid frames by kind, methods, message sizes, id types and
//! protocol revisions seen.

use std::collections::BTreeMap;
use std::io::{self, Write};

use mcpwire::envelope::{Envelope, members};
use mcpwire::{Id, Limits, Parser, Shape};
use serde::Serialize;

use super::input::{FrameReader, Source, Transport};
use super::{EXIT_ERROR, EXIT_VALID, Format, human};

/// The `_meta` key carrying the revision in 2026-07-28 traffic.
const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

/// Message size percentiles in bytes.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Sizes {
    /// Smallest frame.
    pub min: u64,
    /// Median (lower middle for an even count).
    pub median: u64,
    /// 99th percentile (nearest rank).
    pub p99: u64,
    /// Largest frame.
    pub max: u64,
}

impl Sizes {
    /// Percentiles of `v` (sorted in place); `None` when empty.
    pub fn of(v: &mut [u64]) -> Option<Self> {
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let rank = |p: f64| {
            let r = (p * v.len() as f64).ceil() as usize;
            v[r.clamp(1, v.len()) - 1]
        };
        Some(Sizes {
            min: v[0],
            median: v[(v.len() - 1) / 2],
            p99: rank(0.99),
            max: v[v.len() - 1],
        })
    }
}

/// The `stats` report of one input (or of all inputs, `file` absent).
#[derive(Debug, Default, Serialize)]
pub struct Stats {
    /// Input name; absent on the total over several inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The input name's bytes in Base64 when they are not UTF-8 (with `file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_base64: Option<String>,
    /// Inputs that could not be opened or read to the end: 0 or 1 for one input, their
    /// number in the total.
    pub io_errors: u64,
    /// Why the input could not be opened or read to the end, as the OS reported it (absent
    /// when it was read whole; the counts are of what was read before the error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Frames seen.
    pub frames: u64,
    /// Input bytes.
    pub bytes: u64,
    /// Frames by shape (frames that are not JSON count as `invalid`).
    pub shapes: BTreeMap<String, u64>,
    /// The `invalid` frames by why, as a stable kebab-case kind: the framing error
    /// (`frame-too-large`, `unterminated-line`, …), the JSON or limit error (`invalid-json`,
    /// `duplicate-key`, …) or the JSON-RPC envelope rule (`jsonrpc-missing`, `invalid-id`,
    /// …). Its counts add up to `shapes["invalid"]`. MCP profile rules are `check`'s.
    pub invalid_kinds: BTreeMap<String, u64>,
    /// Requests and notifications by method.
    pub methods: BTreeMap<String, u64>,
    /// Sizes in bytes of the frames read whole (framing errors are not counted: an oversize
    /// frame's length is not known; trial finding: its detection length was counted as its
    /// size); `None` (`null` in JSON lines) when there is none.
    pub sizes: Option<Sizes>,
    /// Ids by type: `integer`, `string`, `null`, `other` (any other value), `absent`, and
    /// `unreadable` for a frame that is not JSON or breaks a limit (a frame rejected only by
    /// the duplicate-key policy counts its id, as `check` shows it).
    pub ids: BTreeMap<String, u64>,
    /// Protocol revisions seen (`_meta` protocolVersion, `initialize` params and results),
    /// with the number of frames naming each.
    pub revisions: BTreeMap<String, u64>,
    /// SSE events with data of another type than `message`, by event type: skipped, not
    /// frames (as in `check`'s summary; empty for the other transports).
    pub sse_other_events: BTreeMap<String, u64>,
    /// SSE field lines of an unknown name (as in `check`'s summary).
    pub sse_unknown_fields: u64,
    #[serde(skip)]
    size_list: Vec<u64>,
}

impl Stats {
    /// Counts one frame: its envelope, or for a frame that did not parse the id `check`
    /// shows for it (`recovered`: the raw id text `Parser::recover_id` finds in a frame
    /// rejected only by the duplicate-key policy) and `why` (the framing or parse error's
    /// kind). `size` is `None` for a framing error (an oversize frame, whose length is not
    /// known, or a cut-off last line or event).
    fn add(
        &mut self,
        env: Result<&Envelope<'_>, &'static str>,
        size: Option<u64>,
        recovered: Option<&[u8]>,
    ) {
        self.frames += 1;
        self.size_list.extend(size);
        let env = match env {
            Ok(env) => env,
            Err(why) => {
                *self.invalid_kinds.entry(why.into()).or_default() += 1;
                *self.shapes.entry("invalid".into()).or_default() += 1;
                let id = match recovered.and_then(|r| r.first()) {
                    Some(b'"') => "string",
                    Some(_) => "integer",
                    None => "unreadable",
                };
                *self.ids.entry(id.into()).or_default() += 1;
                return;
            }
        };
        *self.shapes.entry(env.shape().name().into()).or_default() += 1;
        if let Some(why) = env.invalid_reason() {
            *self
                .invalid_kinds
                .entry(why.kind().name().into())
                .or_default() += 1;
        }
        if let Some(m) = env.method() {
            *self.methods.entry(m.decode().into_owned()).or_default() += 1;
        }
        let id = match env.id() {
            Some(Id::Int { .. }) => "integer",
            Some(Id::Str(_)) => "string",
            Some(Id::Null) => "null",
            None if env.id_raw().is_some() => "other",
            None => "absent",
        };
        *self.ids.entry(id.into()).or_default() += 1;
        for rev in revisions(env) {
            *self.revisions.entry(rev).or_default() += 1;
        }
    }

    fn finish(&mut self) {
        let mut v = std::mem::take(&mut self.size_list);
        self.sizes = Sizes::of(&mut v);
    }

    fn merge(&mut self, o: &Stats) {
        self.io_errors += o.io_errors;
        self.frames += o.frames;
        self.bytes += o.bytes;
        for (a, b) in [
            (&mut self.shapes, &o.shapes),
            (&mut self.invalid_kinds, &o.invalid_kinds),
            (&mut self.methods, &o.methods),
            (&mut self.ids, &o.ids),
            (&mut self.revisions, &o.revisions),
        ] {
            for (k, n) in b {
                *a.entry(k.clone()).or_default() += n;
            }
        }
        self.sse_unknown_fields += o.sse_unknown_fields;
        for (k, n) in &o.sse_other_events {
            super::input::add_event_type(&mut self.sse_other_events, k.clone(), *n);
        }
        self.size_list.extend_from_slice(&o.size_list);
    }
}

/// The JSON line of the total over several inputs.
#[derive(Serialize)]
struct TotalLine<'a> {
    total: &'a Stats,
}

/// Decoded string value of a JSON string token (with quotes), `None` for other values.
fn string_value(frame: &[u8], span: mcpwire::Span) -> Option<String> {
    let raw = span.slice(frame);
    if raw.len() < 2 || raw[0] != b'"' {
        return None;
    }
    let inner = std::str::from_utf8(&raw[1..raw.len() - 1]).ok()?;
    Some(mcpwire::JsonStr::from_raw(inner).decode().into_owned())
}

/// Revisions a frame names: its `_meta` protocolVersion, and `protocolVersion` of an
/// `initialize` request's params or of a result that has `protocolVersion` and `serverInfo`
/// (an `initialize` result).
fn revisions(env: &Envelope<'_>) -> Vec<String> {
    let frame = env.frame();
    let mut out = Vec::new();
    if let Some(meta) = env.meta() {
        for m in meta {
            if m.key == PROTOCOL_VERSION_META {
                out.extend(string_value(frame, m.value));
            }
        }
    }
    let initialize = env.method().is_some_and(|m| m.eq_str("initialize"));
    let obj = match env.shape() {
        Shape::Request if initialize => env.params_span(),
        Shape::Result => env.result_span(),
        _ => None,
    };
    if let Some(span) = obj {
        let mut version = None;
        let mut server_info = initialize;
        for m in members(frame, span) {
            match &*m.key {
                "protocolVersion" => version = string_value(frame, m.value),
                "serverInfo" => server_info = true,
                _ => {}
            }
        }
        if server_info {
            out.extend(version);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Runs `mcpwire stats`.
pub fn run(
    files: &[std::path::PathBuf],
    transport: Transport,
    max_frame: usize,
    format: Format,
) -> io::Result<u8> {
    let parser = Parser::with_limits(Limits {
        max_frame_len: max_frame,
        ..Limits::DEFAULT
    });
    let mut out = anstream::stdout().lock();
    let mut err = anstream::stderr().lock();
    let sources: Vec<Source> = files.iter().map(|f| Source::from_arg(f)).collect();
    let pb = super::progress(&sources);
    let mut total = Stats::default();
    let mut failed = false;
    for src in &sources {
        let name = src.display_name();
        let mut st = Stats {
            file: Some(name.clone()),
            file_base64: src.name_base64(),
            ..Stats::default()
        };
        let reader = match src.open() {
            Ok(r) => r,
            Err(e) => {
                // A report for it too, so that a JSON-lines consumer sees every input
                // (hostile trial, session 13: a directory among the inputs left no line).
                failed = true;
                writeln!(err, "mcpwire: {}: {e}", human::printable(&name))?;
                st.io_errors = 1;
                st.error = Some(e.to_string());
                total.merge(&st);
                st.finish();
                write_stats(&mut out, &st, format)?;
                continue;
            }
        };
        let mut frames = FrameReader::new(reader, transport, max_frame);
        let mut reported = 0;
        loop {
            let frame = match frames.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => {
                    failed = true;
                    writeln!(err, "mcpwire: {}: {e}", human::printable(&name))?;
                    st.io_errors = 1;
                    st.error = Some(e.to_string());
                    break;
                }
            };
            let env = match frame.error {
                Some(e) => Err(e.kind().name()),
                None => parser.parse(frame.bytes).map_err(|e| e.kind().name()),
            };
            let recovered = match (&env, frame.error) {
                (Err(_), None) => parser.recover_id(frame.bytes).map(|s| s.slice(frame.bytes)),
                _ => None,
            };
            let size = frame.error.is_none().then_some(frame.input_len);
            st.add(env.as_ref().map_err(|why| *why), size, recovered);
            if let Some(pb) = &pb {
                pb.inc(frames.bytes_read - reported);
                reported = frames.bytes_read;
            }
        }
        st.bytes = frames.bytes_read;
        st.sse_other_events = std::mem::take(&mut frames.other_events);
        st.sse_unknown_fields = frames.sse_unknown_fields();
        total.merge(&st);
        st.finish();
        write_stats(&mut out, &st, format)?;
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    if sources.len() > 1 {
        total.finish();
        write_stats(&mut out, &total, format)?;
    }
    out.flush()?;
    Ok(if failed { EXIT_ERROR } else { EXIT_VALID })
}

fn write_stats(out: &mut dyn Write, st: &Stats, format: Format) -> io::Result<()> {
    match format {
        // The total over several inputs (no `file`) as `{"total":{…}}`, like `check`'s
        // `{"summary":{…}}`, so a consumer tells it from a per-input line by its key.
        Format::Jsonl if st.file.is_none() => {
            out.write_all(&super::record::json_line(&TotalLine { total: st })?)
        }
        Format::Jsonl => out.write_all(&super::record::json_line(st)?),
        Format::Human => {
            let name = human::printable(st.file.as_deref().unwrap_or("total"));
            writeln!(
                out,
                "{name}: {} frame{}, {}",
                st.frames,
                if st.frames == 1 { "" } else { "s" },
                human::bytes(st.bytes)
            )?;
            if let Some(e) = &st.error {
                writeln!(out, "unreadable: {e}")?;
            } else if st.io_errors > 0 {
                writeln!(out, "{} input(s) unreadable", st.io_errors)?;
            }
            match &st.sizes {
                Some(s) => writeln!(
                    out,
                    "message sizes (bytes): min {}  median {}  p99 {}  max {}",
                    s.min, s.median, s.p99, s.max
                )?,
                None => writeln!(out, "message sizes: no frame read whole")?,
            }
            human::write_counts(out, "by shape", &st.shapes)?;
            human::write_counts(out, "invalid frames by kind", &st.invalid_kinds)?;
            human::write_counts(out, "by method", &st.methods)?;
            human::write_counts(out, "ids by type", &st.ids)?;
            human::write_counts(out, "revisions seen", &st.revisions)?;
            human::write_counts(
                out,
                "SSE events of other types (skipped, not frames)",
                &st.sse_other_events,
            )?;
            human::write_unknown_fields(out, st.sse_unknown_fields)?;
            writeln!(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sizes;

    #[test]
    fn percentiles() {
        assert_eq!(Sizes::of(&mut []), None);
        assert_eq!(
            Sizes::of(&mut [5]),
            Some(Sizes {
                min: 5,
                median: 5,
                p99: 5,
                max: 5
            })
        );
        let mut v: Vec<u64> = (1..=200).rev().collect();
        assert_eq!(
            Sizes::of(&mut v),
            Some(Sizes {
                min: 1,
                median: 100,
                p99: 198,
                max: 200
            })
        );
    }
}
