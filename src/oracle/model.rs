//! A structure-aware model of MCP / JSON-RPC 2.0 messages for fuzzing (`envelope_structured`).
//!
//! The model derives [`arbitrary::Arbitrary`], so libFuzzer's byte mutations become mutations of
//! a message tree: member order, duplicate and case-variant keys (`"Method"`, `"param\u017f"`),
//! escaped key names (`"m\u0065thod"`), escaped values (`"tools\/call"`), every id form
//! (plain, `-0`, `1.0`, `1e2`, beyond ±(2^53−1), string, null), nesting near the depth limit,
//! long strings and number tokens, whitespace between every token, and a few targeted
//! corruptions (BOM, comment, trailing comma, trailing value, truncation). [`MessageModel::render`]
//! writes the bytes; most renderings are well-formed JSON so that the differential oracle
//! compares extracted fields, not just verdicts.
//!
//! The replay test decodes `fuzz/corpus/envelope_structured/*` files through
//! [`MessageModel::from_fuzz_input`], exactly as the fuzz target does.

use arbitrary::{Arbitrary, Unstructured};

/// A whole frame: the root value, the whitespace plan and an optional corruption.
///
/// Its [`Arbitrary`] implementation is weighted so that most inputs are envelopes (about 94%
/// object roots, 3% batches, 3% other values) and most are not corrupted (about 16% are), so
/// the differential oracle mostly compares extracted fields rather than error verdicts.
#[derive(Clone, Debug)]
pub struct MessageModel {
    /// The root value.
    pub root: Root,
    /// Whitespace plan: consumed one byte per token boundary, cyclically (see [`Ws`]).
    pub ws: Ws,
    /// An optional deliberate break of the JSON text.
    pub corruption: Option<Corruption>,
}

/// The root of a frame.
#[derive(Arbitrary, Clone, Debug)]
pub enum Root {
    /// A JSON-RPC envelope object (the common case).
    Envelope(Vec<TopMember>),
    /// A top-level array of envelopes (legacy batch).
    Batch(Vec<Vec<TopMember>>),
    /// Any other JSON value at the root.
    Other(Value),
}

/// Whitespace plan. Byte `b` of the plan at a token boundary emits nothing when `b < 128`,
/// else `1 + (b >> 5 & 3)` bytes chosen from space, tab, LF, CR by the low bits.
#[derive(Arbitrary, Clone, Debug, Default)]
pub struct Ws(pub Vec<u8>);

/// A deliberate break of otherwise well-formed output.
#[derive(Arbitrary, Clone, Debug)]
pub enum Corruption {
    /// A UTF-8 byte order mark before the value.
    Bom,
    /// A `/* … */` comment before the root's closing bracket.
    Comment,
    /// A trailing comma before the root's closing bracket.
    TrailingComma,
    /// Bytes after the root value (e.g. a second value).
    Trailing(Vec<u8>),
    /// The output cut to `n % len` bytes.
    Truncate(u16),
    /// One byte of the output replaced: position `pos % len`, new value `byte`.
    Replace {
        /// Position (modulo the output length).
        pos: u16,
        /// Replacement byte.
        byte: u8,
    },
    /// Whitespace that JSON does not allow (form feed, NBSP, vertical tab) after the value.
    BadWhitespace(u8),
}

/// The name part of a member key (before spelling variations).
#[derive(Arbitrary, Clone, Debug)]
pub enum KeyName {
    /// `jsonrpc`
    Jsonrpc,
    /// `id`
    Id,
    /// `method`
    Method,
    /// `params`
    Params,
    /// `result`
    Result,
    /// `error`
    Error,
    /// `_meta`
    Meta,
    /// `resultType`
    ResultType,
    /// `code`
    Code,
    /// `message`
    Message,
    /// `data`
    Data,
    /// `name`
    Name,
    /// `uri`
    Uri,
    /// `arguments`
    Arguments,
    /// `progressToken`
    ProgressToken,
    /// `io.modelcontextprotocol/protocolVersion`
    ProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities`
    ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`
    ClientInfo,
    /// Any other key text.
    Other(String),
}

