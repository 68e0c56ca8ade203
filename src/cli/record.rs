//! One frame's verdict: the `--format jsonl` record of DESIGN.md's CLI contract.

use mcpwire::error::ErrorKind;
use mcpwire::profile::{Direction, Session, Tracked, Validator, Violation};
use mcpwire::{Envelope, Parser, Shape};
use serde::Serialize;

use super::input::Frame;

/// `value` as one line of compact JSON ending in `\n`, as `serde_json::to_writer` writes it
/// but with DEL, the C1 controls (U+0080 to U+009F: U+009B introduces a terminal escape
/// sequence on its own) and U+2028 / U+2029 escaped as `\uXXXX` too: JSON lines bypass the
/// colour adapter, which removed DEL and let the others through raw (re-trial, session 22).
/// serde_json already escapes U+0000 to U+001F (ESC among them). Built whole, for one write:
/// serde_json writes each piece of a string apart, and through the output's layers that
/// cost more than the formatting (perf, session 22).
///
/// # Errors
/// A value serde_json cannot serialize (a map with non-string keys).
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut line, TerminalSafe);
    value.serialize(&mut ser).map_err(std::io::Error::from)?;
    line.push(b'\n');
    Ok(line)
}

/// serde_json's compact formatter, escaping the characters [`json_line`] names in strings
/// and keys.
struct TerminalSafe;

impl serde_json::ser::Formatter for TerminalSafe {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let b = fragment.as_bytes();
        // ASCII below DEL (most text) needs nothing; DEL, C1 and U+2028/9 are not in it.
        if b.iter().all(|&x| x < 0x7f) {
            return writer.write_all(b);
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}') {
                writer.write_all(&b[start..i])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&b[start..])
    }
}

/// A violation as printed (`{"kind","code","offset","message"}`), offset absolute in the input.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ViolationOut {
    /// Stable kebab-case kind.
    pub kind: String,
    /// JSON-RPC error code a server would answer with.
    pub code: i64,
    /// Absolute byte offset in the input.
    pub offset: u64,
    /// One-line description.
    pub message: String,
    /// Frame-relative offset (not printed; used for `file:line:col`).
    #[serde(skip)]
    pub rel: usize,
}

/// The record of one frame, fields in the contract's order.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// Input file, present only when several inputs are checked in one run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The input name's bytes in Base64 when they are not UTF-8 (with `file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_base64: Option<String>,
    /// 1-based frame number within its input.
    pub frame: u64,
    /// Absolute byte offset of the frame in its input.
    pub offset: u64,
    /// Frame length in bytes (as it appears in the input).
    pub len: u64,
    /// `request|notification|result|error|batch|invalid`.
    pub shape: &'static str,
    /// Raw id JSON text (also for a frame rejected only by the duplicate-key policy, read by
    /// `Parser::recover_id`), or null when absent or not readable.
    pub id: Option<String>,
    /// Decoded method name.
    pub method: Option<String>,
    /// Decoded `result.resultType`.
    pub result_type: Option<String>,
    /// `error.code`.
    pub error_code: Option<i64>,
    /// True when there is no violation.
    pub valid: bool,
    /// Violations, in frame order.
    pub violations: Vec<ViolationOut>,
}

fn violation(frame: &Frame<'_>, kind: &str, code: i64, rel: usize, message: &str) -> ViolationOut {
    let offset = frame.offset_at(rel);
    ViolationOut {
        kind: kind.to_owned(),
        code,
        offset,
        message: message.to_owned(),
        rel,
    }
}

/// A record with no verdict yet: frame `number` at `offset`, `len` bytes, shape `invalid`.
pub fn empty(number: u64, offset: u64, len: u64) -> Record {
    Record {
        file: None,
        file_base64: None,
        frame: number,
        offset,
        len,
        shape: Shape::Invalid.name(),
        id: None,
        method: None,
        result_type: None,
        error_code: None,
        valid: false,
        violations: Vec::new(),
    }
}

/// Fills the envelope fields of `rec` from `env`.
pub fn describe(rec: &mut Record, env: &Envelope<'_>) {
    rec.shape = env.shape().name();
    rec.id = env.id_raw().map(str::to_owned);
    rec.method = env.method().map(|m| m.decode().into_owned());
    rec.result_type = env.result_type().map(|m| m.decode().into_owned());
    rec.error_code = env.error_code();
}

/// Appends profile violations to `rec`; `locate` maps a frame-relative offset to
/// (frame-relative offset used for `file:line:col`, absolute input offset).
pub fn push_violations(
    rec: &mut Record,
    found: &[Violation],
    mut locate: impl FnMut(usize) -> (usize, u64),
) {
    for v in found {
        let (rel, offset) = locate(v.offset);
        rec.violations.push(ViolationOut {
            kind: v.rule.name().to_owned(),
            code: v.rule.code().into(),
            offset,
            message: v.message.clone(),
            rel,
        });
    }
    // The rules and the request tracker each report in their own order (fresh-user trial: a
    // case-variant key at byte 81 was listed before a reused request id at byte 63).
    rec.violations.sort_by_key(|v| v.offset);
}

