//! `mcpwire check --headers FILE`: the Streamable HTTP header-mirror check (2026-07-28
//! transport rules, `-32020` HeaderMismatch) over a jsonl file of `{headers, body}` records,
//! as in `captures/http_*/requests.jsonl` or `spec-examples/http/*.jsonl` (see
//! [`mcpwire::profile::HeaderRecord`]).
//!
//! Each line is one record. A POST record with a body gives one output record: the body is
//! parsed with the envelope layer, judged by the profile as a client-to-server message, and
//! its headers are compared with it by [`check_header_record`]. Protocol state is kept per
//! `Mcp-Session-Id`, as `proxy http` keeps it ([`Sessions`]): a record without one is judged
//! on its own with fresh state (every 2026-07-28 request; a dual-era endpoint's legacy
//! session must not be judged by an earlier modern request's revision: spec trial, session
//! 22), except that a legacy `initialize` without one hands its state to a session id never
//! seen before (the session its response opened; see [`Sessions`] for which). A POST
//! record's empty body (`""` or `null`) is rejected as `empty`
//! (-32700), as a 0-byte POST body is. GET and DELETE records (no message) are read and
//! skipped; a record with any other HTTP method, and a line that is not a record, is reported
//! as an `invalid-header-record` violation. The file is read
//! as a stream through the NDJSON framer, so framing errors (an oversize or unterminated line)
//! are reported like those of any stdio input.
//!
//! Offsets: `offset`/`len` of an output record are those of its line in FILE; violation
//! offsets are absolute offsets in FILE, mapped through the JSON string escapes of `body`
//! when the body is written as a string.

use std::io::{self, Write};
use std::path::Path;

use annotate_snippets::Renderer;
use mcpwire::error::ErrorKind;
use mcpwire::profile::{Rule, Validator, Violation, check_header_record};
use mcpwire::{Parser, Span};

use super::input::{Frame, FrameReader, Source, Transport};
use super::record::{self, Record, ViolationOut};
use super::{Format, Summary, human, tally};

/// Stable kind of a line of the headers file that is not a `{headers, body}` record.
pub const INVALID_HEADER_RECORD: &str = "invalid-header-record";

/// Extra line length allowed over the frame limit for one record: the body is written as an
/// escaped JSON string (up to 6 bytes per body byte for `\u00XX`) next to its headers.
const RECORD_ESCAPE_FACTOR: usize = 6;
/// Room for the headers and the other members of a record (bytes).
const RECORD_OVERHEAD: usize = 64 * 1024;

/// Settings shared with the `check` driver.
pub struct Options<'a> {
    /// The envelope parser (with the CLI's limits).
    pub parser: &'a Parser,
    /// The validator the bodies are judged by (client to server), as it is before any
    /// message: each session of the file gets a clone ([`Sessions`]).
    pub validator: Validator,
    /// Largest body accepted (bytes).
    pub max_frame_bytes: usize,
    /// Output format.
    pub format: Format,
    /// Print the file name in each record (several inputs in one run).
    pub multi: bool,
    /// Renderer for human diagnostics.
    pub renderer: &'a Renderer,
}

/// Checks every record of the headers file at `path`, writing records (jsonl) or diagnostics
/// (human) to `out` and adding them to `sum`. An unreadable file is reported on `err` and
/// counted in `sum.io_errors` / `sum.unreadable`.
///
/// # Errors
/// Write errors on `out` / `err`.
pub fn run(
    path: &Path,
    opts: &Options<'_>,
    sum: &mut Summary,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    let src = match path.to_str() {
        Some("-") => Source::Stdin,
        _ => Source::Path(path.to_owned()),
    };
    let name = src.display_name();
    sum.files += 1;
    let reader = match src.open() {
        Ok(r) => r,
        Err(e) => {
            sum.unreadable(err, &src, 0, &e)?;
            return Ok(());
        }
    };
    let max_line = opts
        .max_frame_bytes
        .saturating_mul(RECORD_ESCAPE_FACTOR)
        .saturating_add(RECORD_OVERHEAD);
    let mut lines = FrameReader::new(reader, Transport::Stdio, max_line);
    let mut sessions = Sessions::new(&opts.validator);
    let mut n = 0u64;
    loop {
        let line = match lines.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                sum.unreadable(err, &src, n, &e)?;
                break;
            }
        };
        n += 1;
        let Some(mut rec) = judge_record(opts, &mut sessions, &line, n) else {
            continue;
        };
        if opts.multi {
            rec.file = Some(name.clone());
        }
        tally(sum, &rec);
        match opts.format {
            Format::Jsonl => {
                out.write_all(&record::json_line(&rec)?)?;
            }
            Format::Human => {
                if !rec.valid {
                    human::write_violations(out, opts.renderer, &name, &line, &rec)?;
                }
            }
        }
    }
    sum.bytes += lines.bytes_read;
    Ok(())
}