impl KeyName {
    /// The key's canonical text.
    pub fn text(&self) -> &str {
        match self {
            KeyName::Jsonrpc => "jsonrpc",
            KeyName::Id => "id",
            KeyName::Method => "method",
            KeyName::Params => "params",
            KeyName::Result => "result",
            KeyName::Error => "error",
            KeyName::Meta => "_meta",
            KeyName::ResultType => "resultType",
            KeyName::Code => "code",
            KeyName::Message => "message",
            KeyName::Data => "data",
            KeyName::Name => "name",
            KeyName::Uri => "uri",
            KeyName::Arguments => "arguments",
            KeyName::ProgressToken => "progressToken",
            KeyName::ProtocolVersion => "io.modelcontextprotocol/protocolVersion",
            KeyName::ClientCapabilities => "io.modelcontextprotocol/clientCapabilities",
            KeyName::ClientInfo => "io.modelcontextprotocol/clientInfo",
            KeyName::Other(s) => s,
        }
    }
}

/// How a key is spelled on the wire.
#[derive(Arbitrary, Clone, Debug)]
pub enum Spelling {
    /// Exactly the canonical text (JSON-escaped where needed).
    Plain,
    /// Exactly the text, with the characters selected by the mask written as `\uXXXX`.
    Escaped(StrEscapes),
    /// The character at `i % len` in ASCII upper case (`"Method"`).
    UpperAt(u8),
    /// The whole key in ASCII upper case.
    AllUpper,
    /// Every `s` replaced by U+017F LATIN SMALL LETTER LONG S (folds to `s` in Go).
    LongS,
    /// Every `k`/`K` replaced by U+212A KELVIN SIGN.
    Kelvin,
    /// The text followed by an escaped NUL (`"method\u0000"`).
    NulSuffix,
    /// The text followed by a suffix.
    Suffix(String),
}

/// A key: name and spelling.
#[derive(Arbitrary, Clone, Debug)]
pub struct Key {
    /// The name.
    pub name: KeyName,
    /// The spelling.
    pub spelling: Spelling,
}

/// Which characters of a string are written as escapes, and how.
#[derive(Arbitrary, Clone, Debug, Default)]
pub struct StrEscapes {
    /// Bit `i % 64` set: character `i` is escaped.
    pub mask: u64,
    /// Upper-case hex digits in `\u` escapes.
    pub upper_hex: bool,
    /// Write `/` as `\/` (when not `\u`-escaped).
    pub solidus: bool,
}

/// A depth-1 member of the envelope object.
#[derive(Arbitrary, Clone, Debug)]
pub enum TopMember {
    /// `jsonrpc` with a version value.
    Jsonrpc(Spelling, Version),
    /// `id` with an id value.
    Id(Spelling, IdValue),
    /// `method` with a method-name string.
    Method(Spelling, StrValue<MethodName>),
    /// `params` with a params object.
    Params(Spelling, Params),
    /// `result` with a result object.
    Result(Spelling, ResultObj),
    /// `error` with an error object.
    Error(Spelling, ErrorObj),
    /// Any key with any value (including a wrong-typed envelope member).
    Other(Key, Value),
}

/// Values of `jsonrpc`.
#[derive(Arbitrary, Clone, Debug)]
pub enum Version {
    /// `"2.0"` spelled with escapes.
    V2(StrEscapes),
    /// Another string.
    Str(String),
    /// Another value.
    Value(Value),
}

/// Values of `id`.
#[derive(Arbitrary, Clone, Debug)]
pub enum IdValue {
    /// An integer in plain form.
    Int(i64),
    /// A small integer in plain form (most real ids).
    Small(u8),
    /// An integer near ±(2^53−1): `2^53 - 1 + delta`, sign chosen.
    NearLimit {
        /// Added to 2^53 − 1.
        delta: i8,
        /// Negative.
        neg: bool,
    },
    /// `-0`.
    NegZero,
    /// An integer written as a float: `n.0`.
    Float(u16),
    /// An integer written with an exponent: `ne2`.
    Exp(u16),
    /// A string id.
    Str(StrValue<String>),
    /// `null`.
    Null,
    /// Any other value.
    Value(Value),
}

/// A string value with an escape plan.
#[derive(Arbitrary, Clone, Debug)]
pub struct StrValue<T> {
    /// The text source.
    pub text: T,
    /// Escape plan.
    pub escapes: StrEscapes,
}

/// MCP method names, or any string.
#[derive(Arbitrary, Clone, Debug)]
pub enum MethodName {
    /// One of a fixed set of real method names (index modulo the set size).
    Known(u8),
    /// Any text.
    Other(String),
}

