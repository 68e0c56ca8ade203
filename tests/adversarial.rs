//! Adversarial differential test of the core parser against serde_json (written by a test
//! engineer trying to break the parser; session 8 ran it with ~10 million inputs, 0 findings).
//!
//! Every generated frame goes through `check`, which compares:
//! 1. the verdict of `mcpwire::parse` with `serde_json::from_slice::<Value>` (we accept =>
//!    serde accepts; serde accepts and we reject => a policy kind, justified by the frame;
//!    serde rejects => we reject with a -32700 kind);
//! 2. every extracted field with serde_json's reading of the same member;
//! 3. the result (spans or error kind + offset) of every available backend and of the forced
//!    scalar path, and that an error offset is <= frame length.
//!
//! Run: `cargo test --release --test adversarial -- --nocapture`; the sizes of the random
//! families come from `ADVERSARIAL_SEED`, `ADVERSARIAL_MUTATIONS`, `ADVERSARIAL_CRAFTED` and
//! `ADVERSARIAL_STRUCTURED` (defaults sized for CI, smaller in debug builds; the session-8 run used 4,000,000 /
//! 1,500,000 / 2,000,000).

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use mcpwire::{Backend, Envelope, ErrorKind, Id, Parser, Shape};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

// ---------------------------------------------------------------------------------------
// Oracle

const MAX_SAFE: i64 = (1 << 53) - 1;

/// Keys repeated in some object anywhere (decoded), per serde_json.
#[derive(Clone, Copy)]
struct Dups<'a>(&'a std::cell::RefCell<HashSet<String>>);

impl<'de> DeserializeSeed<'de> for Dups<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}
impl<'de> Visitor<'de> for Dups<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !keys.insert(k.clone()) {
                self.0.borrow_mut().insert(k);
            }
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

fn dup_keys(frame: &[u8]) -> Option<HashSet<String>> {
    let cell = std::cell::RefCell::new(HashSet::new());
    let mut de = serde_json::Deserializer::from_slice(frame);
    Dups(&cell).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(cell.into_inner())
}

/// The string token starting at `off` (its opening quote), decoded by serde_json.
fn string_at(frame: &[u8], off: usize) -> Option<String> {
    let rest = frame.get(off..)?;
    if rest.first() != Some(&b'"') {
        return None;
    }
    let mut it = serde_json::Deserializer::from_slice(rest).into_iter::<String>();
    it.next()?.ok()
}

fn number_token_at(frame: &[u8], off: usize) -> &[u8] {
    let rest = frame.get(off..).unwrap_or_default();
    let n = rest
        .iter()
        .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .count();
    &rest[..n]
}

