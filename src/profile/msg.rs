//! The profile layer's view of one message: the core [`Envelope`] (shape, member spans,
//! accessors) plus the few reads the rules need below depth 1 (`params.arguments`,
//! `result.inputRequests`, `_meta` values), all done with the core's [`members`] iterator
//! over the already validated frame. No second walk of the frame is made.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};

use crate::envelope::{Envelope, Id, JsonStr, Member, Shape, Span, members};
use crate::error::{Error, ErrorKind};

use super::{Rule, Violation};

/// The JSON type of a value, from its first byte (value spans are trimmed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// The type of the value at `span` of a validated `frame`.
pub(crate) fn kind(frame: &[u8], span: Span) -> Option<Kind> {
    Some(match *frame.get(span.start())? {
        b'{' => Kind::Object,
        b'[' => Kind::Array,
        b'"' => Kind::String,
        b't' | b'f' => Kind::Bool,
        b'n' => Kind::Null,
        b'-' | b'0'..=b'9' => Kind::Number,
        _ => return None,
    })
}

/// The decoded string token at `span` of a validated `frame` (`None` if it is not a string).
pub(crate) fn string_at(frame: &[u8], span: Span) -> Option<Cow<'_, str>> {
    let b = frame.get(span.range())?;
    if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
        return None;
    }
    let raw = std::str::from_utf8(&b[1..b.len() - 1]).ok()?;
    Some(JsonStr::from_raw(raw).decode())
}

/// The value span of member `key` of the object at `span` (first occurrence). For reads of
/// a message's members use [`Msg::member`], which also reports a repeated key; this one is
/// for the core-checked objects (`_meta`) and for records that are not messages.
pub(crate) fn get(frame: &[u8], span: Span, key: &str) -> Option<Span> {
    members(frame, span).find(|m| m.key == key).map(|m| m.value)
}

pub(crate) struct Msg<'f> {
    pub env: Envelope<'f>,
    pub frame: &'f [u8],
    pub shape: Shape,
    pub invalid: Option<Error>,
    pub id: Option<Span>,
    pub method: Option<Cow<'f, str>>,
    pub method_span: Option<Span>,
    pub params: Option<Span>,
    pub result: Option<Span>,
    pub error: Option<Span>,
    /// `params._meta` (requests, notifications) or `result._meta` (results), when an object.
    pub meta: Option<Span>,
    /// First depth-1 key equal to an envelope key only under case folding (raw key text).
    pub case_variant: Option<Span>,
    /// First key of `params` / `result` / `error` equal to an inspected member only under
    /// case folding (raw key text).
    pub member_case_variant: Option<Span>,
    /// Key spans of members the rules read (through [`Msg::member`]) that the object holds
    /// more than once.
    repeated: Notes,
    /// Key spans of keys equal to a member the rules read only under case folding
    /// (`"Progress"` when a rule read `progress`).
    case_variants: Notes,
    /// The members of `params` and of `result`, read once on first use: every rule that
    /// reads one of their members looks it up here (a 2 MB tool result was scanned once per
    /// member read, five times per result; session-12 profile of `check`).
    params_members: OnceCell<Vec<Member<'f>>>,
    result_members: OnceCell<Vec<Member<'f>>>,
    /// The members of `meta`, read once on first use (several rules read `_meta` members).
    meta_members: OnceCell<Vec<Member<'f>>>,
}

impl<'f> Msg<'f> {
    pub(crate) fn from_envelope(env: &Envelope<'f>) -> Self {
        let frame = env.frame();
        let shape = env.shape();
        let meta = match shape {
            Shape::Request | Shape::Notification => env.params_meta_span(),
            Shape::Result => env.result_meta_span(),
            _ => None,
        }
        .filter(|s| kind(frame, *s) == Some(Kind::Object));
        Msg {
            env: *env,
            frame,
            shape,
            invalid: env.invalid_reason(),
            id: env.id_span(),
            method: env.method().map(|m| m.decode()),
            method_span: env.method_span(),
            params: env.params_span(),
            result: env.result_span(),
            error: env.error_span(),
            meta,
            case_variant: env.case_variant_key(),
            member_case_variant: env.member_case_variant_key(),
            repeated: Notes::default(),
            case_variants: Notes::default(),
            params_members: OnceCell::new(),
            result_members: OnceCell::new(),
            meta_members: OnceCell::new(),
        }
    }