/// Real MCP method names used by [`MethodName::Known`].
pub const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/read",
    "resources/list",
    "prompts/get",
    "completion/complete",
    "server/discover",
    "subscriptions/listen",
    "notifications/initialized",
    "notifications/progress",
    "notifications/cancelled",
    "notifications/message",
    "sampling/createMessage",
    "elicitation/create",
];

impl MethodName {
    fn text(&self) -> &str {
        match self {
            MethodName::Known(i) => METHODS[*i as usize % METHODS.len()],
            MethodName::Other(s) => s,
        }
    }
}

/// A `params` value.
#[derive(Arbitrary, Clone, Debug)]
pub enum Params {
    /// An object of params members.
    Object(Vec<ParamsMember>),
    /// Any other value (wrong type).
    Value(Value),
}

/// A member of `params` or `result`.
#[derive(Arbitrary, Clone, Debug)]
pub enum ParamsMember {
    /// `_meta`.
    Meta(Spelling, Meta),
    /// `name` with a tool name.
    Name(Spelling, StrValue<String>),
    /// `uri` with a string.
    Uri(Spelling, StrValue<String>),
    /// `resultType` with a string.
    ResultType(Spelling, StrValue<String>),
    /// Any key with any value.
    Other(Key, Value),
}

/// A `_meta` value.
#[derive(Arbitrary, Clone, Debug)]
pub enum Meta {
    /// An object of `_meta` members.
    Object(Vec<MetaMember>),
    /// Any other value (wrong type).
    Value(Value),
}

/// A member of `_meta`.
#[derive(Arbitrary, Clone, Debug)]
pub enum MetaMember {
    /// `io.modelcontextprotocol/protocolVersion`.
    ProtocolVersion(Spelling, StrValue<String>),
    /// `io.modelcontextprotocol/clientCapabilities` (object members).
    ClientCapabilities(Spelling, Vec<(Key, Value)>),
    /// `progressToken`.
    ProgressToken(Spelling, IdValue),
    /// Any key with any value.
    Other(Key, Value),
}

/// A `result` value.
#[derive(Arbitrary, Clone, Debug)]
pub enum ResultObj {
    /// An object of result members.
    Object(Vec<ParamsMember>),
    /// Any other value.
    Value(Value),
}

/// An `error` value.
#[derive(Arbitrary, Clone, Debug)]
pub enum ErrorObj {
    /// `{code, message, data?}` in a chosen member order.
    Object {
        /// The code.
        code: ErrorCode,
        /// The message.
        message: StrValue<String>,
        /// Optional data.
        data: Option<Value>,
        /// Member order rotation.
        rotate: u8,
        /// Extra members.
        extra: Vec<(Key, Value)>,
    },
    /// Any other value.
    Value(Value),
}

/// An `error.code` value.
#[derive(Arbitrary, Clone, Debug)]
pub enum ErrorCode {
    /// A JSON-RPC / MCP code by index (-32700, -32600, -32601, -32602, -32603, -32020,
    /// -32021, -32022).
    Known(u8),
    /// Any integer.
    Int(i64),
    /// Any value.
    Value(Value),
}

const CODES: &[i64] = &[
    -32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022,
];

/// A general JSON value.
#[derive(Arbitrary, Clone, Debug)]
pub enum Value {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number built from parts.
    Number(Number),
    /// A string.
    Str(StrValue<StrText>),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Vec<(Key, Value)>),
    /// `depth` nested arrays (or objects `{"a":…}` when `objects`) around `inner`.
    Nest {
        /// Number of nesting levels.
        depth: u8,
        /// Use objects instead of arrays.
        objects: bool,
        /// The innermost value.
        inner: Box<Value>,
    },
    /// A string of repetitions of `unit` (large frames): `len % 512` of them, or
    /// `(len - 0xFFEF) * 4096` (4 Ki … 64 Ki characters) when `len >= 0xFFF0`; once the
    /// rendering passes 256 KiB, at most 63 (keeps executions fast; the 4 MiB frame limit has
    /// its own boundary tests, and `scalar_vs_simd` fuzzes the limit paths with tight limits).
    Long {
        /// Repetition selector.
        len: u16,
        /// The repeated character.
        unit: char,
    },
}