/// Depth-1 members of a root object as (decoded key, raw value text), duplicates kept.
struct RootPairs;
impl<'de> Visitor<'de> for RootPairs {
    type Value = Option<Vec<(String, Box<serde_json::value::RawValue>)>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::new();
        while let Some(e) = map.next_entry::<String, Box<serde_json::value::RawValue>>()? {
            v.push(e);
        }
        Ok(Some(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// What recover_id should give: the raw text of the single depth-1 `id` when it is a string
/// or a plain integer within +-(2^53-1).
fn expected_recovered_id(frame: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(frame);
    let pairs = de.deserialize_any(RootPairs).ok()??;
    de.end().ok()?;
    let ids: Vec<_> = pairs.iter().filter(|(k, _)| k == "id").collect();
    if ids.len() != 1 {
        return None;
    }
    let raw = ids[0].1.get();
    let v: Value = serde_json::from_str(raw).ok()?;
    let plain = !raw.contains(['.', 'e', 'E']) && raw != "-0";
    (v.is_string() || (plain && is_int_id(&v))).then(|| raw.to_string())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pk {
    Root,
    Params,
    Result,
    Error,
    Meta,
    Other,
}

/// The duplicate-key policy computed independently on a frame serde accepts: the first (in
/// document order) repeated key among depth-1 keys, the inspected members of params /
/// result / error, and the keys of params._meta / result._meta; as (kind, offset of the
/// repeated key's opening quote).
fn policy_dup(frame: &[u8]) -> Option<(ErrorKind, usize)> {
    struct Ctx {
        obj: bool,
        pk: Pk,
        keys: HashSet<String>,
        last: Option<String>,
    }
    let mut stack: Vec<Ctx> = Vec::new();
    let mut i = 0;
    let mut best: Option<(ErrorKind, usize)> = None;
    while i < frame.len() {
        match frame[i] {
            b'"' => {
                let mut j = i + 1;
                while frame[j] != b'"' {
                    j += if frame[j] == b'\\' { 2 } else { 1 };
                }
                let end = j + 1;
                let mut k = end;
                while matches!(frame.get(k), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    k += 1;
                }
                if frame.get(k) == Some(&b':') {
                    let key: String = serde_json::from_slice(&frame[i..end]).expect("key decodes");
                    let top = stack.last_mut().expect("key inside an object");
                    let dup = !top.keys.insert(key.clone());
                    top.last = Some(key.clone());
                    if dup {
                        let kind = match top.pk {
                            Pk::Root => Some(ErrorKind::DuplicateKey),
                            Pk::Params if ["name", "uri", "_meta"].contains(&key.as_str()) => {
                                Some(ErrorKind::DuplicateParamsKey)
                            }
                            Pk::Result if ["resultType", "_meta"].contains(&key.as_str()) => {
                                Some(ErrorKind::DuplicateKey)
                            }
                            Pk::Error if ["code", "message", "data"].contains(&key.as_str()) => {
                                Some(ErrorKind::DuplicateKey)
                            }
                            Pk::Meta => Some(ErrorKind::DuplicateMetaKey),
                            _ => None,
                        };
                        if let Some(kd) = kind
                            && best.is_none_or(|(_, o)| i < o)
                        {
                            best = Some((kd, i));
                        }
                    }
                }
                i = end;
                continue;
            }
            b'{' => {
                let pk = match stack.last() {
                    None => Pk::Root,
                    Some(t) if t.obj => match (t.pk, t.last.as_deref()) {
                        (Pk::Root, Some("params")) => Pk::Params,
                        (Pk::Root, Some("result")) => Pk::Result,
                        (Pk::Root, Some("error")) => Pk::Error,
                        (Pk::Params | Pk::Result, Some("_meta")) => Pk::Meta,
                        _ => Pk::Other,
                    },
                    Some(_) => Pk::Other,
                };
                stack.push(Ctx {
                    obj: true,
                    pk,
                    keys: HashSet::new(),
                    last: None,
                });
            }
            b'[' => stack.push(Ctx {
                obj: false,
                pk: Pk::Other,
                keys: HashSet::new(),
                last: None,
            }),
            b'}' | b']' => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    best
}

fn reread(frame: &[u8], s: mcpwire::Span, what: &str) -> Result<Value, String> {
    let raw = frame
        .get(s.range())
        .ok_or_else(|| format!("{what}: span {s:?} out of bounds"))?;
    serde_json::from_slice(raw).map_err(|e| {
        format!(
            "{what}: span {s:?} = {:?} does not re-read: {e}",
            String::from_utf8_lossy(raw)
        )
    })
}

fn same(
    frame: &[u8],
    what: &str,
    ours: Option<mcpwire::Span>,
    theirs: Option<&Value>,
) -> Result<(), String> {
    match (ours, theirs) {
        (None, None) => Ok(()),
        (Some(s), Some(v)) => {
            let r = reread(frame, s, what)?;
            if &r == v {
                Ok(())
            } else {
                Err(format!("{what}: ours {r} vs serde {v}"))
            }
        }
        (o, t) => Err(format!("{what}: ours {o:?} vs serde {t:?}")),
    }
}

fn get<'v>(v: Option<&'v Value>, k: &str) -> Option<&'v Value> {
    v?.as_object()?.get(k)
}

fn is_int_id(v: &Value) -> bool {
    // serde reads a plain integer as i64/u64; floats, exponents, -0 as f64.
    v.as_i64()
        .is_some_and(|n| (-MAX_SAFE..=MAX_SAFE).contains(&n))
}

/// Independent classification from serde's Value.
fn classify(v: &Value) -> Shape {
    let o = match v {
        Value::Object(o) => o,
        Value::Array(_) => return Shape::Batch,
        _ => return Shape::Invalid,
    };
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Shape::Invalid;
    }
    for m in [get(o.get("params"), "_meta"), get(o.get("result"), "_meta")] {
        if m.is_some_and(|m| !m.is_object()) {
            return Shape::Invalid;
        }
    }
    let id = o.get("id");
    let id_ok = |id: &Value| id.is_string() || is_int_id(id);
    if let Some(m) = o.get("method") {
        if !m.is_string() || o.contains_key("result") || o.contains_key("error") {
            return Shape::Invalid;
        }
        if o.get("params").is_some_and(|p| !p.is_object()) {
            return Shape::Invalid;
        }
        return match id {
            None => Shape::Notification,
            Some(i) if id_ok(i) => Shape::Request,
            _ => Shape::Invalid,
        };
    }
    match (o.get("result"), o.get("error")) {
        (Some(r), None) => match id {
            Some(i) if id_ok(i) && r.is_object() => Shape::Result,
            _ => Shape::Invalid,
        },
        (None, Some(e)) => {
            let code_ok = get(Some(e), "code")
                .is_some_and(|c| c.is_i64() || c.is_u64() && c.as_i64().is_some());
            let msg_ok = get(Some(e), "message").is_some_and(Value::is_string);
            let id_fine = match id {
                None | Some(Value::Null) => true,
                Some(i) => id_ok(i),
            };
            if e.is_object() && code_ok && msg_ok && id_fine {
                Shape::Error
            } else {
                Shape::Invalid
            }
        }
        _ => Shape::Invalid,
    }
}

fn compare_fields(env: &Envelope<'_>, v: &Value) -> Result<(), String> {
    let f = env.frame();
    let root = v.as_object();
    let top = |k: &str| root.and_then(|o| o.get(k));
    same(f, "jsonrpc", env.jsonrpc_span(), top("jsonrpc"))?;
    same(f, "id", env.id_span(), top("id"))?;
    same(f, "method", env.method_span(), top("method"))?;
    same(f, "params", env.params_span(), top("params"))?;
    same(f, "result", env.result_span(), top("result"))?;
    same(f, "error", env.error_span(), top("error"))?;
    let (p, r, e) = (top("params"), top("result"), top("error"));
    same(f, "params._meta", env.params_meta_span(), get(p, "_meta"))?;
    same(f, "result._meta", env.result_meta_span(), get(r, "_meta"))?;
    same(f, "params.name", env.params_name_span(), get(p, "name"))?;
    same(f, "params.uri", env.params_uri_span(), get(p, "uri"))?;
    same(
        f,
        "result.resultType",
        env.result_type_span(),
        get(r, "resultType"),
    )?;
    same(f, "error.code", env.error_code_span(), get(e, "code"))?;
    same(
        f,
        "error.message",
        env.error_message_span(),
        get(e, "message"),
    )?;
    same(f, "error.data", env.error_data_span(), get(e, "data"))?;

    let dec = |s: Option<mcpwire::JsonStr<'_>>| s.map(|s| s.decode().into_owned());
    let st = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    for (name, o, t) in [
        ("jsonrpc()", dec(env.jsonrpc()), st(top("jsonrpc"))),
        ("method()", dec(env.method()), st(top("method"))),
        (
            "error_message()",
            dec(env.error_message()),
            st(get(e, "message")),
        ),
        (
            "result_type()",
            dec(env.result_type()),
            st(get(r, "resultType")),
        ),
        ("params_name()", dec(env.params_name()), st(get(p, "name"))),
        ("params_uri()", dec(env.params_uri()), st(get(p, "uri"))),
    ] {
        if o != t {
            return Err(format!("{name}: ours {o:?} vs serde {t:?}"));
        }
    }
    for (name, s) in [("method()", env.method()), ("jsonrpc()", env.jsonrpc())] {
        if let Some(s) = s {
            let d = s.decode();
            if !s.eq_str(&d) {
                return Err(format!("{name}: eq_str({d:?}) false"));
            }
            let mut longer = d.to_string();
            longer.push('x');
            if s.eq_str(&longer) {
                return Err(format!("{name}: eq_str({longer:?}) true"));
            }
        }
    }
    // id
    let id_raw = env.id_raw();
    if let Some(s) = env.id_span() {
        let txt = std::str::from_utf8(s.slice(f)).ok();
        if id_raw != txt {
            return Err(format!("id_raw(): {id_raw:?} vs span text {txt:?}"));
        }
    } else if id_raw.is_some() {
        return Err("id_raw() without id span".into());
    }
    match (env.id(), top("id")) {
        (Some(Id::Int { value, raw }), Some(t)) => {
            if t.as_i64() != Some(value) || !is_int_id(t) || Some(raw) != id_raw {
                return Err(format!("id(): ours Int {value} ({raw}) vs serde {t}"));
            }
        }
        (Some(Id::Str(s)), Some(t)) => {
            if Some(s.decode().as_ref()) != t.as_str() {
                return Err(format!("id(): ours Str {:?} vs serde {t}", s.decode()));
            }
        }
        (Some(Id::Null), Some(Value::Null)) => {}
        (None, None) => {}
        (None, Some(t)) => {
            if t.is_string() || t.is_null() || is_int_id(t) {
                return Err(format!("id(): ours None vs serde {t}"));
            }
        }
        (o, t) => return Err(format!("id(): ours {o:?} vs serde {t:?}")),
    }
    // error.code
    let want_code = get(e, "code").and_then(Value::as_i64);
    if env.error_code() != want_code {
        return Err(format!(
            "error_code(): ours {:?} vs serde {want_code:?}",
            env.error_code()
        ));
    }
    // _meta members
    for (name, ms, span, theirs) in [
        (
            "params_meta()",
            env.params_meta(),
            env.params_meta_span(),
            get(p, "_meta"),
        ),
        (
            "result_meta()",
            env.result_meta(),
            env.result_meta_span(),
            get(r, "_meta"),
        ),
    ] {
        match (ms, theirs) {
            (Some(ms), Some(Value::Object(obj))) => {
                let mut n = 0;
                let mut seen = HashSet::new();
                for m in ms {
                    n += 1;
                    let Some(tv) = obj.get(m.key.as_ref()) else {
                        return Err(format!("{name}: key {:?} not in serde's object", m.key));
                    };
                    if !seen.insert(m.key.to_string()) {
                        return Err(format!("{name}: key {:?} twice but accepted", m.key));
                    }
                    let key_tok = std::str::from_utf8(m.key_span.slice(f)).unwrap_or("\u{fffd}");
                    let k2: String = serde_json::from_str(&format!("\"{key_tok}\""))
                        .map_err(|e| format!("{name}: key span {e}"))?;
                    if k2 != m.key {
                        return Err(format!("{name}: key span decodes {k2:?}, key {:?}", m.key));
                    }
                    let ov = reread(f, m.value, name)?;
                    if &ov != tv {
                        return Err(format!("{name}.{}: ours {ov} vs serde {tv}", m.key));
                    }
                }
                if n != obj.len() {
                    return Err(format!("{name}: ours {n} members vs serde {}", obj.len()));
                }
            }
            (None, Some(Value::Object(_))) => {
                return Err(format!("{name}: none but serde has an object"));
            }
            (Some(_), t) => return Err(format!("{name}: members but serde {t:?} (span {span:?})")),
            (None, _) => {}
        }
    }
    // shape
    let want = classify(v);
    if env.shape() != want {
        return Err(format!(
            "shape: ours {} ({:?}) vs independent {}",
            env.shape().name(),
            env.invalid_reason(),
            want.name()
        ));
    }
    if (env.shape() == Shape::Invalid)
        != env
            .invalid_reason()
            .is_some_and(|r| r.kind() != ErrorKind::Batch && r.kind() != ErrorKind::EmptyBatch)
    {
        return Err(format!(
            "invalid_reason {:?} with shape {}",
            env.invalid_reason(),
            env.shape().name()
        ));
    }
    if let Some(r) = env.invalid_reason()
        && (r.offset() > f.len() || r.code() == -32700)
    {
        return Err(format!("invalid_reason {r:?} bad offset/code"));
    }
    // meta() dispatch
    let want_meta = match env.shape() {
        Shape::Request | Shape::Notification => env.params_meta().map(|m| m.count()),
        Shape::Result => env.result_meta().map(|m| m.count()),
        _ => None,
    };
    if env.meta().map(|m| m.count()) != want_meta {
        return Err("meta() dispatch".into());
    }
    // batch elements
    if let (Some(els), Some(Value::Array(a))) = (env.batch_elements(), Some(v)) {
        let got: Vec<_> = els.collect();
        if got.len() != a.len() {
            return Err(format!(
                "batch: {} elements vs serde {}",
                got.len(),
                a.len()
            ));
        }
        for (s, tv) in got.iter().zip(a) {
            if &reread(f, *s, "batch element")? != tv {
                return Err("batch element differs".into());
            }
        }
    }
    // params_value: DuplicateParamsKey iff some object inside params repeats a key
    if let Some(ps) = env.params_span() {
        let d = dup_keys(ps.slice(f)).ok_or("params span does not parse")?;
        let mut scratch = Vec::new();
        match env.params_value(&mut scratch) {
            Err(e) if e.kind() == ErrorKind::DuplicateParamsKey => {
                if d.is_empty() {
                    return Err(format!("params_value: {e} but serde sees no repeated key"));
                }
                let k =
                    string_at(f, e.offset()).ok_or("params_value dup offset not at a string")?;
                if !d.contains(&k) {
                    return Err(format!(
                        "params_value: {e} key {k:?} not repeated (dups {d:?})"
                    ));
                }
            }
            Err(e) if e.kind() == ErrorKind::ValueDecode => {
                // allowed only for integers beyond i64/u64
                let t = String::from_utf8_lossy(ps.slice(f)).to_string();
                if !t.bytes().any(|b| b.is_ascii_digit()) {
                    return Err(format!("params_value: {e} with no number in params"));
                }
            }
            Err(e) => return Err(format!("params_value: unexpected {e}")),
            Ok(_) => {
                if !d.is_empty() {
                    return Err(format!(
                        "params_value: Ok but serde sees repeated keys {d:?}"
                    ));
                }
            }
        }
    }
    // recover_id agrees with id_span for valid ids
    if matches!(env.id(), Some(Id::Int { .. } | Id::Str(_)))
        && mcpwire::recover_id(f) != env.id_span()
    {
        return Err(format!(
            "recover_id {:?} vs id_span {:?}",
            mcpwire::recover_id(f),
            env.id_span()
        ));
    }
    Ok(())
}

#[derive(Default)]
struct Stats {
    total: u64,
    by_family: BTreeMap<&'static str, u64>,
    both_ok: u64,
    both_err: u64,
    policy: BTreeMap<&'static str, u64>,
    failures: Vec<(String, Vec<u8>)>,
    fail_count: u64,
    /// both reject: our offset vs serde's error position (informational)
    off_cmp: [u64; 3],
    off_later: Vec<(usize, usize, String, Vec<u8>)>,
}

/// serde's error position as a 0-based byte offset (line/column are 1-based; column counts
/// bytes after the last newline).
fn serde_offset(frame: &[u8], e: &serde_json::Error) -> usize {
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in frame.iter().enumerate() {
        if line == e.line() {
            break;
        }
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
        }
    }
    (line_start + e.column()).saturating_sub(1)
}

fn lit(b: &[u8]) -> String {
    let mut s = String::from("b\"");
    for &c in b {
        match c {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s.push('"');
    s
}

fn check(frame: &[u8]) -> Result<Option<&'static str>, String> {
    let def = Parser::new().parse(frame);
    let sc = Parser::new().with_backend(Backend::Scalar).parse(frame);
    let key =
        |r: &Result<Envelope<'_>, mcpwire::Error>| r.as_ref().map(|e| e.spans()).map_err(|e| *e);
    if key(&def) != key(&sc) {
        return Err(format!("default {:?} vs scalar {:?}", key(&def), key(&sc)));
    }
    for b in Backend::available() {
        let o = Parser::new().with_backend(b).parse(frame);
        if key(&o) != key(&sc) {
            return Err(format!(
                "{} {:?} vs scalar {:?}",
                b.name(),
                key(&o),
                key(&sc)
            ));
        }
    }
    if let Err(e) = &def
        && e.offset() > frame.len()
    {
        return Err(format!(
            "error offset {} > len {}: {e}",
            e.offset(),
            frame.len()
        ));
    }
    let serde = serde_json::from_slice::<Value>(frame);
    // recover_id: None for non-JSON; for frames we accept or reject only by a duplicate-key
    // policy, the single valid depth-1 id.
    let rec = mcpwire::recover_id(frame);
    let rec_txt = rec.map(|s| String::from_utf8_lossy(s.slice(frame)).into_owned());
    let dup_only = match &def {
        Ok(_) => true,
        Err(e) => matches!(
            e.kind(),
            ErrorKind::DuplicateKey | ErrorKind::DuplicateMetaKey | ErrorKind::DuplicateParamsKey
        ),
    };
    if serde.is_err() && rec.is_some() {
        return Err(format!("recover_id {rec_txt:?} on a frame serde rejects"));
    }
    if serde.is_ok() && dup_only {
        let want = expected_recovered_id(frame);
        if rec_txt != want {
            return Err(format!("recover_id: ours {rec_txt:?} vs expected {want:?}"));
        }
    }
    if serde.is_ok() {
        let want = policy_dup(frame);
        match (&def, want) {
            (Ok(_), Some(w)) => return Err(format!("accepted, but the policy says {w:?}")),
            (Err(e), w)
                if matches!(
                    e.kind(),
                    ErrorKind::DuplicateKey
                        | ErrorKind::DuplicateMetaKey
                        | ErrorKind::DuplicateParamsKey
                ) && w != Some((e.kind(), e.offset())) =>
            {
                return Err(format!("ours {e} vs independent policy {w:?}"));
            }
            _ => {}
        }
    }
    match (&def, &serde) {
        (Ok(env), Ok(v)) => {
            compare_fields(env, v)?;
            Ok(None)
        }
        (Ok(env), Err(se)) => Err(format!(
            "ours accepts (shape {}) but serde rejects: {se}",
            env.shape().name()
        )),
        (Err(e), Err(se)) => {
            if e.code() != -32700 && e.kind() != ErrorKind::FrameTooLarge {
                return Err(format!(
                    "serde rejects ({se}) but ours says policy kind {e}"
                ));
            }
            Ok(None)
        }
        (Err(e), Ok(_)) => {
            let off = e.offset();
            match e.kind() {
                ErrorKind::DuplicateKey
                | ErrorKind::DuplicateMetaKey
                | ErrorKind::DuplicateParamsKey => {
                    let k = string_at(frame, off)
                        .ok_or_else(|| format!("{e}: no key string at offset"))?;
                    let d = dup_keys(frame).unwrap_or_default();
                    if !d.contains(&k) {
                        return Err(format!(
                            "{e}: key {k:?} is not repeated in any object (dups {d:?})"
                        ));
                    }
                    Ok(Some(e.kind().name()))
                }
                ErrorKind::NumberTooLong => {
                    let t = number_token_at(frame, off);
                    if t.len() <= 1024 {
                        return Err(format!("{e}: token at offset is {} bytes", t.len()));
                    }
                    Ok(Some("number-too-long"))
                }
                ErrorKind::NumberOutOfRange => {
                    let t = number_token_at(frame, off);
                    let exact = std::str::from_utf8(t)
                        .ok()
                        .and_then(|t| t.parse::<f64>().ok());
                    if !exact.is_some_and(f64::is_infinite) {
                        return Err(format!(
                            "{e}: serde accepts and {:?} is finite",
                            String::from_utf8_lossy(t)
                        ));
                    }
                    Ok(Some("number-out-of-range(exact)"))
                }
                ErrorKind::FrameTooLarge if frame.len() > 4 * 1024 * 1024 => {
                    Ok(Some("frame-too-large"))
                }
                ErrorKind::DepthLimit => Err(format!(
                    "{e}: serde accepts (depth limit should match serde's 128)"
                )),
                _ => Err(format!("ours rejects ({e}) a frame serde accepts")),
            }
        }
    }
}

impl Stats {
    /// Prints the counts of a run that started at `start`.
    fn print_summary(&self, what: &str, start: std::time::Instant) {
        println!(
            "{what}: {} in {:.1}s",
            self.total,
            start.elapsed().as_secs_f64()
        );
        for (k, v) in &self.by_family {
            println!("  family {k}: {v}");
        }
        println!(
            "both accept: {}, both reject: {}, policy rejects: {:?}",
            self.both_ok, self.both_err, self.policy
        );
        println!("disagreements/panics: {}", self.fail_count);
    }
    /// Prints each distinct failure once (shortest input first) and fails the test if any.
    fn assert_no_failures(&self) {
        let mut fails = self.failures.clone();
        fails.sort_by_key(|(_, f)| f.len());
        let mut seen_msgs = HashSet::new();
        for (m, f) in &fails {
            let kind: String = m.chars().take(60).collect();
            if seen_msgs.insert(kind) {
                println!(
                    "FAIL {m}\n  input ({} bytes): {}",
                    f.len(),
                    lit(&f[..f.len().min(600)])
                );
            }
        }
        assert_eq!(self.fail_count, 0, "disagreements found");
    }
    fn run(&mut self, family: &'static str, frame: &[u8]) {
        self.total += 1;
        *self.by_family.entry(family).or_default() += 1;
        let r = std::panic::catch_unwind(|| check(frame));
        match r {
            Ok(Ok(None)) => match Parser::new().parse(frame) {
                Ok(_) => self.both_ok += 1,
                Err(ours) => {
                    self.both_err += 1;
                    if let Err(se) = serde_json::from_slice::<Value>(frame) {
                        let so = serde_offset(frame, &se);
                        let o = ours.offset();
                        let k = o.cmp(&so) as i32 + 1;
                        self.off_cmp[k as usize] += 1;
                        if o > so
                            && !matches!(
                                ours.kind(),
                                ErrorKind::DepthLimit
                                    | ErrorKind::FrameTooLarge
                                    | ErrorKind::UnexpectedEnd
                            )
                        {
                            let sev = o - so;
                            let same_kind = self
                                .off_later
                                .iter()
                                .filter(|x| {
                                    x.2.starts_with(&format!("ours {}", ours.kind().message()))
                                })
                                .count();
                            if same_kind < 50 && self.off_later.len() < 2000 {
                                self.off_later.push((
                                    sev,
                                    frame.len(),
                                    format!("ours {ours} vs serde {se} (byte {so})"),
                                    frame.to_vec(),
                                ));
                            }
                        }
                    }
                }
            },
            Ok(Ok(Some(p))) => {
                let c = self.policy.entry(p).or_default();
                *c += 1;
                if p.starts_with("number-out-of-range") && *c <= 2 {
                    println!("policy example ({p}): {}", lit(frame));
                }
            }
            Ok(Err(m)) => self.fail(format!("[{family}] {m}"), frame),
            Err(_) => self.fail(format!("[{family}] PANIC"), frame),
        }
    }
    fn fail(&mut self, m: String, frame: &[u8]) {
        self.fail_count += 1;
        // keep the shortest few per message prefix
        if self.failures.len() < 400 {
            self.failures.push((m, frame.to_vec()));
        } else if let Some(slot) = self
            .failures
            .iter_mut()
            .find(|(_, f)| f.len() > frame.len() * 4)
        {
            *slot = (m, frame.to_vec());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generators

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn pad_member(n: usize) -> String {
    // a leading member of total length n+? to shift everything after it
    format!("\"p\":\"{}\",", "x".repeat(n))
}

fn numbers() -> Vec<String> {
    let mut v: Vec<String> = [
        "0",
        "-0",
        "1",
        "-1",
        "0e",
        "0e1",
        "0E+",
        "1E+",
        "1E-",
        "1e+1",
        "1E-1",
        "1.",
        "1.e1",
        ".5",
        "-.5",
        "+1",
        "-",
        "--1",
        "01",
        "-01",
        "00",
        "0.0",
        "0.",
        "-0.0",
        "0.0e0",
        "1e0001",
        "1e-0",
        "1.5",
        "-1.5e10",
        "1e309",
        "1e308",
        "-1e309",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1.797693134862316e308",
        "-1.7976931348623159e308",
        "2e-400",
        "1e-99999999999999999999",
        "1e99999999999999999999",
        "0e99999999999999999999",
        "0.0e99999999999999999999",
        "9007199254740991",
        "9007199254740992",
        "-9007199254740991",
        "-9007199254740992",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        "123456789012345678",
        "1234567890123456789",
        "12345678901234567890",
        "-1234567890123456789",
        "-12345678901234567890",
        "1e1e1",
        "1.2.3",
        "1-2",
        "1+2",
        "0x1F",
        "Infinity",
        "-Infinity",
        "NaN",
        "1_000",
        "1e",
        "1e-",
        "-e1",
        "0-",
        "0.e",
        "1.0",
        "100",
        "1E2",
        "1e2",
        "-0e0",
        "0.1",
        "1ee1",
        "1..1",
        "１",
        "1\u{0660}",
        "1 2",
        "1\t",
        "-\u{30}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in [299, 300, 301, 308, 309, 310] {
        v.push(format!("1{}", "0".repeat(n - 1)));
        v.push(format!("-9{}", "9".repeat(n - 1)));
        v.push(format!("1{}.5", "0".repeat(n - 1)));
    }
    // number-length limit (1024) +-1, in forms serde accepts
    for len in [1022usize, 1023, 1024, 1025, 1026] {
        v.push(format!("0.{}", "0".repeat(len - 3) + "1"));
        v.push(format!("-0.{}", "1".repeat(len - 3)));
        v.push(format!("1.{}e5", "5".repeat(len - 4)));
        v.push(format!("1{}e-900", "0".repeat(len - 5)));
        v.push("7".repeat(len.min(308)).to_string()); // plain ints (limit applies only beyond 300 digits)
        v.push(format!("1e-{}", "0".repeat(len - 4) + "1"));
        v.push(format!("0e{}", "9".repeat(len - 2)));
    }
    for len in [300usize, 301, 302] {
        v.push(format!("-{}", "1".repeat(len - 1)));
        v.push("1".repeat(len));
    }
    v
}

fn string_contents() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        &b""[..],
        b"\\u0000",
        b"\\u0041",
        b"\\uD83D\\uDE00",
        b"\\ud83d\\ude00",
        b"\\uD800",
        b"\\uDC00",
        b"\\uDE00\\uD83D",
        b"\\uD800\\u0041",
        b"\\uD800\\uD800",
        b"\\uD800\\",
        b"\\uD800\\u",
        b"\\uD800\\uDC0",
        b"\\uD800x",
        b"\\uDBFF\\uDFFF",
        b"\\uD800\\n",
        b"\\/",
        b"\\x41",
        b"\\U0041",
        b"\\u00",
        b"\\u00G0",
        b"\\u 041",
        b"\\'",
        b"\\a",
        b"\\0",
        b"\\",
        b"\\\\",
        b"\\\"",
        b"\\b\\f\\n\\r\\t",
        b"\\uFFFF",
        b"\\uFEFF",
        b"\\u2028",
        b"a\\u0022b",
        b"\\u005C",
        b"\\u005c\\u0022",
        b"\x7f",
        b"\xc2\xa0",
        b"\xe2\x80\xa8",
        b"\xef\xbb\xbf",
        b"\xf0\x9f\x98\x80",
        b"\xc0\xaf",
        b"\xc1\xbf",
        b"\xe0\x80\xaf",
        b"\xe0\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xed\x9f\xbf",
        b"\xf0\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf4\x8f\xbf\xbf",
        b"\xf5\x80\x80\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xbf",
        b"\xc2",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"\xc2\x41",
        b"\xe2\x28\xa1",
        b"\xf0\x28\x8c\x28",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\\u00e9",
        b"\xc3\xa9\\u00e9",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    for c in 0u8..0x20 {
        v.push(vec![c]);
        v.push(vec![b'a', c, b'b']);
    }
    v
}

/// A frame with `slot` substituted into a template at `{X}`, behind a padding member.
fn fill(template: &str, pad: usize, x: &[u8]) -> Vec<u8> {
    let t = template.replace("{P}", &pad_member(pad));
    let i = t.find("{X}").unwrap();
    let mut out = t.as_bytes()[..i].to_vec();
    out.extend_from_slice(x);
    out.extend_from_slice(&t.as_bytes()[i + 3..]);
    out
}

const NUM_TEMPLATES: &[&str] = &[
    r#"{{P}"jsonrpc":"2.0","id":{X},"method":"ping"}"#,
    r#"{"jsonrpc":"2.0",{P}"id":1,"error":{"code":{X},"message":"m"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"_meta":{"k":{X}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"a":[{X}]}}"#,
    r#"{"jsonrpc":"2.0","id":1,{P}"result":{"x":{X}}}"#,
    r#"{X}"#,
    r#"[{P}{X}]"#,
    r#"{"jsonrpc":"2.0",{P}"id":{X}}"#,
    r#"{"jsonrpc":"2.0","method":"m",{P}"params":{"_meta":{"k":{X}},"name":1}}"#,
    r#"{"jsonrpc":"2.0","id":1,{P}"error":{"code":-1,"message":"m","data":{X}}}"#,
];

const STR_TEMPLATES: &[&str] = &[
    r#"{{P}"jsonrpc":"2.0","id":1,"method":"{X}"}"#,
    r#"{"jsonrpc":"2.0",{P}"id":"{X}","method":"m"}"#,
    r#"{{P}"jsonrpc":"{X}","method":"m"}"#,
    r#"{"jsonrpc":"2.0","method":"m","params":{{P}"_meta":{"{X}":1,"k":2}}}"#,
    r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{{P}"k":"{X}"}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"name":"{X}"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{{P}"resultType":"{X}"}}"#,
    r#"{"jsonrpc":"2.0","id":1,{P}"error":{"code":1,"message":"{X}"}}"#,
    r#"{"jsonrpc":"2.0",{P}"{X}":1,"method":"m"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"{X}":1}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"l":11,"m":12,"n":13,"o":14,"p":15,"q":16,{P}"{X}":17}}}"#,
    r#"{P}"{X}"#,
    r#""{X}""#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m{X}"#,
];

fn escape_variants(name: &str, rng: &mut Rng, max: usize) -> Vec<String> {
    let b = name.as_bytes();
    let n = b.len();
    let total = 1usize << n.min(16);
    let mut out = Vec::new();
    let masks: Vec<usize> = if total <= max {
        (0..total).collect()
    } else {
        (0..max).map(|_| rng.below(total)).collect()
    };
    for mask in masks {
        let mut s = String::new();
        for (i, &c) in b.iter().enumerate() {
            if mask >> i & 1 == 1 {
                match rng.below(3) {
                    0 => write!(s, "\\u{:04x}", c).unwrap(),
                    1 => write!(s, "\\u{:04X}", c).unwrap(),
                    _ if c == b'/' => s.push_str("\\/"),
                    _ => write!(s, "\\u{:04x}", c).unwrap(),
                }
            } else {
                s.push(c as char);
            }
        }
        out.push(s);
    }
    out
}

fn corpus() -> Vec<Vec<u8>> {
    let base = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"));
    let mut files = Vec::new();
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        if let Ok(rd) = std::fs::read_dir(d) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out)
                } else {
                    out.push(p)
                }
            }
        }
    }
    walk(&base.join("captures"), &mut files);
    walk(&base.join("spec-examples"), &mut files);
    // The repository's own copies (a fresh clone without ../shared has these).
    let own = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/corpora"));
    walk(&own.join("real"), &mut files);
    walk(&own.join("spec"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        let name = f.display().to_string();
        if name.ends_with(".jsonl") {
            for line in bytes.split(|&b| b == b'\n') {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if !line.is_empty() {
                    out.push(line.to_vec());
                }
            }
        } else if name.ends_with(".sse") {
            for line in bytes.split(|&b| b == b'\n') {
                if let Some(d) = line.strip_prefix(b"data: ") {
                    let d = d.strip_suffix(b"\r").unwrap_or(d);
                    if !d.is_empty() {
                        out.push(d.to_vec());
                    }
                }
            }
        } else if name.ends_with(".json") {
            out.push(bytes);
        }
    }
    out.sort();
    out.dedup();
    out
}