/// The output record of one line, or `None` for a record the header check does not apply to
/// (GET, DELETE: no message).
fn judge_record(
    opts: &Options<'_>,
    sessions: &mut Sessions,
    line: &Frame<'_>,
    number: u64,
) -> Option<Record> {
    if let Some(rec) = record::framing_error(line, number) {
        return Some(rec);
    }
    let mut rec = record::empty(number, line.offset(), line.input_len);
    let mut header_found = Vec::new();
    let hr = match check_header_record(line.bytes, &mut header_found) {
        Ok(hr) => hr,
        Err(e) => {
            let code = match e {
                mcpwire::profile::HeaderRecordError::Json(_) => mcpwire::error::PARSE_ERROR,
                _ => mcpwire::error::INVALID_REQUEST,
            };
            rec.violations.push(ViolationOut {
                kind: INVALID_HEADER_RECORD.to_owned(),
                code: code.into(),
                offset: line.offset(),
                message: e.to_string(),
                rel: 0,
            });
            return Some(rec);
        }
    };
    if !hr.is_checkable() {
        // GET (a listen stream) and DELETE (ending the session) carry no message: skipped.
        // Any other method is no request of the transport: reported, never skipped without
        // a word (trial finding: a PUT with a body passed unseen).
        let method = hr.http_method.as_deref().unwrap_or_default();
        if ["GET", "DELETE"]
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method))
        {
            return None;
        }
        rec.violations.push(ViolationOut {
            kind: INVALID_HEADER_RECORD.to_owned(),
            code: mcpwire::error::INVALID_REQUEST.into(),
            offset: line.offset(),
            message: format!(
                "HTTP method {method:?} is none of the Streamable HTTP transport's (POST, GET, \
                 DELETE)"
            ),
            rel: 0,
        });
        return Some(rec);
    }
    // The header check parsed the body with the default limits; the profile judges it with
    // the CLI's (and reports any parse error once, as the core kind).
    let mut found: Vec<Violation> = Vec::new();
    let header = |name: &str| {
        hr.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    let mut fresh = None;
    let validator = sessions.validator(
        header("mcp-session-id"),
        header("mcp-protocol-version"),
        &mut fresh,
    );
    match opts.parser.parse(&hr.body) {
        Err(e) => validator.check_parse_error(&e, &mut found),
        Ok(env) => {
            record::describe(&mut rec, &env);
            validator.check(&env, &mut found);
            if env.method().is_some_and(|m| m.eq_str("initialize"))
                && let Some(v) = fresh.take()
            {
                let requested = env
                    .params()
                    .and_then(|p| serde_json::from_slice::<serde_json::Value>(p).ok())
                    .and_then(|p| p.get("protocolVersion")?.as_str().map(str::to_owned));
                sessions.initialized(v, requested);
            }
            // Core kinds from the header check are its own parse of the body (reported
            // above under the CLI's limits), except a repeated member only the header check
            // reads (`params.taskId`, `Mcp-Param-*` argument paths: re-trial, session 12,
            // a repeated `taskId` passed `check --headers`).
            let own = |v: &Violation| {
                matches!(
                    v.rule,
                    Rule::Core(ErrorKind::DuplicateParamsKey | ErrorKind::DuplicateKey)
                )
            };
            let extra: Vec<Violation> = header_found
                .into_iter()
                .filter(|v| {
                    !matches!(v.rule, Rule::Core(_))
                        || own(v)
                            && !found
                                .iter()
                                .any(|f| f.rule == v.rule && f.offset == v.offset)
                })
                .collect();
            found.extend(extra);
        }
    }
    let body = BodyPos::find(line.bytes);
    record::push_violations(&mut rec, &found, |rel| {
        let in_line = body.map_or(0, |b| b.line_offset(line.bytes, rel));
        (in_line, line.offset() + in_line as u64)
    });
    rec.valid = rec.violations.is_empty();
    Some(rec)
}