/// A string source: text plus special pieces.
#[derive(Arbitrary, Clone, Debug)]
pub enum StrText {
    /// Any Unicode text (control characters and quotes are escaped on output).
    Text(String),
    /// A `\u` escape of one UTF-16 code unit, possibly a lone surrogate (`\ud800`).
    Unit(u16),
    /// A surrogate pair escape of a supplementary character.
    Pair(char),
    /// Text with one raw byte inserted (raw control character, invalid UTF-8, quote…).
    RawByte(String, u8),
    /// An invalid escape: backslash followed by this byte.
    BadEscape(u8),
}

/// A number token built from parts (grammar may be broken on purpose).
#[derive(Arbitrary, Clone, Debug)]
pub struct Number {
    /// Leading minus.
    pub neg: bool,
    /// Integer part digits.
    pub int: u64,
    /// Extra leading zeros (a grammar error): `leading_zeros - 250` of them when above 250.
    pub leading_zeros: u8,
    /// Fraction digits, if any (`Some(0)` renders `1.0`).
    pub frac: Option<u32>,
    /// Exponent, if any.
    pub exp: Option<Exponent>,
    /// Extra digits appended to the integer part (long tokens, overflow): `extra_digits -
    /// 0xF000` of them when at least 0xF000 (up to 4095), else none.
    pub extra_digits: u16,
}

/// An exponent part.
#[derive(Arbitrary, Clone, Debug)]
pub struct Exponent {
    /// `E` instead of `e`.
    pub upper: bool,
    /// Sign: 0 none, 1 `+`, 2 `-`.
    pub sign: u8,
    /// Exponent digits: `value % 330` is written (so both in-range and overflowing values).
    pub value: u16,
}

impl<'a> Arbitrary<'a> for MessageModel {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let root_sel: u8 = u.arbitrary()?;
        let corrupt_sel: u8 = u.arbitrary()?;
        let root = match root_sel {
            0..=7 => Root::Batch(u.arbitrary()?),
            8..=15 => Root::Other(u.arbitrary()?),
            _ => Root::Envelope(envelope_members(u)?),
        };
        let corruption = if corrupt_sel < 40 {
            Some(u.arbitrary()?)
        } else {
            None
        };
        Ok(Self {
            root,
            ws: u.arbitrary()?,
            corruption,
        })
    }
}

/// Mostly plain key spellings in skeleton members (3 in 4), else any spelling.
fn skeleton_spelling(u: &mut Unstructured<'_>) -> arbitrary::Result<Spelling> {
    Ok(if u.arbitrary::<u8>()? < 192 {
        Spelling::Plain
    } else {
        u.arbitrary()?
    })
}

/// The members of an envelope: in 3 of 4 inputs a shape skeleton (request: `jsonrpc`, `id`,
/// `method`, `params`; notification: no `id`; result; error) with arbitrary values, plus
/// arbitrary extra members, the whole list rotated so any member can come first.
fn envelope_members(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<TopMember>> {
    let shape: u8 = u.arbitrary()?;
    let rotate: u8 = u.arbitrary()?;
    let mut members = Vec::new();
    if shape >= 64 {
        members.push(TopMember::Jsonrpc(skeleton_spelling(u)?, u.arbitrary()?));
        if !(128..192).contains(&shape) {
            members.push(TopMember::Id(skeleton_spelling(u)?, u.arbitrary()?));
        }
        match shape {
            64..=191 => {
                members.push(TopMember::Method(skeleton_spelling(u)?, u.arbitrary()?));
                if u.arbitrary::<u8>()? < 224 {
                    members.push(TopMember::Params(skeleton_spelling(u)?, u.arbitrary()?));
                }
            }
            192..=223 => members.push(TopMember::Result(skeleton_spelling(u)?, u.arbitrary()?)),
            _ => members.push(TopMember::Error(skeleton_spelling(u)?, u.arbitrary()?)),
        }
    }
    members.extend(u.arbitrary::<Vec<TopMember>>()?);
    if !members.is_empty() {
        let k = rotate as usize % members.len();
        members.rotate_left(k);
    }
    Ok(members)
}

/// Renders a model into bytes; keeps the whitespace cursor.
struct Renderer<'m> {
    out: Vec<u8>,
    ws: &'m [u8],
    ws_pos: usize,
}

impl MessageModel {
    /// Decodes a fuzz input into a model exactly as the `envelope_structured` target does.
    ///
    /// # Errors
    /// When `data` is too short to decode (libFuzzer then moves on).
    pub fn from_fuzz_input(data: &[u8]) -> arbitrary::Result<Self> {
        Self::arbitrary_take_rest(Unstructured::new(data))
    }