const DICT: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\x00",
    b"\x1f",
    b"\x7f",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"\xef\xbb\xbf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc0\xaf",
    b"\xe2\x82",
    b"\xff",
    b"\x80",
    b"\\u0000",
    b"\\uD800",
    b"\\uDC00",
    b"\\uD83D\\uDE00",
    b"\\x",
    b"\\U",
    b"\\/",
    b"-0",
    b"0e",
    b"1E+",
    b"1.",
    b".5",
    b"01",
    b"1e400",
    b"true",
    b"nul",
    b"\"method\":\"x\",",
    b"\"id\":1,",
    b"\"m\\u0065thod\":1,",
    b"\"_meta\":{},",
    b"\"_meta\":1,",
    b"\"id\":1.0,",
    b"\"id\":-0,",
    b"\"jsonrpc\":\"2.0\",",
    b"\"\\u006a\\u0073onrpc\":\"2.0\",",
    b"\"params\":[],",
    b"\"result\":{},",
    b"\"error\":{\"code\":1,\"message\":\"\"},",
    b"9007199254740992",
    b"1e308",
    b"\"resultType\":\"x\",",
    b"\"code\":1,",
    b"\"name\":\"n\",",
    b"\"uri\":\"u\",",
];

fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut f = src.to_vec();
    let k = 1 + rng.below(4);
    for _ in 0..k {
        let len = f.len();
        match rng.below(11) {
            0 => {
                if len > 0 {
                    let i = rng.below(len);
                    f[i] ^= 1 << rng.below(8);
                }
            }
            1 => {
                if len > 0 {
                    let i = rng.below(len);
                    f[i] = rng.next() as u8;
                }
            }
            2..=4 => {
                let i = rng.below(len + 1);
                let d = DICT[rng.below(DICT.len())];
                f.splice(i..i, d.iter().copied());
            }
            5 => {
                if len > 0 {
                    let i = rng.below(len);
                    let n = 1 + rng.below(8.min(len - i));
                    f.drain(i..i + n);
                }
            }
            6 => {
                let i = rng.below(len + 1);
                f.truncate(i);
            }
            7 => {
                if len > 0 {
                    let i = rng.below(len);
                    let n = 1 + rng.below(32.min(len - i));
                    let chunk = f[i..i + n].to_vec();
                    let j = rng.below(len + 1);
                    f.splice(j..j, chunk);
                }
            }
            8 => {
                // escape a random ASCII letter inside the frame (may land in a key or value)
                if len > 0 {
                    let i = rng.below(len);
                    if f[i].is_ascii_alphabetic() {
                        let e = format!("\\u{:04x}", f[i]);
                        f.splice(i..i + 1, e.bytes());
                    }
                }
            }
            9 => {
                // shift by spaces at the front or after the first `{`
                let n = rng.below(70);
                let at = if f.first() == Some(&b'{') { 1 } else { 0 };
                f.splice(at..at, std::iter::repeat_n(b' ', n));
            }
            _ => {
                // replace a whitespace or structural byte with odd whitespace
                if len > 0 {
                    let i = rng.below(len);
                    if matches!(f[i], b' ' | b',' | b':') {
                        let w: &[u8] = [
                            &b"\x0b"[..],
                            b"\x0c",
                            b"\xc2\xa0",
                            b"\xe2\x80\xa8",
                            b"\r\n\t ",
                        ][rng.below(5)];
                        f.splice(i..i, w.iter().copied());
                    }
                }
            }
        }
    }
    f
}