/// Protocol state per `Mcp-Session-Id` of a headers file, as `proxy http` keeps it.
struct Sessions {
    /// The state before any message.
    base: Validator,
    /// Each session's state and when it was last used, by the key of its id ([`key`]).
    by_id: std::collections::HashMap<u128, (Validator, u64)>,
    /// The sessions by last use, to drop the least recently used beyond [`MAX_SESSIONS`].
    lru: std::collections::BTreeMap<u64, u128>,
    /// Records seen (the use counter).
    tick: u64,
    /// The states of legacy `initialize` requests sent without a session id, oldest first,
    /// with the protocol version each asked for: a new session id takes the oldest that
    /// asked for the version its `MCP-Protocol-Version` header names, else the oldest (the
    /// session its response opened; a requests file has no responses).
    pending: std::collections::VecDeque<(Option<String>, Validator)>,
    /// Keys of the sessions seen (at most [`MAX_SEEN`]): a session dropped from `by_id` that
    /// comes back starts fresh, and does not take another client's `initialize` (second
    /// re-trial, session 22).
    seen: std::collections::HashSet<u128>,
    /// Hashes session ids into keys.
    hasher: std::collections::hash_map::RandomState,
}

/// Sessions whose state `check --headers` keeps at once (as `proxy http`'s default
/// `--max-sessions`); the least recently used is dropped beyond that, and its next record
/// starts with fresh state. Also the most `initialize` states waiting for a session.
const MAX_SESSIONS: usize = 1024;

/// Session keys remembered as seen (16 bytes each): beyond that, a dropped session that
/// comes back may take a waiting `initialize`.
const MAX_SEEN: usize = 1 << 20;

impl Sessions {
    fn new(base: &Validator) -> Self {
        Self {
            base: base.clone(),
            by_id: std::collections::HashMap::new(),
            lru: std::collections::BTreeMap::new(),
            tick: 0,
            pending: std::collections::VecDeque::new(),
            seen: std::collections::HashSet::new(),
            hasher: std::collections::hash_map::RandomState::new(),
        }
    }

    /// The key of a session id: two keyed hashes of it, so that a session costs the same
    /// few bytes whatever the length of its id (re-trial, session 22: 1,024 ids of
    /// 200 KB were kept twice each, and an id may be up to the record line limit). Two ids
    /// share a key with a chance of about 2^-64 per pair, the hash keys being random.
    fn key(&self, id: &str) -> u128 {
        use std::hash::BuildHasher;
        let a = self.hasher.hash_one((0u8, id));
        let b = self.hasher.hash_one((1u8, id));
        (u128::from(a) << 64) | u128::from(b)
    }

    /// Keeps the state of a legacy `initialize` sent without a session id, for the next new
    /// session id.
    fn initialized(&mut self, state: Validator, requested: Option<String>) {
        if self.pending.len() >= MAX_SESSIONS {
            self.pending.pop_front();
        }
        self.pending.push_back((requested, state));
    }

    /// The validator of a record with session id `id` and `MCP-Protocol-Version` header
    /// `version`; without an id, fresh state, put in `fresh` and returned from there.
    fn validator<'s>(
        &'s mut self,
        id: Option<&str>,
        version: Option<&str>,
        fresh: &'s mut Option<Validator>,
    ) -> &'s mut Validator {
        let Some(id) = id else {
            return fresh.insert(self.base.clone());
        };
        let key = self.key(id);
        self.tick += 1;
        let tick = self.tick;
        if !self.by_id.contains_key(&key)
            && self.by_id.len() >= MAX_SESSIONS
            && let Some((_, old)) = self.lru.pop_first()
        {
            self.by_id.remove(&old);
        }
        let new = !self.seen.contains(&key);
        if new && self.seen.len() < MAX_SEEN {
            self.seen.insert(key);
        }
        let (base, pending, lru) = (&self.base, &mut self.pending, &mut self.lru);
        let (state, used) = self.by_id.entry(key).or_insert_with(|| {
            let waiting = new
                .then(|| {
                    let asked = |(v, _): &(Option<String>, Validator)| v.as_deref() == version;
                    let at = version.and_then(|_| pending.iter().position(asked));
                    pending.remove(at.unwrap_or(0))
                })
                .flatten();
            (waiting.map_or_else(|| base.clone(), |(_, s)| s), tick)
        });
        lru.remove(used);
        *used = tick;
        lru.insert(tick, key);
        state
    }
}