    /// Renders the model as frame bytes (no trailing newline).
    pub fn render(&self) -> Vec<u8> {
        let mut r = Renderer {
            out: Vec::new(),
            ws: &self.ws.0,
            ws_pos: 0,
        };
        if matches!(self.corruption, Some(Corruption::Bom)) {
            r.out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        r.ws();
        let close_hook = matches!(
            self.corruption,
            Some(Corruption::Comment) | Some(Corruption::TrailingComma)
        );
        match &self.root {
            Root::Envelope(members) => r.envelope(members, close_hook.then_some(self)),
            Root::Batch(items) => {
                r.out.push(b'[');
                for (i, m) in items.iter().enumerate() {
                    if i > 0 {
                        r.comma();
                    }
                    r.ws();
                    r.envelope(m, None);
                    r.ws();
                }
                if close_hook {
                    r.corrupt_close(self);
                }
                r.out.push(b']');
            }
            Root::Other(v) => r.value(v),
        }
        r.ws();
        let mut out = r.out;
        match &self.corruption {
            Some(Corruption::Trailing(bytes)) => out.extend_from_slice(bytes),
            Some(Corruption::Truncate(n)) if !out.is_empty() => {
                out.truncate(*n as usize % out.len());
            }
            Some(Corruption::Replace { pos, byte }) if !out.is_empty() => {
                let p = *pos as usize % out.len();
                out[p] = *byte;
            }
            Some(Corruption::BadWhitespace(b)) => {
                let bad: &[u8] = match b % 3 {
                    0 => b"\x0c",
                    1 => b"\xC2\xA0",
                    _ => b"\x0b",
                };
                out.extend_from_slice(bad);
            }
            _ => {}
        }
        out
    }
}

impl Renderer<'_> {
    fn ws(&mut self) {
        if self.ws.is_empty() {
            return;
        }
        let b = self.ws[self.ws_pos % self.ws.len()];
        self.ws_pos += 1;
        if b < 128 {
            return;
        }
        let n = 1 + ((b >> 5) & 3) as usize;
        for i in 0..n {
            self.out.push(match (b >> (i % 5)) & 3 {
                0 => b' ',
                1 => b'\t',
                2 => b'\n',
                _ => b'\r',
            });
        }
    }

    fn comma(&mut self) {
        self.ws();
        self.out.push(b',');
    }

    fn corrupt_close(&mut self, model: &MessageModel) {
        match model.corruption {
            Some(Corruption::Comment) => self.out.extend_from_slice(b"/*\"method\":\"x\"*/"),
            Some(Corruption::TrailingComma) => self.out.push(b','),
            _ => {}
        }
    }