fn nest(d: usize, kinds: &mut Rng, inner: &str) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for _ in 0..d {
        if kinds.below(2) == 0 {
            open.push('[');
            close.insert(0, ']');
        } else {
            open.push_str("{\"a\":");
            close.insert(0, '}');
        }
    }
    format!("{open}{inner}{close}")
}

fn base_frames() -> Vec<Vec<u8>> {
    [
        &br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{"k":"v","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#[..],
        br#"{ "jsonrpc" : "2.0" , "id" : "a\u00e9" , "result" : { "resultType" : "complete" , "_meta" : { "x" : [1, -2.5e3, true] } } }"#,
        br#"{"jsonrpc":"2.0","id":-9007199254740991,"error":{"code":-32600,"message":"bad \"x\"","data":{"a":null}}}"#,
        br#"[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":0,"method":"m","params":{}}]"#,
        "{\"jsonrpc\":\"2.0\",\"method\":\"m\\u00e9\u{e9}\",\"params\":{\"uri\":\"file:///\u{1F600}\",\"_meta\":{\"\u{e9}\":\"\\uD83D\\uDE00\"}}}".as_bytes(),
    ]
    .iter()
    .map(|b| b.to_vec())
    .collect()
}

/// The environment variable `name` as a number, else `default`.
fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// How many inputs a random family runs: the environment variable `name`, else 20,000
/// (5,000 in debug builds, which CI's `cargo test` runs twice).
fn run_size(name: &str) -> usize {
    let default = if cfg!(debug_assertions) {
        5_000
    } else {
        20_000
    };
    env_u64(name, default) as usize
}

#[test]
fn generated_families_agree_with_serde_json() {
    let start = std::time::Instant::now();
    let mut st = Stats::default();
    let seed = env_u64("ADVERSARIAL_SEED", 0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed);
    // Debug builds (CI's `cargo test`, twice) take every third padding plus the 16/32/64/128
    // byte edges and one byte either side; release builds take all of them.
    let edges = [15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129];
    let pads: Vec<usize> = (0..=130)
        .filter(|p| !cfg!(debug_assertions) || p % 3 == 0 || edges.contains(p))
        .collect();

    // A. number grammar x contexts x padding
    for num in numbers() {
        for t in NUM_TEMPLATES {
            let ps: &[usize] = if t.contains("{P}") { &pads } else { &[0] };
            for &p in ps {
                st.run("numbers", &fill(t, p, num.as_bytes()));
            }
        }
    }
    // B. strings / escapes / raw bytes x contexts x padding
    for s in string_contents() {
        for t in STR_TEMPLATES {
            let ps: &[usize] = if t.contains("{P}") { &pads } else { &[0] };
            for &p in ps {
                st.run("strings", &fill(t, p, &s));
            }
        }
    }
    // C. escaped envelope / inner key names, alone and as a duplicate of the plain form
    let keyset: &[(&str, &str)] = &[
        ("jsonrpc", r#"{{P}"{K}":"2.0","id":1,"method":"m"}"#),
        ("id", r#"{"jsonrpc":"2.0",{P}"{K}":1,"method":"m"}"#),
        ("method", r#"{"jsonrpc":"2.0","id":1,{P}"{K}":"m"}"#),
        (
            "params",
            r#"{"jsonrpc":"2.0","id":1,"method":"m",{P}"{K}":{"_meta":{}}}"#,
        ),
        (
            "result",
            r#"{"jsonrpc":"2.0","id":1,{P}"{K}":{"_meta":{"a":1}}}"#,
        ),
        (
            "error",
            r#"{"jsonrpc":"2.0","id":1,{P}"{K}":{"code":1,"message":"m"}}"#,
        ),
        (
            "_meta",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"{K}":{"a":1}}}"#,
        ),
        (
            "_meta",
            r#"{"jsonrpc":"2.0","id":1,"result":{{P}"{K}":{"a":1}}}"#,
        ),
        (
            "name",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"{K}":"n"}}"#,
        ),
        (
            "uri",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{{P}"{K}":"u"}}"#,
        ),
        (
            "resultType",
            r#"{"jsonrpc":"2.0","id":1,"result":{{P}"{K}":"complete"}}"#,
        ),
        (
            "code",
            r#"{"jsonrpc":"2.0","id":1,"error":{{P}"{K}":7,"message":"m"}}"#,
        ),
        (
            "message",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":7,{P}"{K}":"m"}}"#,
        ),
        (
            "data",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"m",{P}"{K}":1}}"#,
        ),
        (
            "io.modelcontextprotocol/protocolVersion",
            r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{{P}"{K}":"2026-07-28"}}}"#,
        ),
        (
            "k",
            r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{{P}"{K}":1}}}"#,
        ),
        ("other", r#"{"jsonrpc":"2.0","method":"m",{P}"{K}":1}"#),
    ];
    for &(name, tmpl) in keyset {
        let vars = escape_variants(name, &mut rng, 96);
        for (vi, var) in vars.iter().enumerate() {
            for p in [0usize, 1, 7, 15, 16, 31, 32, 33, 47, 63, 64, 65, 100, 127] {
                if (vi + p) % 3 != 0 && p > 1 {
                    continue;
                }
                let t = tmpl.replace("{K}", var);
                st.run(
                    "escaped-keys",
                    &fill(&t.replacen("{P}", "{X}", 1), 0, pad_member(p).as_bytes()),
                );
                // duplicate: plain + escaped, escaped + plain, escaped + escaped
                let i = tmpl.find("\"{K}\"").unwrap();
                // find member end: the text after "{K}": up to the next ',' or '}' at depth of the member
                let after = &tmpl[i..];
                let mut depth = 0i32;
                let mut end = after.len();
                for (j, c) in after.char_indices() {
                    match c {
                        '{' | '[' => depth += 1,
                        '}' | ']' => {
                            if depth == 0 {
                                end = j;
                                break;
                            }
                            depth -= 1;
                        }
                        ',' if depth == 0 => {
                            end = j;
                            break;
                        }
                        _ => {}
                    }
                }
                let member = &after[..end];
                let dup_a = format!(
                    "{},{}",
                    member.replace("{K}", name),
                    member.replace("{K}", var)
                );
                let dup_b = format!(
                    "{},{}",
                    member.replace("{K}", var),
                    member.replace("{K}", name)
                );
                let dup_c = format!(
                    "{},{}",
                    member.replace("{K}", var),
                    member.replace("{K}", var)
                );
                for d in [dup_a, dup_b, dup_c] {
                    let full = format!("{}{}{}", &tmpl[..i], d, &tmpl[i + end..]);
                    st.run(
                        "escaped-keys-dup",
                        &fill(&full.replacen("{P}", "{X}", 1), 0, pad_member(p).as_bytes()),
                    );
                }
            }
        }
    }
    // C2. _meta with many keys: duplicates at positions around the inline/big-set switch (16)
    for n in [1usize, 2, 15, 16, 17, 18, 33] {
        for dup_of in [0usize, n / 2, n.saturating_sub(1)] {
            for form in 0..4 {
                let mut m = String::new();
                for i in 0..n {
                    write!(m, "\"k{i}\":{i},").unwrap();
                }
                let k = format!("k{dup_of}");
                let kk = match form {
                    0 => k.clone(),
                    1 => format!("\\u006b{}", &k[1..]),
                    2 => k.replace('k', "\\u006B"),
                    _ => format!("{k}\\u0000"),
                };
                write!(m, "\"{kk}\":\"dup\"").unwrap();
                for ctx in [
                    format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"_meta":{{{m}}}}}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"_meta":{{{m}}}}}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","method":"m",{m}}}"#),
                ] {
                    st.run("meta-many-keys", ctx.as_bytes());
                }
            }
        }
    }
    // D. every byte inserted / substituted at every position of the base frames
    for b in base_frames() {
        for i in 0..=b.len() {
            for c in 0u16..=255 {
                let c = c as u8;
                let mut f = b.clone();
                f.insert(i, c);
                st.run("byte-insert", &f);
                if i < b.len() && b[i] != c {
                    let mut g = b.clone();
                    g[i] = c;
                    st.run("byte-replace", &g);
                }
            }
        }
        // E. prefixes (truncation) and suffix garbage
        for i in 0..=b.len() {
            st.run("truncate", &b[..i]);
            st.run("suffix", &b[i..]);
        }
        for g in [
            &b" "[..],
            b"\n",
            b"\r\n",
            b"\t",
            b"x",
            b"}",
            b"]",
            b",",
            b"\x00",
            b"\x0b",
            b"\x0c",
            b"\xc2\xa0",
            b"{}",
            b"1",
            b"\xef\xbb\xbf",
        ] {
            let mut f = b.clone();
            f.extend_from_slice(g);
            st.run("trailing", &f);
            let mut h = g.to_vec();
            h.extend_from_slice(&b);
            st.run("leading", &h);
        }
    }
    // F. invalid UTF-8 classes at every position of a frame's strings and outside
    let seqs: &[&[u8]] = &[
        b"\xc0\x80",
        b"\xc1\xbf",
        b"\xe0\x80\x80",
        b"\xe0\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xf0\x80\x80\x80",
        b"\xf0\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xc2",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"\xe2\x82\x22",
        b"\xc2\x22",
        b"\xf0\x9f\x22",
        b"\xe2\x28\xa1",
        b"\xed\x9f\xbf",
        b"\xee\x80\x80",
        b"\xf4\x8f\xbf\xbf",
        b"\xf0\x90\x80\x80",
    ];
    for b in base_frames() {
        for i in 0..=b.len() {
            for s in seqs {
                let mut f = b.clone();
                f.splice(i..i, s.iter().copied());
                st.run("utf8", &f);
            }
        }
    }
    for s in seqs {
        for p in 0..=130usize {
            // truncated sequence at the very end of the frame, and right before a quote
            let mut f =
                format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{}", "y".repeat(p)).into_bytes();
            f.extend_from_slice(s);
            st.run("utf8-end", &f);
            f.extend_from_slice(b"\"}");
            st.run("utf8-end", &f);
        }
    }
    // G. whitespace variants at every whitespace slot
    let spaced = br#" { "jsonrpc" : "2.0" , "id" : 1 , "method" : "m" , "params" : { "_meta" : { "a" : [ 1 , 2 ] } } } "#;
    let wss: &[&[u8]] = &[
        b" ",
        b"\t",
        b"\n",
        b"\r",
        b"\r\n",
        b"\x0b",
        b"\x0c",
        b"\xc2\xa0",
        b"\xe2\x80\xa8",
        b"\xe2\x80\xa9",
        b"\xef\xbb\xbf",
        b"\x00",
        b"\xc2\x85",
        b"\x1c",
        b"\x1f",
    ];
    for (i, &c) in spaced.iter().enumerate() {
        if c != b' ' {
            continue;
        }
        for w in wss {
            let mut f = spaced[..i].to_vec();
            f.extend_from_slice(w);
            f.extend_from_slice(&spaced[i + 1..]);
            st.run("whitespace", &f);
        }
    }
    for f in [
        &b""[..],
        b" ",
        b"\n\r\t ",
        b"\xef\xbb\xbf",
        b"\xef\xbb\xbf{}",
        b"\xef\xbb",
        b"\xef\xbb\xbf \"x\"",
        b"{}",
        b"[]",
        b"null",
        b"\"\"",
        b"[,]",
        b"{,}",
        b"[1,]",
        b"{\"a\":1,}",
    ] {
        st.run("misc", f);
    }
    // H. depth at the limit +-1 in every context, with scalar / empty / non-empty innermost
    let ctxs: &[&str] = &[
        "{X}",
        r#"{"jsonrpc":"2.0","id":{X},"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{X}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"a":{X}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"a":{X}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{X}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","x":{X}}}"#,
        r#"{"jsonrpc":"2.0","method":"m","x":{X}}"#,
        r#"[{"jsonrpc":"2.0","method":"m","params":{X}}]"#,
    ];
    let mut krng = Rng(7);
    for ctx in ctxs {
        for d in 120..=131usize {
            for inner in [
                "1",
                "\"s\"",
                "{}",
                "[]",
                "[1]",
                "{\"b\":2}",
                "[[]]",
                "{\"c\":{}}",
            ] {
                for _ in 0..3 {
                    let v = nest(d, &mut krng, inner);
                    st.run("depth", &fill(ctx, 0, v.as_bytes()));
                }
            }
        }
    }
    // J. strings ending near the frame end / crossing block edges, special byte at every
    // distance from the end
    let specials: &[&[u8]] = &[
        b"\\n",
        b"\\u00e9",
        b"\xc3\xa9",
        b"\x1f",
        b"\\uD83D\\uDE00",
        b"\\\"",
        b"\xf0\x9f\x98\x80",
        b"\xed\xa0\x80",
        b"\\uD800",
        b"\\",
        b"\x7f",
    ];
    for pre in 0..=130usize {
        for post in 0..=20usize {
            for sp in specials {
                let mut f = b"{\"jsonrpc\":\"2.0\",\"method\":\"".to_vec();
                f.extend(std::iter::repeat_n(b'y', pre));
                f.extend_from_slice(sp);
                f.extend(std::iter::repeat_n(b'z', post));
                let mut closed = f.clone();
                closed.extend_from_slice(b"\"}");
                st.run("string-end-edges", &f);
                st.run("string-end-edges", &closed);
                let mut k =
                    b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"_meta\":{\"".to_vec();
                k.extend(std::iter::repeat_n(b'y', pre));
                k.extend_from_slice(sp);
                k.extend(std::iter::repeat_n(b'z', post));
                k.extend_from_slice(b"\":1,\"");
                k.extend(std::iter::repeat_n(b'y', pre));
                k.extend_from_slice(sp);
                k.extend(std::iter::repeat_n(b'z', post));
                k.extend_from_slice(b"\":2}}}");
                st.run("string-end-edges-dupkey", &k);
            }
        }
    }
    // J2. backslash runs of length 1..7 crossing 16/32/64-byte edges, followed by every kind
    // of escaped byte, in a value string and in a _meta key
    let tails: &[&[u8]] = &[
        b"\"",
        b"n",
        b"u0041",
        b"uD83D\\uDE00",
        b"uD800",
        b"x",
        b"\x01",
        b"\xc3\xa9",
        b"/",
        b"u00",
        b"\\",
    ];
    for pre in 0..=130usize {
        for run in 1..=7usize {
            for tail in tails {
                for post in [0usize, 1, 3, 17, 70] {
                    let mut body = vec![b'y'; pre];
                    body.extend(std::iter::repeat_n(b'\\', run));
                    body.extend_from_slice(tail);
                    body.extend(std::iter::repeat_n(b'z', post));
                    let mut f = b"{\"jsonrpc\":\"2.0\",\"method\":\"".to_vec();
                    f.extend_from_slice(&body);
                    f.extend_from_slice(b"\",\"id\":1}");
                    st.run("backslash-runs", &f);
                    let mut g =
                        b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"_meta\":{\"".to_vec();
                    g.extend_from_slice(&body);
                    g.extend_from_slice(b"\":1}}}");
                    st.run("backslash-runs", &g);
                }
            }
        }
    }
    // J3. numbers near f64::MAX in many spellings (serde's two-step reading vs the exact one)
    let mut nrng = Rng(0xABCDEF);
    for _ in 0..40_000 {
        let mut mant = String::from("17976931348623");
        let extra = 1 + nrng.below(25);
        for _ in 0..extra {
            mant.push((b'0' + nrng.below(10) as u8) as char);
        }
        let shift = nrng.below(6) as i64 - 2; // where the decimal point goes
        let form = nrng.below(5);
        let digits = mant.len() as i64;
        let tok = match form {
            0 => format!("{}.{}e308", &mant[..1], &mant[1..]),
            1 => {
                // integer with zeros: 309 digits total
                let mut t = mant.clone();
                while (t.len() as i64) < 309 {
                    t.push('0');
                }
                t.truncate(309.max(digits as usize));
                t
            }
            2 => {
                let ip = (1 + shift.max(0)) as usize;
                format!("{}.{}e{}", &mant[..ip], &mant[ip..], 309 - ip as i64)
            }
            3 => format!("0.{}e309", mant),
            _ => format!("{}e{}", mant, 309 - digits),
        };
        let tok = if nrng.below(4) == 0 {
            format!("-{tok}")
        } else {
            tok
        };
        st.run("near-f64-max", format!("[{tok}]").as_bytes());
        st.run(
            "near-f64-max",
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"_meta":{{"n":{tok}}}}}}}"#).as_bytes(),
        );
    }
    for f in [&b"[ {\"jsonrpc\":\"2.0\",\"method\":\"a\"} ,\n {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\t]"[..], b"[ ]", b"[\n]", b" [1 , 2 ] ", b"[[],{}]"] {
        st.run("batch-ws", f);
    }
    // K. _meta keys equal only after unescaping (every pair of encodings of the same char)
    let encs: &[&[&str]] = &[
        &["\\\"", "\\u0022"],
        &["\\\\", "\\u005c", "\\u005C"],
        &["/", "\\/", "\\u002f", "\\u002F"],
        &["\\n", "\\u000a", "\\u000A"],
        &["\\b", "\\u0008"],
        &["\\t", "\\u0009"],
        &["\u{e9}", "\\u00e9", "\\u00E9"],
        &[
            "\u{1F600}",
            "\\uD83D\\uDE00",
            "\\ud83d\\ude00",
            "\\uD83D\\ude00",
        ],
        &["\\u0000"],
        &["\u{2028}", "\\u2028"],
        &["\u{FFFF}", "\\uFFFF", "\\uffff"],
    ];
    for group in encs {
        for a in group.iter() {
            for b in group.iter() {
                for (pre, post) in [("", ""), ("k", ""), ("", "k"), ("ab", "cd")] {
                    let ka = format!("{pre}{a}{post}");
                    let kb = format!("{pre}{b}{post}");
                    for ctx in [
                        format!(
                            r#"{{"jsonrpc":"2.0","method":"m","params":{{"_meta":{{"{ka}":1,"x":0,"{kb}":2}}}}}}"#
                        ),
                        format!(
                            r#"{{"jsonrpc":"2.0","id":1,"result":{{"_meta":{{"{ka}":1,"{kb}":2}}}}}}"#
                        ),
                        format!(r#"{{"jsonrpc":"2.0","method":"m","{ka}":1,"{kb}":2}}"#),
                        format!(
                            r#"{{"jsonrpc":"2.0","method":"m","params":{{"{ka}":1,"{kb}":2}}}}"#
                        ),
                    ] {
                        st.run("meta-escape-forms", ctx.as_bytes());
                    }
                }
            }
        }
    }
    // L. frame length limit +-1 (valid JSON and not)
    for extra in [0usize, 1] {
        let lim = 4 * 1024 * 1024 + extra;
        let head = br#"{"jsonrpc":"2.0","method":"m","params":{"s":""#;
        let tail = br#""}}"#;
        let mut f = head.to_vec();
        f.extend(std::iter::repeat_n(b'a', lim - head.len() - tail.len()));
        f.extend_from_slice(tail);
        assert_eq!(f.len(), lim);
        st.run("frame-limit", &f);
        let n = f.len();
        f[n - 1] = b'x';
        st.run("frame-limit", &f);
    }
    // I. random mutation of the capture / spec-example corpus
    let corpus = corpus();
    println!("corpus: {} distinct frames", corpus.len());
    let small: Vec<&Vec<u8>> = corpus.iter().filter(|f| f.len() <= 8192).collect();
    let big: Vec<&Vec<u8>> = corpus.iter().filter(|f| f.len() > 8192).collect();
    for f in &corpus {
        st.run("corpus", f);
    }
    let n_mut = run_size("ADVERSARIAL_MUTATIONS");
    for i in 0..n_mut {
        let src = if i % 500 == 0 && !big.is_empty() {
            big[rng.below(big.len())]
        } else {
            small[rng.below(small.len())]
        };
        let mut m = mutate(&mut rng, src);
        if i % 7 == 0 {
            // crossover: splice a chunk of another frame
            let o = small[rng.below(small.len())];
            if !o.is_empty() && !m.is_empty() {
                let a = rng.below(o.len());
                let b = a + rng.below(o.len() - a + 1);
                let at = rng.below(m.len() + 1);
                m.splice(at..at, o[a..b].iter().copied());
            }
        }
        st.run("corpus-mutation", &m);
    }

    // M. mutation of crafted frames (escape-dense long strings, >16-key _meta, spaced, batch)
    let mut crafted = base_frames();
    crafted.push(spaced.to_vec());
    let mut m17 =
        String::from(r#"{"jsonrpc":"2.0","id":"r","result":{"resultType":"complete","_meta":{"#);
    for i in 0..20 {
        write!(m17, "\"k\\u00{:02x}{i}\":\"v\\\\{i}\\\"\",", 0x61 + i).unwrap();
    }
    m17.push_str(r#""io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#);
    crafted.push(m17.into_bytes());
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{}","params":{{"name":"{}","_meta":{{"{}":1,"b":"{}"}}}}}}"#,
        "a\\\\b\\\"c\\/d\\u00e9\\uD83D\\uDE00e".repeat(9),
        "\u{e9}\u{1F600}x".repeat(20),
        "k\\n".repeat(30),
        "q".repeat(150)
    );
    crafted.push(long.into_bytes());
    for c in &crafted {
        assert!(
            serde_json::from_slice::<Value>(c).is_ok(),
            "crafted frame not JSON: {}",
            lit(c)
        );
        assert!(
            Parser::new().parse(c).is_ok(),
            "crafted frame rejected: {}",
            lit(c)
        );
    }
    let n_crafted = run_size("ADVERSARIAL_CRAFTED");
    for i in 0..n_crafted {
        let src = &crafted[i % crafted.len()];
        let m = mutate(&mut rng, src);
        st.run("crafted-mutation", &m);
    }

    st.print_summary("inputs run", start);
    println!(
        "both-reject offsets: ours<serde {}, equal {}, ours>serde {}",
        st.off_cmp[0], st.off_cmp[1], st.off_cmp[2]
    );
    let mut later = st.off_later.clone();
    later.sort_by_key(|(_, l, _, _)| *l);
    let mut seen_k = HashSet::new();
    for (sev, _, m, f) in later.iter() {
        let key: String = m.split(" at byte").next().unwrap_or("").to_string();
        if seen_k.insert(key) && seen_k.len() <= 25 {
            println!(
                "LATER by {sev}: {m}\n  input: {}",
                lit(&f[..f.len().min(300)])
            );
        }
    }
    st.assert_no_failures();
}

// ---------------------------------------------------------------------------------------
// Structure-aware generator of hostile envelopes (mostly valid JSON).

const VALID_NUMS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "7",
    "0.0",
    "-0.0",
    "1.0",
    "1e2",
    "1E+2",
    "1e-2",
    "-1.5e10",
    "9007199254740991",
    "-9007199254740991",
    "9007199254740992",
    "-9007199254740992",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678",
    "1234567890123456789",
    "-32600",
    "-32700",
    "1e308",
    "1.7976931348623157e308",
    "2e-400",
    "1e-99999999999999999999",
    "0e99999999999999999999",
    "100000000000000000000000",
];
const BAD_NUMS: &[&str] = &[
    "01", "1.", ".5", "-", "+1", "1e", "1E+", "0x1", "1e309", "--1", "1.e3", "NaN",
];
const VALID_STRS: &[&str] = &[
    "",
    "a",
    "ping",
    "tools/call",
    "2.0",
    "\\u0032.0",
    "2\\u002e0",
    "\\u0000",
    "\\uD83D\\uDE00",
    "\\ud83d\\ude00",
    "\\/",
    "\\\"",
    "\\\\",
    "\\b\\f\\n\\r\\t",
    "\u{e9}",
    "\u{1F600}",
    "\u{2028}",
    "\u{FEFF}",
    "\u{7f}",
    "m\\u0065thod",
    "io.modelcontextprotocol/x",
    "\\uFFFF",
    "\\u00e9\u{e9}",
    "complete",
    "task",
];
const BAD_STRS: &[&[u8]] = &[
    b"\\x",
    b"\\U0041",
    b"\\uD800",
    b"\\uDC00",
    b"\\uD800\\u0041",
    b"\x01",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xff",
    b"\\u12",
];
const KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "_meta",
    "name",
    "uri",
    "resultType",
    "code",
    "message",
    "data",
    "Method",
    "ID",
    "Id",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "a",
    "k",
    "",
    "arguments",
    "\u{212a}",
    "\u{131}d",
    "\u{17f}",
];