/// Where the `body` member's value is in a record line.
#[derive(Clone, Copy, Debug)]
struct BodyPos {
    value: Span,
    is_string: bool,
}

impl BodyPos {
    /// Finds the top-level `body` member of a record line that is known to be a JSON object.
    fn find(line: &[u8]) -> Option<BodyPos> {
        if u32::try_from(line.len()).is_err() {
            return None;
        }
        let start = line.iter().position(|c| !c.is_ascii_whitespace())?;
        let end = line.iter().rposition(|c| !c.is_ascii_whitespace())? + 1;
        let m =
            mcpwire::envelope::members(line, Span::new(start, end)).find(|m| m.key == "body")?;
        let is_string = line.get(m.value.start()) == Some(&b'"');
        Some(BodyPos {
            value: m.value,
            is_string,
        })
    }

    /// Maps a byte offset in the decoded body to a byte offset in the line.
    fn line_offset(self, line: &[u8], body_rel: usize) -> usize {
        if !self.is_string {
            return (self.value.start() + body_rel).min(self.value.end());
        }
        let raw = &line[self.value.start() + 1..self.value.end().saturating_sub(1)];
        self.value.start() + 1 + raw_offset(raw, body_rel)
    }
}

/// Maps a byte offset in the decoded text of a JSON string to the offset in its raw contents
/// (`raw`: the bytes between the quotes). Offsets past the end map to the end.
fn raw_offset(raw: &[u8], decoded: usize) -> usize {
    let hex4 = |at: usize| -> Option<u32> {
        let s = std::str::from_utf8(raw.get(at..at + 4)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    };
    let (mut i, mut d) = (0, 0);
    while d < decoded && i < raw.len() {
        if raw[i] != b'\\' {
            i += 1;
            d += 1;
            continue;
        }
        match raw.get(i + 1) {
            Some(b'u') => match hex4(i + 2) {
                Some(0xD800..=0xDBFF)
                    if raw.get(i + 6..i + 8) == Some(b"\\u")
                        && hex4(i + 8).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo)) =>
                {
                    i += 12;
                    d += 4;
                }
                Some(cp) => {
                    i += 6;
                    d += char::from_u32(cp).map_or(3, char::len_utf8);
                }
                None => i = raw.len(),
            },
            _ => {
                i += 2;
                d += 1;
            }
        }
    }
    i.min(raw.len())
}

#[cfg(test)]
mod tests {
    use super::{BodyPos, raw_offset};

    #[test]
    fn raw_offsets_through_escapes() {
        // decoded: a"b\n€😀c
        let raw = br#"a\"b\n\u20ac\ud83d\ude00c"#;
        assert_eq!(raw_offset(raw, 0), 0);
        assert_eq!(raw_offset(raw, 1), 1); // before \"
        assert_eq!(raw_offset(raw, 2), 3); // b
        assert_eq!(raw_offset(raw, 4), 6); // \u20ac
        assert_eq!(raw_offset(raw, 7), 12); // surrogate pair
        assert_eq!(raw_offset(raw, 11), 24); // c
        assert_eq!(raw_offset(raw, 99), raw.len());
    }

    #[test]
    fn body_position_string_and_inline() {
        let line = br#"{"headers":{},"body":"{\"id\":1}"}"#;
        let b = BodyPos::find(line).unwrap();
        // decoded body offset 1 is `"` of "id", written as \" at line offset 23.
        assert_eq!(b.line_offset(line, 1), 23);
        let line = br#"{"headers":[],"body":{"id":1}}"#;
        let b = BodyPos::find(line).unwrap();
        assert_eq!(b.line_offset(line, 1), 22);
    }
}