    /// The members of `object` as written (repeats included), from the cache when `object`
    /// is `params`, `result` or `meta`; `None` for any other object (the caller iterates it).
    pub(crate) fn cached_members(&self, object: Span) -> Option<&[Member<'f>]> {
        let cell = if Some(object) == self.params {
            &self.params_members
        } else if Some(object) == self.result {
            &self.result_members
        } else if Some(object) == self.meta {
            &self.meta_members
        } else {
            return None;
        };
        Some(cell.get_or_init(|| members(self.frame, object).collect()))
    }

    /// The value span of the first member `key` (compared after unescaping) of the object at
    /// `object`. A key written more than once is noted (the second key's span) for
    /// [`Msg::report_repeated`]: a first-wins reader and a last-wins backend (serde_json's
    /// `Value`, Python, JavaScript) read different values, so the message is rejected
    /// whatever the rules make of the first copy (hostile trial: a repeated `params.taskId`
    /// passed the `Mcp-Name` check with the first copy while the backend read the second).
    /// The rules go on with the first copy, so the repeat is the only finding it causes.
    ///
    /// A key of the object equal to `key` only under case folding ([`folds_to`]: `"Progress"`
    /// or `"progreſſ"` when a rule reads `progress`) is noted too, for
    /// [`Msg::report_repeated`]: a case-insensitive backend (Go's `encoding/json`) would read
    /// it as the member (session-15 trial: `Level`, `ProgressToken`, `ProtocolVersion` passed).
    ///
    /// [`folds_to`]: crate::envelope::folds_to
    pub(crate) fn member(&self, object: Span, key: &str) -> Option<Span> {
        self.member_noting(object, key, true)
    }

    /// [`Msg::member`] without the case-variant note, for a read that only guesses what the
    /// message is (an untracked result's `protocolVersion` hints at the stream's revision;
    /// a `"ProtocolVersion"` in a `tools/call` result shadows nothing: re-trial, session 16).
    pub(crate) fn member_quietly(&self, object: Span, key: &str) -> Option<Span> {
        self.member_noting(object, key, false)
    }