struct Gen<'r> {
    rng: &'r mut Rng,
    bad: u32, // per-mille chance of an invalid token
}

impl Gen<'_> {
    fn chance(&mut self, per_mille: u32) -> bool {
        (self.rng.next() % 1000) < per_mille as u64
    }
    fn ws(&mut self, out: &mut Vec<u8>) {
        match self.rng.below(12) {
            0 => out.push(b' '),
            1 => out.extend_from_slice(b"\n  "),
            2 => out.push(b'\t'),
            3 => out.extend_from_slice(b"\r\n"),
            4 => {
                let n = self.rng.below(70);
                out.extend(std::iter::repeat_n(b' ', n));
            }
            5 if self.chance(self.bad) => {
                let w: &[u8] = [&b"\x0b"[..], b"\x0c", b"\xc2\xa0", b"\xe2\x80\xa8", b"\x00"]
                    [self.rng.below(5)];
                out.extend_from_slice(w);
            }
            _ => {}
        }
    }
    fn key(&mut self, out: &mut Vec<u8>) {
        let k = KEYS[self.rng.below(KEYS.len())];
        out.push(b'"');
        if self.chance(250) {
            for c in k.chars() {
                if c.is_ascii() && self.rng.below(3) == 0 {
                    write!(unsafe_string(out), "\\u{:04x}", c as u32).ok();
                } else {
                    let mut b = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
            }
        } else {
            out.extend_from_slice(k.as_bytes());
        }
        out.push(b'"');
    }
    fn string(&mut self, out: &mut Vec<u8>) {
        out.push(b'"');
        let n = self.rng.below(4);
        for _ in 0..n {
            if self.chance(self.bad) {
                out.extend_from_slice(BAD_STRS[self.rng.below(BAD_STRS.len())]);
            } else if self.chance(30) {
                let l = self.rng.below(140);
                out.extend(std::iter::repeat_n(b'q', l));
            } else {
                out.extend_from_slice(VALID_STRS[self.rng.below(VALID_STRS.len())].as_bytes());
            }
        }
        out.push(b'"');
    }
    fn value(&mut self, out: &mut Vec<u8>, depth: usize) {
        let r = self.rng.below(if depth > 6 { 6 } else { 10 });
        match r {
            0 | 1 => {
                if self.chance(self.bad) {
                    out.extend_from_slice(BAD_NUMS[self.rng.below(BAD_NUMS.len())].as_bytes())
                } else {
                    out.extend_from_slice(VALID_NUMS[self.rng.below(VALID_NUMS.len())].as_bytes())
                }
            }
            2 | 3 => self.string(out),
            4 => out.extend_from_slice([&b"true"[..], b"false", b"null"][self.rng.below(3)]),
            5 => out.extend_from_slice([&b"{}"[..], b"[]", b"[ ]", b"{ }"][self.rng.below(4)]),
            6 | 7 => self.object(out, depth + 1, None),
            _ => {
                out.push(b'[');
                let n = self.rng.below(4);
                for i in 0..n {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.ws(out);
                    self.value(out, depth + 1);
                    self.ws(out);
                }
                if self.chance(self.bad) {
                    out.push(b',');
                }
                out.push(b']');
            }
        }
    }
    /// An object; `special` = which envelope-ish object to bias toward.
    fn object(&mut self, out: &mut Vec<u8>, depth: usize, special: Option<u8>) {
        out.push(b'{');
        self.ws(out);
        let n = self.rng.below(5);
        let mut first = true;
        let mut emit = |g: &mut Self,
                        out: &mut Vec<u8>,
                        k: &[u8],
                        val: &mut dyn FnMut(&mut Self, &mut Vec<u8>)| {
            if !first {
                out.push(b',');
                g.ws(out);
            }
            first = false;
            out.extend_from_slice(k);
            g.ws(out);
            out.push(b':');
            g.ws(out);
            val(g, out);
            g.ws(out);
        };
        let biased: &[&str] = match special {
            Some(0) => &[
                "\"jsonrpc\"",
                "\"id\"",
                "\"method\"",
                "\"params\"",
                "\"result\"",
                "\"error\"",
            ],
            Some(1) => &[
                "\"name\"",
                "\"uri\"",
                "\"_meta\"",
                "\"m\\u0065ta\"",
                "\"_m\\u0065ta\"",
            ],
            Some(2) => &["\"resultType\"", "\"_meta\"", "\"\\u005fmeta\""],
            Some(3) => &["\"code\"", "\"message\"", "\"data\""],
            _ => &[],
        };
        let mut meta_done = false;
        for &b in biased {
            if b == "\"_meta\"" || b == "\"_m\\u0065ta\"" || b == "\"\\u005fmeta\"" {
                if meta_done && !self.chance(40) {
                    continue;
                }
                meta_done = true;
            }
            if self.chance(if special == Some(0) { 750 } else { 500 }) {
                let times = if self.chance(40) { 2 } else { 1 };
                for _ in 0..times {
                    let kb = b.as_bytes().to_vec();
                    emit(self, out, &kb, &mut |g, o| g.envelope_value(o, b, depth));
                }
            }
        }
        let mut used: Vec<Vec<u8>> = Vec::new();
        for _ in 0..n {
            let mut k = Vec::new();
            self.key(&mut k);
            if used.contains(&k) && !self.chance(40) {
                continue;
            }
            used.push(k.clone());
            if special.is_some() && self.chance(900) {
                // mostly keep the biased object free of repeated names
                let inner: &[&[u8]] = &[
                    b"\"jsonrpc\"",
                    b"\"id\"",
                    b"\"method\"",
                    b"\"params\"",
                    b"\"result\"",
                    b"\"error\"",
                    b"\"_meta\"",
                    b"\"name\"",
                    b"\"uri\"",
                    b"\"resultType\"",
                    b"\"code\"",
                    b"\"message\"",
                    b"\"data\"",
                ];
                if inner.contains(&k.as_slice()) || k.contains(&b'\\') {
                    continue;
                }
            }
            emit(self, out, &k, &mut |g, o| g.value(o, depth + 1));
        }
        if self.chance(self.bad) {
            out.push(b',');
        }
        out.push(b'}');
    }
    fn envelope_value(&mut self, out: &mut Vec<u8>, key: &str, depth: usize) {
        match key {
            "\"jsonrpc\"" => {
                let v: &[u8] = [
                    &b"\"2.0\""[..],
                    b"\"2.0\"",
                    b"\"\\u0032.0\"",
                    b"\"2.00\"",
                    b"2.0",
                    b"\"1.0\"",
                ][self.rng.below(6)];
                out.extend_from_slice(v)
            }
            "\"id\"" | "\"code\"" => {
                if self.rng.below(3) == 0 {
                    self.string(out)
                } else {
                    self.value(out, depth + 1)
                }
            }
            "\"method\"" | "\"message\"" | "\"resultType\"" | "\"name\"" | "\"uri\"" => {
                if self.rng.below(8) == 0 {
                    self.value(out, depth + 1)
                } else {
                    self.string(out)
                }
            }
            "\"params\"" => self.object(out, depth + 1, Some(1)),
            "\"result\"" => self.object(out, depth + 1, Some(2)),
            "\"error\"" => self.object(out, depth + 1, Some(3)),
            _ => {
                if self.rng.below(6) == 0 {
                    self.value(out, depth + 1)
                } else {
                    self.object(out, depth + 1, None)
                }
            }
        }
    }
}