    fn envelope(&mut self, members: &[TopMember], hook: Option<&MessageModel>) {
        self.out.push(b'{');
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                self.comma();
            }
            self.ws();
            match m {
                TopMember::Jsonrpc(s, v) => {
                    self.key("jsonrpc", s);
                    match v {
                        Version::V2(e) => self.string("2.0", e),
                        Version::Str(t) => self.string(t, &StrEscapes::default()),
                        Version::Value(v) => self.value(v),
                    }
                }
                TopMember::Id(s, v) => {
                    self.key("id", s);
                    self.id(v);
                }
                TopMember::Method(s, v) => {
                    self.key("method", s);
                    self.string(v.text.text(), &v.escapes);
                }
                TopMember::Params(s, p) => {
                    self.key("params", s);
                    match p {
                        Params::Object(ms) => self.params(ms),
                        Params::Value(v) => self.value(v),
                    }
                }
                TopMember::Result(s, r) => {
                    self.key("result", s);
                    match r {
                        ResultObj::Object(ms) => self.params(ms),
                        ResultObj::Value(v) => self.value(v),
                    }
                }
                TopMember::Error(s, e) => {
                    self.key("error", s);
                    self.error(e);
                }
                TopMember::Other(k, v) => {
                    self.key(k.name.text(), &k.spelling);
                    self.value(v);
                }
            }
            self.ws();
        }
        if let Some(model) = hook {
            self.corrupt_close(model);
        }
        self.out.push(b'}');
    }

    fn params(&mut self, members: &[ParamsMember]) {
        self.out.push(b'{');
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                self.comma();
            }
            self.ws();
            match m {
                ParamsMember::Meta(s, meta) => {
                    self.key("_meta", s);
                    match meta {
                        Meta::Object(ms) => self.meta(ms),
                        Meta::Value(v) => self.value(v),
                    }
                }
                ParamsMember::Name(s, v) => {
                    self.key("name", s);
                    self.string(&v.text, &v.escapes);
                }
                ParamsMember::Uri(s, v) => {
                    self.key("uri", s);
                    self.string(&v.text, &v.escapes);
                }
                ParamsMember::ResultType(s, v) => {
                    self.key("resultType", s);
                    self.string(&v.text, &v.escapes);
                }
                ParamsMember::Other(k, v) => {
                    self.key(k.name.text(), &k.spelling);
                    self.value(v);
                }
            }
            self.ws();
        }
        self.out.push(b'}');
    }

    fn meta(&mut self, members: &[MetaMember]) {
        self.out.push(b'{');
        for (i, m) in members.iter().enumerate() {
            if i > 0 {
                self.comma();
            }
            self.ws();
            match m {
                MetaMember::ProtocolVersion(s, v) => {
                    self.key(KeyName::ProtocolVersion.text(), s);
                    self.string(&v.text, &v.escapes);
                }
                MetaMember::ClientCapabilities(s, ms) => {
                    self.key(KeyName::ClientCapabilities.text(), s);
                    self.object(ms);
                }
                MetaMember::ProgressToken(s, v) => {
                    self.key("progressToken", s);
                    self.id(v);
                }
                MetaMember::Other(k, v) => {
                    self.key(k.name.text(), &k.spelling);
                    self.value(v);
                }
            }
            self.ws();
        }
        self.out.push(b'}');
    }

    fn error(&mut self, e: &ErrorObj) {
        let ErrorObj::Object {
            code,
            message,
            data,
            rotate,
            extra,
        } = e
        else {
            let ErrorObj::Value(v) = e else {
                unreachable!()
            };
            self.value(v);
            return;
        };
        self.out.push(b'{');
        let n = if data.is_some() { 3 } else { 2 };
        let mut first = true;
        for k in 0..n + extra.len() {
            if !first {
                self.comma();
            }
            first = false;
            self.ws();
            let slot = if k < n { (k + *rotate as usize) % n } else { k };
            match slot {
                0 => {
                    self.key("code", &Spelling::Plain);
                    match code {
                        ErrorCode::Known(i) => {
                            let c = CODES[*i as usize % CODES.len()];
                            self.out.extend_from_slice(c.to_string().as_bytes());
                        }
                        ErrorCode::Int(i) => self.out.extend_from_slice(i.to_string().as_bytes()),
                        ErrorCode::Value(v) => self.value(v),
                    }
                }
                1 => {
                    self.key("message", &Spelling::Plain);
                    self.string(&message.text, &message.escapes);
                }
                2 if data.is_some() => {
                    self.key("data", &Spelling::Plain);
                    self.value(data.as_ref().expect("checked"));
                }
                _ => {
                    let (key, v) = &extra[k - n];
                    self.key(key.name.text(), &key.spelling);
                    self.value(v);
                }
            }
            self.ws();
        }
        self.out.push(b'}');
    }

    fn id(&mut self, v: &IdValue) {
        const MAX: i64 = (1 << 53) - 1;
        match v {
            IdValue::Int(i) => self.out.extend_from_slice(i.to_string().as_bytes()),
            IdValue::Small(i) => self.out.extend_from_slice(i.to_string().as_bytes()),
            IdValue::NearLimit { delta, neg } => {
                let m = MAX + i64::from(*delta);
                let m = if *neg { -m } else { m };
                self.out.extend_from_slice(m.to_string().as_bytes());
            }
            IdValue::NegZero => self.out.extend_from_slice(b"-0"),
            IdValue::Float(i) => self.out.extend_from_slice(format!("{i}.0").as_bytes()),
            IdValue::Exp(i) => self.out.extend_from_slice(format!("{i}e2").as_bytes()),
            IdValue::Str(s) => self.string(&s.text, &s.escapes),
            IdValue::Null => self.out.extend_from_slice(b"null"),
            IdValue::Value(v) => self.value(v),
        }
    }

    fn object(&mut self, members: &[(Key, Value)]) {
        self.out.push(b'{');
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                self.comma();
            }
            self.ws();
            self.key(k.name.text(), &k.spelling);
            self.value(v);
            self.ws();
        }
        self.out.push(b'}');
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.out.extend_from_slice(b"null"),
            Value::Bool(b) => self
                .out
                .extend_from_slice(if *b { b"true" } else { b"false" }),
            Value::Int(i) => self.out.extend_from_slice(i.to_string().as_bytes()),
            Value::Number(n) => self.number(n),
            Value::Str(s) => self.str_text(&s.text, &s.escapes),
            Value::Array(items) => {
                self.out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.comma();
                    }
                    self.ws();
                    self.value(item);
                    self.ws();
                }
                self.out.push(b']');
            }
            Value::Object(ms) => self.object(ms),
            Value::Nest {
                depth,
                objects,
                inner,
            } => {
                for _ in 0..*depth {
                    self.out
                        .extend_from_slice(if *objects { b"{\"a\":" } else { b"[" });
                }
                self.value(inner);
                for _ in 0..*depth {
                    self.out.push(if *objects { b'}' } else { b']' });
                }
            }
            Value::Long { len, unit } => {
                let n = if self.out.len() > 256 << 10 {
                    *len as usize % 64
                } else if *len >= 0xFFF0 {
                    (*len as usize - 0xFFEF) * 4096
                } else {
                    *len as usize % 512
                };
                let text: String = std::iter::repeat_n(*unit, n).collect();
                self.string(&text, &StrEscapes::default());
            }
        }
    }

    fn number(&mut self, n: &Number) {
        if n.neg {
            self.out.push(b'-');
        }
        for _ in 0..n.leading_zeros.saturating_sub(250) {
            self.out.push(b'0');
        }
        self.out.extend_from_slice(n.int.to_string().as_bytes());
        for i in 0..n.extra_digits.saturating_sub(0xF000) {
            self.out.push(b'0' + (i % 10) as u8);
        }
        if let Some(f) = n.frac {
            self.out.push(b'.');
            self.out.extend_from_slice(f.to_string().as_bytes());
        }
        if let Some(e) = &n.exp {
            self.out.push(if e.upper { b'E' } else { b'e' });
            match e.sign % 3 {
                1 => self.out.push(b'+'),
                2 => self.out.push(b'-'),
                _ => {}
            }
            self.out
                .extend_from_slice((e.value % 330).to_string().as_bytes());
        }
    }

    fn str_text(&mut self, t: &StrText, e: &StrEscapes) {
        match t {
            StrText::Text(s) => self.string(s, e),
            StrText::Unit(u) => {
                self.out
                    .extend_from_slice(format!("\"\\u{u:04x}\"").as_bytes());
            }
            StrText::Pair(c) => {
                let mut units = [0u16; 2];
                self.out.push(b'"');
                for u in c.encode_utf16(&mut units) {
                    self.out.extend_from_slice(format!("\\u{u:04X}").as_bytes());
                }
                self.out.push(b'"');
            }
            StrText::RawByte(s, b) => {
                self.out.push(b'"');
                let half = s.len() / 2;
                let cut = (0..=half)
                    .rev()
                    .find(|&i| s.is_char_boundary(i))
                    .unwrap_or(0);
                self.string_body(&s[..cut], e);
                self.out.push(*b);
                self.string_body(&s[cut..], e);
                self.out.push(b'"');
            }
            StrText::BadEscape(b) => {
                self.out.extend_from_slice(b"\"\\");
                self.out.push(*b);
                self.out.push(b'"');
            }
        }
    }

    /// Writes `"text"` with the escape plan applied.
    fn string(&mut self, text: &str, e: &StrEscapes) {
        self.out.push(b'"');
        self.string_body(text, e);
        self.out.push(b'"');
    }

    fn string_body(&mut self, text: &str, e: &StrEscapes) {
        for (i, c) in text.chars().enumerate() {
            let forced = e.mask & (1u64 << (i % 64)) != 0;
            match c {
                _ if forced => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let s = if e.upper_hex {
                            format!("\\u{u:04X}")
                        } else {
                            format!("\\u{u:04x}")
                        };
                        self.out.extend_from_slice(s.as_bytes());
                    }
                }
                '"' => self.out.extend_from_slice(b"\\\""),
                '\\' => self.out.extend_from_slice(b"\\\\"),
                '/' if e.solidus => self.out.extend_from_slice(b"\\/"),
                '\n' => self.out.extend_from_slice(b"\\n"),
                '\r' => self.out.extend_from_slice(b"\\r"),
                '\t' => self.out.extend_from_slice(b"\\t"),
                '\u{8}' => self.out.extend_from_slice(b"\\b"),
                '\u{c}' => self.out.extend_from_slice(b"\\f"),
                c if (c as u32) < 0x20 => {
                    self.out
                        .extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes());
                }
                c => {
                    let mut buf = [0u8; 4];
                    self.out
                        .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }

    /// Writes a key with a spelling, then the colon.
    fn key(&mut self, name: &str, s: &Spelling) {
        let plain = StrEscapes::default();
        match s {
            Spelling::Plain => self.string(name, &plain),
            Spelling::Escaped(e) => self.string(name, e),
            Spelling::UpperAt(i) => {
                let mut chars: Vec<char> = name.chars().collect();
                if !chars.is_empty() {
                    let k = *i as usize % chars.len();
                    chars[k] = chars[k].to_ascii_uppercase();
                }
                self.string(&chars.into_iter().collect::<String>(), &plain);
            }
            Spelling::AllUpper => self.string(&name.to_ascii_uppercase(), &plain),
            Spelling::LongS => self.string(&name.replace('s', "\u{17f}"), &plain),
            Spelling::Kelvin => self.string(&name.replace(['k', 'K'], "\u{212a}"), &plain),
            Spelling::NulSuffix => self.string(&format!("{name}\u{0}"), &plain),
            Spelling::Suffix(t) => self.string(&format!("{name}{t}"), &plain),
        }
        self.ws();
        self.out.push(b':');
        self.ws();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(root: Root) -> MessageModel {
        MessageModel {
            root,
            ws: Ws::default(),
            corruption: None,
        }
    }

    #[test]
    fn renders_a_request() {
        let m = model(Root::Envelope(vec![
            TopMember::Jsonrpc(Spelling::Plain, Version::V2(StrEscapes::default())),
            TopMember::Id(Spelling::Plain, IdValue::Small(7)),
            TopMember::Method(
                Spelling::Escaped(StrEscapes {
                    mask: 1,
                    upper_hex: false,
                    solidus: false,
                }),
                StrValue {
                    text: MethodName::Known(3),
                    escapes: StrEscapes {
                        mask: 0,
                        upper_hex: false,
                        solidus: true,
                    },
                },
            ),
            TopMember::Params(
                Spelling::Plain,
                Params::Object(vec![ParamsMember::Meta(
                    Spelling::Plain,
                    Meta::Object(vec![]),
                )]),
            ),
        ]));
        assert_eq!(
            String::from_utf8(m.render()).unwrap(),
            r#"{"jsonrpc":"2.0","id":7,"\u006dethod":"tools\/call","params":{"_meta":{}}}"#
        );
    }

    #[test]
    fn renders_key_spellings_and_corruptions() {
        let mut m = model(Root::Envelope(vec![
            TopMember::Method(
                Spelling::UpperAt(0),
                StrValue {
                    text: MethodName::Other("a\"\u{1}".into()),
                    escapes: Default::default(),
                },
            ),
            TopMember::Other(
                Key {
                    name: KeyName::Params,
                    spelling: Spelling::LongS,
                },
                Value::Nest {
                    depth: 2,
                    objects: false,
                    inner: Box::new(Value::Null),
                },
            ),
        ]));
        m.corruption = Some(Corruption::TrailingComma);
        assert_eq!(
            String::from_utf8(m.render()).unwrap(),
            "{\"Method\":\"a\\\"\\u0001\",\"param\u{17f}\":[[null]],}"
        );
        m.corruption = Some(Corruption::Truncate(3));
        assert_eq!(m.render(), b"{\"M");
    }

    #[test]
    fn whitespace_plan_is_json_whitespace_only() {
        let mut m = model(Root::Envelope(vec![TopMember::Id(
            Spelling::Plain,
            IdValue::NegZero,
        )]));
        m.ws = Ws((0..=255).collect());
        let out = m.render();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("-0"));
        assert!(
            text.bytes()
                .all(|b| !b.is_ascii_whitespace() || b" \t\n\r".contains(&b))
        );
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{text:?}"
        );
    }

    #[test]
    fn decodes_any_fuzz_input() {
        // Short and empty inputs decode (arbitrary fills with defaults) and render.
        for data in [
            &b""[..],
            b"\x00",
            b"\xff\xff\xff\xff",
            b"{\"jsonrpc\":\"2.0\"}",
        ] {
            let m = MessageModel::from_fuzz_input(data).unwrap();
            let _ = m.render();
        }
    }
}