    fn member_noting(&self, object: Span, key: &str, note_variants: bool) -> Option<Span> {
        let spans = |m: &Member<'_>| {
            if m.key == key {
                return Some((m.key_span, m.value));
            }
            if note_variants && is_case_variant(&m.key, key) {
                self.note_case_variant(m.key_span);
            }
            None
        };
        match self.cached_members(object) {
            Some(all) => self.first_noting_repeat(all.iter().filter_map(spans)),
            None => self.first_noting_repeat(members(self.frame, object).filter_map(|m| spans(&m))),
        }
    }

    /// The value of the first of `hits` (key span, value span) of one key, noting the second
    /// one's key as repeated. The rest of `hits` is drained, so that every key of the object
    /// has passed the case-variant test in [`Msg::member`].
    fn first_noting_repeat(&self, mut hits: impl Iterator<Item = (Span, Span)>) -> Option<Span> {
        let (_, value) = hits.next()?;
        if let Some((again, _)) = hits.next() {
            self.note_repeated(again);
        }
        hits.for_each(drop);
        Some(value)
    }

    /// Notes a case-variant key (its raw key span) of a member a rule read, as
    /// [`Msg::note_repeated`] notes a repeat (several reads may meet one key: re-trial,
    /// session 16, `"Name"` was reported twice).
    pub(crate) fn note_case_variant(&self, key_span: Span) {
        self.case_variants.note(key_span);
    }

    /// Notes a repeated key (its raw key span) that a rule read, once per span and at most
    /// [`MAX_REPEATED_NOTES`] per message: one finding rejects the message, and a frame of
    /// 300,000 repeats must not cost 300,000 reports or a quadratic dedupe (re-trial,
    /// session 12: 31 s for one 3.6 MB frame).
    pub(crate) fn note_repeated(&self, key_span: Span) {
        self.repeated.note(key_span);
    }

    /// True when the key span `k` lies inside `params`.
    pub(crate) fn in_params(&self, k: Span) -> bool {
        self.params
            .is_some_and(|p| p.start() < k.start() && k.end() < p.end())
    }

    /// Pushes a violation for each repeated key noted since the last call: inside `params`
    /// the core's `duplicate-params-key` (-32602), elsewhere `duplicate-key` (-32600), at the
    /// repeated key's opening quote. Then one for each case-variant key noted since the last
    /// call: inside `params` `case-variant-param` (-32602), elsewhere `case-variant-key`
    /// (-32600), at the key's opening quote.
    pub(crate) fn report_repeated(&self, out: &mut Vec<Violation>) {
        self.repeated.report_new(|k| {
            let kind = if self.in_params(k) {
                ErrorKind::DuplicateParamsKey
            } else {
                ErrorKind::DuplicateKey
            };
            out.push(Violation::new(
                Rule::Core(kind),
                k.start().saturating_sub(1),
                format!(
                    "member {:?} appears more than once (a backend may read either copy)",
                    String::from_utf8_lossy(k.slice(self.frame))
                ),
            ));
        });
        self.case_variants.report_new(|k| {
            let rule = if self.in_params(k) {
                Rule::CaseVariantParam
            } else {
                Rule::CaseVariantKey
            };
            out.push(Violation::new(
                rule,
                k.start().saturating_sub(1),
                format!(
                    "key {:?} differs from an inspected member only in case",
                    String::from_utf8_lossy(k.slice(self.frame))
                ),
            ));
        });
    }

    /// The raw id text when the id is a string or integer (echoable).
    pub(crate) fn id_text(&self) -> Option<&'f str> {
        match self.env.id()? {
            Id::Str(_) | Id::Int { .. } => self.env.id_raw(),
            Id::Null => None,
        }
    }

    /// The id normalised for matching: `s:` + decoded string, or `n:` + the integer text.
    ///
    /// A string id longer than [`ID_KEY_MAX`] bytes is kept as a keyed 128-bit digest
    /// (`h:` + 32 hex digits), so the tracker's memory is bounded by its id counts, not by
    /// the size of the ids a peer chooses to send (a 4 MiB id would otherwise be held twice
    /// per entry: trial finding).
    pub(crate) fn id_key(&self) -> Option<String> {
        match self.env.id()? {
            Id::Str(s) => Some(str_id_key(&s.decode())),
            Id::Int { raw, .. } => Some(format!("n:{raw}")),
            Id::Null => None,
        }
    }

    /// The tracker key of `raw` when it is exactly one string or integer id token (as
    /// [`Envelope::id_raw`] or [`crate::recover_id`] give it): read through the same parse
    /// as a well-formed response's id; `None` for anything else (`null`, a float, text
    /// that closes the id and adds members, not JSON).
    pub(crate) fn token_id_key(raw: &[u8]) -> Option<String> {
        let mut frame = Vec::with_capacity(raw.len() + 40);
        frame.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        frame.extend_from_slice(raw);
        frame.extend_from_slice(br#","result":{}}"#);
        // Under a frame limit that fits the id: an id the caller's parser accepted under
        // raised limits keys the same here (re-trial, session 13: a 5 MiB string id was
        // tracked, but `settle_request` with its text found nothing).
        let limits = crate::Limits {
            max_frame_len: frame.len().max(crate::Limits::DEFAULT.max_frame_len),
            ..crate::Limits::DEFAULT
        };
        let env = crate::Parser::with_limits(limits).parse(&frame).ok()?;
        if env.id_raw().map(str::as_bytes) != Some(raw) {
            return None;
        }
        Msg::from_envelope(&env).id_key()
    }

    /// `_meta[key]` value span. The core rejects a repeated `_meta` key; a key equal to
    /// `key` only under case folding is noted as in [`Msg::member`].
    pub(crate) fn meta_get(&self, key: &str) -> Option<Span> {
        self.member(self.meta?, key)
    }

    /// A member of `params`.
    pub(crate) fn param(&self, key: &str) -> Option<Span> {
        match key {
            "name" => self.env.params_name_span(),
            "uri" => self.env.params_uri_span(),
            _ => self.member(self.params?, key),
        }
    }

    /// A member of `result`.
    pub(crate) fn result_member(&self, key: &str) -> Option<Span> {
        match key {
            "resultType" => self.env.result_type_span(),
            _ => self.member(self.result?, key),
        }
    }

    /// The decoded string at `span`.
    pub(crate) fn str_at(&self, span: Span) -> Option<Cow<'f, str>> {
        string_at(self.frame, span)
    }

    /// The JSON type at `span`.
    pub(crate) fn kind_at(&self, span: Span) -> Option<Kind> {
        kind(self.frame, span)
    }

    /// True when the value at `span` is an integer token (no fraction or exponent).
    pub(crate) fn is_integer(&self, span: Span) -> bool {
        self.kind_at(span) == Some(Kind::Number)
            && !span
                .slice(self.frame)
                .iter()
                .any(|c| matches!(c, b'.' | b'e' | b'E'))
    }

    /// The integer value of `error.code`, when it is a plain integer.
    pub(crate) fn error_code(&self) -> Option<(i64, Span)> {
        Some((self.env.error_code()?, self.env.error_code_span()?))
    }
}