/// Writes formatted text into a byte vector.
fn unsafe_string(v: &mut Vec<u8>) -> impl std::fmt::Write + '_ {
    struct W<'a>(&'a mut Vec<u8>);
    impl std::fmt::Write for W<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    W(v)
}

#[test]
fn structured_hostile_envelopes_agree_with_serde_json() {
    let start = std::time::Instant::now();
    let mut st = Stats::default();
    let seed = env_u64("ADVERSARIAL_SEED", 0xD1B5_4A32_D192_ED03);
    let mut rng = Rng(seed);
    let n = run_size("ADVERSARIAL_STRUCTURED");
    for i in 0..n {
        let bad = if i % 4 == 0 { 20 } else { 0 };
        let mut f = Vec::new();
        let mut g = Gen { rng: &mut rng, bad };
        if i % 50 == 0 {
            f.push(b'[');
            g.object(&mut f, 1, Some(0));
            f.extend_from_slice(b",");
            g.object(&mut f, 1, Some(0));
            f.push(b']');
        } else {
            if g.chance(100) {
                g.ws(&mut f);
            }
            g.object(&mut f, 0, Some(0));
            if g.chance(100) {
                g.ws(&mut f);
            }
        }
        st.run("structured", &f);
        if i % 3 == 0 {
            let m = mutate(&mut rng, &f);
            st.run("structured-mutated", &m);
        }
    }
    // from_parts with spans of another frame: accessors must never panic
    let mut prev: Option<(Vec<u8>, mcpwire::Spans)> = None;
    let mut rng2 = Rng(99);
    for i in 0..(n / 5) {
        let mut f = Vec::new();
        Gen {
            rng: &mut rng2,
            bad: 0,
        }
        .object(&mut f, 0, Some(0));
        if let Ok(env) = Parser::new().parse(&f) {
            let spans = env.spans();
            if let Some((pf, ps)) = &prev {
                for other in [
                    &pf[..],
                    &f[..f.len() / 2],
                    &f[1..],
                    &pf[..pf.len().saturating_sub(3)],
                ] {
                    let r =
                        std::panic::catch_unwind(|| touch_all(&Envelope::from_parts(other, spans)));
                    if r.is_err() {
                        st.fail(format!("[from-parts] PANIC (spans of {})", lit(&f)), other);
                    }
                    let r =
                        std::panic::catch_unwind(|| touch_all(&Envelope::from_parts(other, *ps)));
                    if r.is_err() {
                        st.fail(format!("[from-parts] PANIC (spans of {})", lit(pf)), other);
                    }
                }
            }
            prev = Some((f, spans));
        }
        st.total += 1;
        *st.by_family.entry("from-parts").or_default() += 1;
        let _ = i;
    }
    st.print_summary("structured inputs run", start);
    st.assert_no_failures();
}