/// How `check` judges the messages of one input.
pub enum Checker {
    /// The profile's rules, message by message (the era aside, nothing is remembered): an
    /// input whose direction is unknown, which may hold both sides' requests.
    Plain(Validator),
    /// One sender's messages (`dir` known): the rules plus that sender's request ids. The
    /// peer's side is unseen, so each request counts as answered once judged (after its
    /// batch, for a batch's elements) and responses to the peer's requests are not matched.
    /// What that finds: a request id repeated inside one batch (`duplicate-request-id`),
    /// and under a legacy revision an id used again in the session (`reused-request-id`),
    /// which one side's traffic is enough to show (hostile trial, session 12: `check` never
    /// ran the tracker).
    Sender {
        /// The session (both validators; only `dir`'s is used).
        session: Box<Session>,
        /// The direction of every message of the input.
        dir: Direction,
    },
}

/// At most this many of one sender's requests are in flight at once in a [`Checker::Sender`]
/// (a batch's elements; the limit of a batch is 1,024).
const SENDER_IN_FLIGHT: usize = 4096;

impl Checker {
    /// The checker for an input flowing in `dir` under `validator`'s profile and options.
    pub fn new(validator: Validator, dir: Direction) -> Self {
        if dir == Direction::Unknown {
            return Checker::Plain(validator);
        }
        let mut session = Session::new(validator.profile(), SENDER_IN_FLIGHT);
        *session.validator_mut(dir) = validator;
        session.tracker_mut().set_partial(dir.reverse());
        Checker::Sender {
            session: Box::new(session),
            dir,
        }
    }

    fn check(&mut self, env: &Envelope<'_>, out: &mut Vec<Violation>) {
        let (session, dir) = match self {
            Checker::Plain(v) => return v.check(env, out),
            Checker::Sender { session, dir } => (session, *dir),
        };
        match session.check(dir, env, out) {
            Tracked::Request => {
                if let Some(id) = env.id_raw() {
                    session.settle_request(dir, id);
                }
            }
            Tracked::Batch(elements) => {
                // Each element's id comes with its outcome (no second parse).
                for el in elements {
                    if el.tracked == Tracked::Request
                        && let Some(id) = &el.id
                    {
                        session.settle_request(dir, id);
                    }
                }
            }
            _ => {}
        }
    }

    fn check_parse_error(&mut self, e: &mcpwire::Error, out: &mut Vec<Violation>) {
        match self {
            Checker::Plain(v) => v.check_parse_error(e, out),
            Checker::Sender { session, dir } => {
                session.validator_mut(*dir).check_parse_error(e, out)
            }
        }
    }
}

/// The record of a frame the framer rejected (oversize frame, unterminated line or event, a
/// stdio line with a bare CR, at its first CR: the bytes were not parsed), or `None` for a
/// frame to parse. Size limits answer -32600, a bare CR -32700; a truncated stream cannot be
/// answered, and is reported with -32700 (the bytes are not a complete JSON text).
pub fn framing_error(frame: &Frame<'_>, number: u64) -> Option<Record> {
    let e = frame.error?;
    let mut rec = empty(number, frame.offset(), frame.input_len);
    let k = e.kind();
    let code = k
        .error_kind()
        .map_or(ErrorKind::UnexpectedEnd.code(), ErrorKind::code);
    // A bare CR's line is kept (not parsed): point at its first CR.
    let at = e.offset_in(frame.bytes);
    rec.violations
        .push(violation(frame, k.name(), code.into(), at, k.message()));
    Some(rec)
}

/// Parses one frame (the `number`th of its input) with the envelope layer, applies the
/// profile rules through `checker` (which include the core findings) and builds its record.
pub fn judge(parser: &Parser, checker: &mut Checker, frame: &Frame<'_>, number: u64) -> Record {
    if let Some(rec) = framing_error(frame, number) {
        return rec;
    }
    let mut rec = empty(number, frame.offset(), frame.input_len);
    let mut found = Vec::new();
    match parser.parse(frame.bytes) {
        Err(e) => {
            // A frame rejected only by the duplicate-key policy still has a readable id: show
            // it, as the proxy echoes it in its error reply (`Parser::recover_id`).
            rec.id = parser
                .recover_id(frame.bytes)
                .and_then(|s| std::str::from_utf8(s.slice(frame.bytes)).ok())
                .map(str::to_owned);
            checker.check_parse_error(&e, &mut found);
        }
        Ok(env) => {
            describe(&mut rec, &env);
            checker.check(&env, &mut found);
        }
    }
    push_violations(&mut rec, &found, |rel| (rel, frame.offset_at(rel)));
    rec.valid = rec.violations.is_empty();
    rec
}