/// True when the decoded key `key` equals `name` (ASCII) only under case folding (not
/// exactly). Each non-ASCII fold ([`folds_to`]: U+017F, U+212A, U+0130, U+0131) is longer in
/// UTF-8 than the ASCII letter it folds to, so a variant of `name`'s own length is an ASCII
/// case variant (one `eq_ignore_ascii_case`), and only a longer key with non-ASCII bytes,
/// at most 3 bytes per letter of `name`, goes through [`folds_to`]. Most keys are ruled out
/// by their first byte or their length (`_meta` keys share long prefixes).
///
/// [`folds_to`]: crate::envelope::folds_to
#[inline]
pub(crate) fn is_case_variant(key: &str, name: &str) -> bool {
    let (Some(&k), Some(&n)) = (key.as_bytes().first(), name.as_bytes().first()) else {
        return false;
    };
    if k.is_ascii() && (k | 0x20) != (n | 0x20) {
        return false;
    }
    if key.len() == name.len() {
        return key.eq_ignore_ascii_case(name) && key != name;
    }
    key.len() > name.len()
        && key.len() <= 3 * name.len()
        && !key.is_ascii()
        && crate::envelope::folds_to(key.as_bytes(), name.as_bytes())
}

/// Key spans noted for a message, each once and at most [`MAX_REPEATED_NOTES`], and how many
/// of them were already reported.
#[derive(Default)]
struct Notes(RefCell<(Vec<Span>, usize)>);

impl Notes {
    fn note(&self, key_span: Span) {
        let mut r = self.0.borrow_mut();
        if r.0.len() < MAX_REPEATED_NOTES && !r.0.contains(&key_span) {
            r.0.push(key_span);
        }
    }
    /// Calls `report` for each span noted since the last call.
    fn report_new(&self, mut report: impl FnMut(Span)) {
        let mut r = self.0.borrow_mut();
        let (spans, done) = &mut *r;
        spans[*done..].iter().for_each(|&k| report(k));
        *done = spans.len();
    }
}

/// Most repeated-member findings reported for one message (see [`Msg::note_repeated`]).
pub(crate) const MAX_REPEATED_NOTES: usize = 8;

/// Longest string id (decoded bytes) the tracker keeps verbatim; longer ids are digested.
pub(crate) const ID_KEY_MAX: usize = 128;

/// 128 bits of SipHash under two per-process random keys (std's `RandomState`): collisions
/// cannot be planned by a peer that does not know the keys.
fn digest128(bytes: &[u8]) -> u128 {
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<[std::collections::hash_map::RandomState; 2]> =
        std::sync::OnceLock::new();
    let [a, b] = KEYS.get_or_init(Default::default);
    (u128::from(a.hash_one(bytes)) << 64) | u128::from(b.hash_one(bytes))
}

/// The tracker key of a string id, from its decoded text: the text itself, or a 128-bit digest
/// of it beyond `ID_KEY_MAX` bytes (bounded memory per entry). Every place that keys a string
/// id (a request's, a response's, a `notifications/cancelled` `requestId`) goes through here,
/// so they agree on long ids too.
pub(crate) fn str_id_key(decoded: &str) -> String {
    if decoded.len() > ID_KEY_MAX {
        format!("h:{:032x}", digest128(decoded.as_bytes()))
    } else {
        format!("s:{decoded}")
    }
}