/// The harness itself notices a difference (guards against a vacuous oracle).
#[test]
fn harness_detects_differences() {
    let frame =
        br#"{"jsonrpc":"2.0","id":"a","method":"m\u0065","params":{"_meta":{"k\u00e9":[1,2]}}}"#;
    let env = mcpwire::parse(frame).unwrap();
    let v: Value = serde_json::from_slice(frame).unwrap();
    compare_fields(&env, &v).unwrap();
    let mut bad = v.clone();
    bad["method"] = Value::from("mx");
    assert!(compare_fields(&env, &bad).is_err());
    let mut bad = v.clone();
    bad["params"]["_meta"] = serde_json::json!({"ké": [1, 3]});
    assert!(compare_fields(&env, &bad).is_err());
    let mut bad = v.clone();
    bad["params"]["_meta"] = serde_json::json!({"k": [1, 2]});
    assert!(compare_fields(&env, &bad).is_err());
    let mut bad = v.clone();
    bad["id"] = Value::from(1);
    assert!(compare_fields(&env, &bad).is_err());
    let mut bad = v;
    bad.as_object_mut().unwrap().remove("params");
    assert!(compare_fields(&env, &bad).is_err());
    assert!(check(b"{\"a\":1,\"a\":2}").is_ok());
    assert_eq!(
        policy_dup(b"{\"a\":1,\"a\":2}"),
        Some((ErrorKind::DuplicateKey, 7))
    );
    assert_eq!(
        policy_dup(br#"{"params":{"arguments":{"x":1,"x":2}}}"#),
        None
    );
    assert_eq!(
        policy_dup(br#"{"params":{"name":1,"n\u0061me":2}}"#),
        Some((ErrorKind::DuplicateParamsKey, 20))
    );
    assert_eq!(
        policy_dup(br#"{"result":{"_meta":{"k":1,"\u006b":2}}}"#),
        Some((ErrorKind::DuplicateMetaKey, 26))
    );
    assert_eq!(policy_dup(br#"{"error":{"x":1,"x":2}}"#), None);
    assert!(check(b"[1,2]").is_ok());
}

fn touch_all(env: &Envelope<'_>) -> usize {
    let mut n = 0usize;
    n += env.id().is_some() as usize;
    n += env.id_raw().map_or(0, str::len);
    n += env.jsonrpc().map_or(0, |s| s.decode().len());
    n += env
        .method()
        .map_or(0, |s| s.decode().len() + s.eq_str("x") as usize);
    n += env.params().map_or(0, <[u8]>::len)
        + env.result().map_or(0, <[u8]>::len)
        + env.error().map_or(0, <[u8]>::len);
    n += env.error_code().is_some() as usize;
    n += env.error_message().map_or(0, |s| s.decode().len());
    n += env.result_type().map_or(0, |s| s.decode().len());
    n += env.params_name().map_or(0, |s| s.decode().len());
    n += env.params_uri().map_or(0, |s| s.decode().len());
    for m in [env.params_meta(), env.result_meta(), env.meta()]
        .into_iter()
        .flatten()
    {
        for mem in m {
            n += mem.key.len() + mem.value.len();
        }
    }
    if let Some(e) = env.batch_elements() {
        n += e.count();
    }
    if let Some(s) = env.params_span() {
        n += mcpwire::members(env.frame(), s).count();
        let mut scratch = Vec::new();
        n += env.params_value(&mut scratch).is_ok() as usize;
    }
    n
}

/// Large hostile frames: verdict vs serde and parse time (a hang or super-linear blow-up
/// would show as seconds here).
#[test]
fn large_hostile_frames() {
    let mut st = Stats::default();
    let mut frames: Vec<(&str, Vec<u8>)> = Vec::new();
    let n = 200_000;
    // _meta with many escaped keys, last one repeating the first in another escape form
    let mut m = String::from(r#"{"jsonrpc":"2.0","method":"m","params":{"_meta":{"#);
    for i in 0..n {
        write!(m, "\"\\u006b{i}\":{i},").unwrap();
    }
    m.push_str("\"k0\":0}}}");
    frames.push(("meta-200k-escaped-keys-dup", m.clone().into_bytes()));
    frames.push((
        "meta-200k-escaped-keys",
        m.replace("\"k0\":0", "\"z\":0").into_bytes(),
    ));
    // depth-1 others, escaped
    let mut o = String::from(r#"{"jsonrpc":"2.0","method":"m","#);
    for i in 0..n {
        write!(o, "\"\\u0078{i}\":{i},").unwrap();
    }
    o.push_str("\"x0\":1}");
    frames.push(("others-200k-dup", o.into_bytes()));
    // params with many keys and a nested repeated key (params_value)
    let mut p = String::from(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"#);
    for i in 0..150_000 {
        write!(p, "\"q{i}\":[{{\"r\":1,\"s\":2}}],").unwrap();
    }
    p.push_str("\"q0\":1}}}");
    frames.push(("params-200k-nested-dup", p.into_bytes()));
    // one long string of escapes / of 4-byte chars
    let mut s = String::from(r#"{"jsonrpc":"2.0","id":1,"method":""#);
    for _ in 0..300_000 {
        s.push_str("\\u0041\\uD83D\\uDE00\\n");
    }
    s.push_str("\"}");
    frames.push(("escape-string-7MB", s.clone().into_bytes()));
    frames.push(("escape-string-4MB-open", s.as_bytes()[..4_000_000].to_vec()));
    let mut s2 = s.as_bytes()[..4_000_000].to_vec();
    while s2.last() != Some(&b'n') {
        s2.pop();
    }
    s2.extend_from_slice(b"\"}");
    frames.push(("escape-string-4MB", s2));
    let mut s4 = String::from(r#"{"jsonrpc":"2.0","id":1,"method":""#);
    for _ in 0..900_000 {
        s4.push('\u{1F600}');
    }
    s4.push_str("\"}");
    frames.push(("emoji-string", s4.into_bytes()));
    // many number tokens near the length limit
    let mut nn = String::from(r#"{"jsonrpc":"2.0","id":1,"result":{"v":["#);
    for _ in 0..3800 {
        nn.push_str(&format!("0.{},", "1".repeat(1020)));
    }
    nn.push_str("1]}}");
    frames.push(("long-numbers", nn.into_bytes()));
    // 127 / 128 nesting with big content
    let deep = |d: usize| format!("{}\"x\"{}", "[".repeat(d), "]".repeat(d));
    frames.push(("deep-127", deep(127).into_bytes()));
    frames.push(("deep-128", deep(128).into_bytes()));
    frames.push(("deep-1M", "[".repeat(1_000_000).into_bytes()));
    frames.push(("deep-1M-obj", "{\"a\":".repeat(500_000).into_bytes()));
    // Correctness only: no time is asserted (speed belongs to the benches; a hang would
    // show as the test never finishing). The time is printed for a person reading the log.
    for (name, f) in &frames {
        let t = std::time::Instant::now();
        let r = Parser::new().parse(f).map(|e| e.shape().name());
        println!(
            "{name}: {} bytes, {r:?} in {:.3}s",
            f.len(),
            t.elapsed().as_secs_f64()
        );
        st.run("large", f);
    }
    println!(
        "large inputs run: {}; disagreements/panics: {}",
        st.total, st.fail_count
    );
    st.assert_no_failures();
}

/// The number-out-of-range policy on the values around f64::MAX, against serde_json and an
/// exact reading.
#[test]
fn number_policy_near_f64_max() {
    // The one family where serde_json (default features) accepts and mcpwire rejects: a
    // number whose exactly rounded value overflows f64 but which serde_json's two-step
    // reading rounds down to f64::MAX. The policy (src/scan/cursor.rs) rejects a number when
    // either reading overflows, as `number-out-of-range` (-32700).
    for (t, serde_accepts) in [
        // serde_json: f64::MAX; exactly: infinity. Rejected by the policy.
        ("179769313486231590e291", true),
        // Both readings overflow.
        ("17976931348623159e292", false),
        ("1797693134862315900e290", false),
        ("1.7976931348623159e308", false),
        // Exactly f64::MAX, but serde_json's two-step reading overflows: rejected with it.
        ("1.797693134862315807e308", false),
        ("179769313486231580793728971405301e276", false),
        // f64::MAX itself: both accept.
        ("1.7976931348623157e308", true),
    ] {
        assert_eq!(
            serde_json::from_str::<Value>(t).is_ok(),
            serde_accepts,
            "serde_json on {t}"
        );
        let exact_overflows = t.parse::<f64>().unwrap().is_infinite();
        match mcpwire::parse(t.as_bytes()) {
            Err(e) => {
                // Rejected: because a reading overflows, never otherwise.
                assert!(exact_overflows || !serde_accepts, "{t}: {e}");
                assert_eq!(e.kind(), ErrorKind::NumberOutOfRange, "{t}");
            }
            Ok(_) => assert!(serde_accepts && !exact_overflows, "{t} accepted"),
        }
        if !serde_accepts {
            assert!(mcpwire::parse(t.as_bytes()).is_err(), "{t}");
        }
    }
}
