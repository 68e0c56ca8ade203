//! Envelope oracle: serde_json (strict) and simd-json readings of a frame, and the agreement
//! policy between them and [`crate::Parser`].
//!
//! Stable API used by `tests/differential.rs`, `tests/block_edges.rs` and the fuzz targets:
//!
//! * [`check_frame`] / [`check_frame_with`]: run every check below and return the first
//!   [`Disagreement`].
//! * [`check_backends`]: every available scan [`Backend`] gives the identical result.
//! * [`serde_verdict`]: serde_json's `from_slice::<Value>` result.
//! * [`has_duplicate_keys`]: whether any object anywhere in the frame repeats a key.
//!
//! # Agreement policy (reliability notes §0, §1.2)
//!
//! * **We accept ⇒ serde_json accepts**, and every field we extract equals serde_json's
//!   reading: `jsonrpc`, `id` (raw text re-read by serde_json equals serde's value; the
//!   integer value), `method` (decoded), presence of `params` / `result` / `error`,
//!   `error.code`, `error.message`, `error.data`, `result.resultType`, `params.name`,
//!   `params.uri`, `params._meta` / `result._meta` (keys decoded, each raw value re-read by
//!   serde_json equals serde's value), batch elements; and our [`Shape`] equals an
//!   independent classification of serde's `Value`.
//! * **serde_json accepts, we reject** ⇒ only policy kinds: `duplicate-key` /
//!   `duplicate-meta-key` (and the frame must really repeat a key), `depth-limit`,
//!   `number-too-long`, `frame-too-large`, and `number-out-of-range` for a number whose
//!   exactly rounded value overflows f64 (serde_json's default two-step reading makes some
//!   of those f64::MAX; the core rejects a number when either reading overflows). (A
//!   non-JSON-RPC shape is not a rejection: it is `Ok` with [`Shape::Invalid`].)
//! * **simd-json** (on a copy; it unescapes in place): when we accept and it rejects, the
//!   only allowed cause is its documented difference — integers beyond the `i64`/`u64`
//!   range, which it rejects while serde_json reads them as floats. Its 1024 depth limit
//!   only makes it more lenient than us, and it is first-wins on duplicate keys, which we
//!   reject. When both accept, `jsonrpc`, `method` and the `id` must agree.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use simd_json::prelude::*;

use crate::envelope::{Envelope, Id, Limits, Parser, Shape, Span, members};
use crate::error::{Error, ErrorKind};
use crate::scan::Backend;

/// A disagreement between our parser and an oracle (or between two of our scan backends),
/// with a human-readable description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// What differed, e.g. `method: ours "a" vs serde_json "b"`.
    pub message: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Disagreement {}

fn dis(message: impl Into<String>) -> Disagreement {
    Disagreement {
        message: message.into(),
    }
}

/// serde_json's verdict on `frame` (`from_slice::<Value>`, default 128 recursion limit).
pub fn serde_verdict(frame: &[u8]) -> Result<Value, String> {
    serde_json::from_slice::<Value>(frame).map_err(|e| e.to_string())
}

/// True when some object anywhere in `frame` repeats a key (after unescaping), as read by
/// serde_json; `None` when serde_json rejects the frame.
pub fn has_duplicate_keys(frame: &[u8]) -> Option<bool> {
    let mut de = serde_json::Deserializer::from_slice(frame);
    let found = DupCheck.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(found)
}

/// Deserialize seed that walks any value and reports whether an object repeats a key.
#[derive(Clone, Copy)]
struct DupCheck;

impl<'de> DeserializeSeed<'de> for DupCheck {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DupCheck {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(d) = seq.next_element_seed(DupCheck)? {
            found |= d;
        }
        Ok(found)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut keys = HashSet::new();
        let mut found = false;
        while let Some(k) = map.next_key::<String>()? {
            found |= !keys.insert(k);
            found |= map.next_value_seed(DupCheck)?;
        }
        Ok(found)
    }
}

/// Every available scan backend gives the identical result (spans or error) on `frame`.
pub fn check_backends(frame: &[u8], limits: Limits) -> Result<(), Disagreement> {
    let base = Parser::with_limits(limits).with_backend(Backend::Scalar);
    let want = base.parse(frame).map(|e| e.spans());
    for b in Backend::available() {
        let got = Parser::with_limits(limits)
            .with_backend(b)
            .parse(frame)
            .map(|e| e.spans());
        if got != want {
            return Err(dis(format!(
                "backend {} gives {got:?}, scalar gives {want:?}",
                b.name()
            )));
        }
    }
    Ok(())
}

/// [`check_frame_with`] with [`Limits::DEFAULT`].
pub fn check_frame(frame: &[u8]) -> Result<(), Disagreement> {
    check_frame_with(frame, Limits::DEFAULT)
}

/// Runs our parser (every backend), serde_json and simd-json on `frame` and checks the
/// agreement policy described in the module docs.
pub fn check_frame_with(frame: &[u8], limits: Limits) -> Result<(), Disagreement> {
    check_backends(frame, limits)?;
    let ours = Parser::with_limits(limits).parse(frame);
    let serde = serde_verdict(frame);
    match (&ours, &serde) {
        (Ok(env), Ok(v)) => check_fields(env, v)?,
        (Ok(env), Err(e)) => {
            return Err(dis(format!(
                "we accept (shape {}) but serde_json rejects: {e}",
                env.shape().name()
            )));
        }
        (Err(e), Ok(_)) => check_policy_reject(frame, *e)?,
        (Err(_), Err(_)) => {}
    }
    if let Ok(env) = &ours {
        check_simd(frame, env)?;
    }
    check_response_id(frame, limits, &ours, &serde)?;
    Ok(())
}

/// [`Parser::recover_response_id`]: a span it returns lies in the frame and is a valid id on
/// its own; for a frame we accept it is the envelope's id exactly when the frame has no
/// `method` and its id is a string or integer, else none; for a frame serde_json accepts,
/// serde's object has no `method` key and its `id` equals the span re-read.
fn check_response_id(
    frame: &[u8],
    limits: Limits,
    ours: &Result<Envelope<'_>, Error>,
    serde: &Result<Value, String>,
) -> Result<(), Disagreement> {
    let got = Parser::with_limits(limits).recover_response_id(frame);
    let Some(span) = got else {
        if let Ok(env) = ours
            && env.method_span().is_none()
            && matches!(env.id(), Some(Id::Str(_) | Id::Int { .. }))
        {
            return Err(dis(
                "recover_response_id: none for an accepted response's id",
            ));
        }
        return Ok(());
    };
    let Some(raw) = frame.get(span.start()..span.end()) else {
        return Err(dis(format!(
            "recover_response_id: span {span:?} outside the frame"
        )));
    };
    let Ok(id) = serde_json::from_slice::<Value>(raw) else {
        return Err(dis("recover_response_id: the span is not one JSON value"));
    };
    if !(id.is_string() || id.is_i64() || id.is_u64()) {
        return Err(dis(format!(
            "recover_response_id: {id} is no string or integer id"
        )));
    }
    if let Ok(env) = ours
        && (env.method_span().is_some() || env.id_span() != Some(span))
    {
        return Err(dis("recover_response_id: not the accepted response's id"));
    }
    if let Ok(Value::Object(m)) = serde
        && (m.contains_key("method") || m.get("id") != Some(&id))
    {
        return Err(dis(
            "recover_response_id: serde_json reads another id, or a method",
        ));
    }
    Ok(())
}

/// serde_json accepted and we rejected: only the policy kinds may do that.
fn check_policy_reject(frame: &[u8], e: Error) -> Result<(), Disagreement> {
    match e.kind() {
        ErrorKind::DuplicateKey | ErrorKind::DuplicateMetaKey | ErrorKind::DuplicateParamsKey => {
            if has_duplicate_keys(frame) == Some(true) {
                Ok(())
            } else {
                Err(dis(format!("we reject {e} but no object repeats a key")))
            }
        }
        ErrorKind::DepthLimit | ErrorKind::NumberTooLong | ErrorKind::FrameTooLarge => Ok(()),
        ErrorKind::NumberOutOfRange => {
            // serde_json (default features) rounds twice and reads some numbers just above
            // f64::MAX + half an ulp as f64::MAX; their exactly rounded value overflows, and
            // exact readers (serde_json with `float_roundtrip`, Go, …) reject them.
            let token: Vec<u8> = frame
                .get(e.offset()..)
                .unwrap_or_default()
                .iter()
                .copied()
                .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .collect();
            let exact = std::str::from_utf8(&token)
                .ok()
                .and_then(|t| t.parse::<f64>().ok());
            if exact.is_some_and(f64::is_infinite) {
                Ok(())
            } else {
                Err(dis(format!(
                    "we reject ({e}) a frame serde_json accepts, and the number {:?} is finite \
                     when read exactly",
                    String::from_utf8_lossy(&token)
                )))
            }
        }
        _ => Err(dis(format!("we reject ({e}) a frame serde_json accepts"))),
    }
}

/// Re-reads the raw text of `span` with serde_json.
fn reread(frame: &[u8], span: Span) -> Result<Value, Disagreement> {
    let raw = frame
        .get(span.range())
        .ok_or_else(|| dis(format!("span {span:?} out of bounds")))?;
    serde_json::from_slice(raw).map_err(|e| {
        dis(format!(
            "span {span:?} ({:?}) is not a JSON value: {e}",
            String::from_utf8_lossy(raw)
        ))
    })
}

/// Our span at `name` against serde's value at the same place.
fn same_member(
    frame: &[u8],
    name: &str,
    ours: Option<Span>,
    theirs: Option<&Value>,
) -> Result<(), Disagreement> {
    match (ours, theirs) {
        (None, None) => Ok(()),
        (Some(s), Some(v)) => {
            let r = reread(frame, s)?;
            if &r == v {
                Ok(())
            } else {
                Err(dis(format!("{name}: ours {r} vs serde_json {v}")))
            }
        }
        (o, t) => Err(dis(format!("{name}: ours {o:?} vs serde_json {t:?}"))),
    }
}

fn get<'v>(v: Option<&'v Value>, key: &str) -> Option<&'v Value> {
    v?.as_object()?.get(key)
}

/// Both accepted: compare every extracted field and the shape.
fn check_fields(env: &Envelope<'_>, v: &Value) -> Result<(), Disagreement> {
    let frame = env.frame();
    let root = v.as_object();
    let top = |k: &str| root.and_then(|o| o.get(k));
    same_member(frame, "jsonrpc", env.jsonrpc_span(), top("jsonrpc"))?;
    same_member(frame, "id", env.id_span(), top("id"))?;
    same_member(frame, "method", env.method_span(), top("method"))?;
    same_member(frame, "params", env.params_span(), top("params"))?;
    same_member(frame, "result", env.result_span(), top("result"))?;
    same_member(frame, "error", env.error_span(), top("error"))?;
    let (p, r, e) = (top("params"), top("result"), top("error"));
    same_member(frame, "params.name", env.params_name_span(), get(p, "name"))?;
    same_member(frame, "params.uri", env.params_uri_span(), get(p, "uri"))?;
    same_member(
        frame,
        "params._meta",
        env.params_meta_span(),
        get(p, "_meta"),
    )?;
    same_member(
        frame,
        "result.resultType",
        env.result_type_span(),
        get(r, "resultType"),
    )?;
    same_member(
        frame,
        "result._meta",
        env.result_meta_span(),
        get(r, "_meta"),
    )?;
    same_member(frame, "error.code", env.error_code_span(), get(e, "code"))?;
    same_member(
        frame,
        "error.message",
        env.error_message_span(),
        get(e, "message"),
    )?;
    same_member(frame, "error.data", env.error_data_span(), get(e, "data"))?;

    // An accepted frame is valid UTF-8 as a whole (the envelope slices its string members
    // from it as `&str`), and those members read the same as from the bytes alone
    // (`from_parts`: the text and escape flag found again by `token_text`).
    if std::str::from_utf8(frame).is_err() {
        return Err(dis("accepted a frame that is not valid UTF-8"));
    }
    let bare = Envelope::from_parts(frame, env.spans());
    for (name, ours, again) in [
        ("jsonrpc()", env.jsonrpc(), bare.jsonrpc()),
        ("method()", env.method(), bare.method()),
        ("error_message()", env.error_message(), bare.error_message()),
        ("result_type()", env.result_type(), bare.result_type()),
        ("params_name()", env.params_name(), bare.params_name()),
        ("params_uri()", env.params_uri(), bare.params_uri()),
    ] {
        if ours != again {
            return Err(dis(format!("{name}: {ours:?}, from the bytes {again:?}")));
        }
    }
    if env.id() != bare.id() || env.id_raw() != bare.id_raw() {
        return Err(dis(format!(
            "id(): {:?}, from the bytes {:?}",
            env.id(),
            bare.id()
        )));
    }

    // Typed accessors.
    let text = |s: Option<crate::JsonStr<'_>>| s.map(|s| s.decode().into_owned());
    let want_str = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let checks = [
        ("method()", text(env.method()), want_str(top("method"))),
        (
            "error_message()",
            text(env.error_message()),
            want_str(get(e, "message")),
        ),
        (
            "result_type()",
            text(env.result_type()),
            want_str(get(r, "resultType")),
        ),
        (
            "params_name()",
            text(env.params_name()),
            want_str(get(p, "name")),
        ),
        (
            "params_uri()",
            text(env.params_uri()),
            want_str(get(p, "uri")),
        ),
    ];
    for (name, ours, theirs) in checks {
        if ours != theirs {
            return Err(dis(format!(
                "{name}: ours {ours:?} vs serde_json {theirs:?}"
            )));
        }
    }
    for (name, s) in [
        ("method()", env.method()),
        ("error_message()", env.error_message()),
    ] {
        if let Some(s) = s {
            let d = s.decode();
            let shorter = d.char_indices().last().map(|(i, _)| &d[..i]);
            if !s.eq_str(&d) || shorter.is_some_and(|t| s.eq_str(t)) {
                return Err(dis(format!("{name}: eq_str disagrees with decode {d:?}")));
            }
        }
    }
    let code = get(e, "code").and_then(Value::as_i64);
    let code_plain = env.error_code_span().is_some_and(|s| {
        let raw = s.slice(frame);
        !raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
    });
    if env.error_code() != code.filter(|_| code_plain) {
        return Err(dis(format!(
            "error_code(): ours {:?} vs serde_json {code:?}",
            env.error_code()
        )));
    }
    match (env.id(), top("id")) {
        (Some(Id::Int { value, raw }), Some(t)) => {
            let tv = t.as_f64().unwrap_or(f64::NAN);
            if value as f64 != tv || reread(frame, env.id_span().unwrap_or_default())? != *t {
                return Err(dis(format!("id: ours {value} ({raw}) vs serde_json {t}")));
            }
        }
        (Some(Id::Str(s)), Some(t)) => {
            if Some(s.decode().as_ref()) != t.as_str() {
                return Err(dis(format!("id: ours {:?} vs serde_json {t}", s.decode())));
            }
        }
        (Some(Id::Null), Some(Value::Null)) | (None, _) => {}
        (o, t) => return Err(dis(format!("id(): ours {o:?} vs serde_json {t:?}"))),
    }
    for (name, span, theirs) in [
        ("params._meta", env.params_meta_span(), get(p, "_meta")),
        ("result._meta", env.result_meta_span(), get(r, "_meta")),
    ] {
        let (Some(span), Some(Value::Object(obj))) = (span, theirs) else {
            continue;
        };
        let mut n = 0;
        for m in members(frame, span) {
            n += 1;
            let Some(tv) = obj.get(m.key.as_ref()) else {
                return Err(dis(format!(
                    "{name}: key {:?} not in serde_json's object",
                    m.key
                )));
            };
            let ov = reread(frame, m.value)?;
            if &ov != tv {
                return Err(dis(format!(
                    "{name}.{}: ours {ov} vs serde_json {tv}",
                    m.key
                )));
            }
        }
        if n != obj.len() {
            return Err(dis(format!(
                "{name}: ours {n} members vs serde_json {}",
                obj.len()
            )));
        }
    }
    if let Some(k) = env.case_variant_key() {
        let key = crate::JsonStr::from_raw(std::str::from_utf8(k.slice(frame)).unwrap_or(""));
        let d = key.decode();
        if ["jsonrpc", "id", "method", "params", "result", "error"].contains(&d.as_ref()) {
            return Err(dis(format!(
                "case_variant_key {d:?} is an exact envelope key"
            )));
        }
    }
    if let Some(els) = env.batch_elements() {
        let arr = v
            .as_array()
            .ok_or_else(|| dis("batch but serde_json reads no array"))?;
        let ours: Vec<Span> = els.collect();
        if ours.len() != arr.len() {
            return Err(dis(format!(
                "batch: {} elements vs serde_json {}",
                ours.len(),
                arr.len()
            )));
        }
        for (s, t) in ours.iter().zip(arr) {
            if reread(frame, *s)? != *t {
                return Err(dis(format!("batch element {s:?} differs")));
            }
        }
    }
    let want = expected_shape(frame, v);
    if env.shape() != want {
        return Err(dis(format!(
            "shape: ours {} ({:?}) vs oracle {}",
            env.shape().name(),
            env.invalid_reason(),
            want.name()
        )));
    }
    if (env.shape() == Shape::Invalid || env.shape() == Shape::Batch)
        != env.invalid_reason().is_some()
    {
        return Err(dis("invalid_reason() set iff shape is invalid or batch"));
    }
    Ok(())
}

/// An independent classification from serde's `Value` (JSON-RPC 2.0 §4–5 and the lead's
/// id rules), used to check [`Envelope::shape`].
pub fn expected_shape(frame: &[u8], v: &Value) -> Shape {
    let obj = match v {
        Value::Array(_) => return Shape::Batch,
        Value::Object(o) => o,
        _ => return Shape::Invalid,
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Shape::Invalid;
    }
    for part in ["params", "result"] {
        if let Some(m) = obj
            .get(part)
            .and_then(|p| p.as_object())
            .and_then(|p| p.get("_meta"))
            && !m.is_object()
        {
            return Shape::Invalid;
        }
    }
    // The id's raw text decides int vs float: take it from a top-level RawValue reading.
    let raw_id: Option<String> = serde_json::from_slice::<
        std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>,
    >(frame)
    .ok()
    .and_then(|m| m.get("id").map(|r| r.get().to_owned()));
    let id_ok = match obj.get("id") {
        Some(Value::String(_)) => Some(true),
        Some(Value::Number(n)) => {
            let plain = raw_id
                .as_deref()
                .is_some_and(|r| !r.contains(['.', 'e', 'E']));
            let max = (1i64 << 53) - 1;
            // `-0` is the float -0.0 to serde_json (`as_i64()` is None): not an id.
            Some(plain && n.as_i64().is_some_and(|i| (-max..=max).contains(&i)))
        }
        Some(Value::Null) => None,
        Some(_) => Some(false),
        None => None,
    };
    let has = |k: &str| obj.contains_key(k);
    if let Some(m) = obj.get("method") {
        if !m.is_string() || has("result") || has("error") {
            return Shape::Invalid;
        }
        if obj.get("params").is_some_and(|p| !p.is_object()) {
            return Shape::Invalid;
        }
        return match (has("id"), id_ok) {
            (false, _) => Shape::Notification,
            (true, Some(true)) => Shape::Request,
            _ => Shape::Invalid,
        };
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => {
            if id_ok == Some(true) && r.is_object() {
                Shape::Result
            } else {
                Shape::Invalid
            }
        }
        (None, Some(e)) => {
            let code_raw_ok = obj
                .get("error")
                .and_then(|e| e.get("code"))
                .is_some_and(|c| c.is_i64() || c.is_u64() && c.as_i64().is_some());
            let code_plain = serde_json::from_slice::<
                std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>,
            >(frame)
            .ok()
            .and_then(|m| {
                let err = m.get("error")?;
                let inner: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
                    serde_json::from_str(err.get()).ok()?;
                Some(!inner.get("code")?.get().contains(['.', 'e', 'E']))
            })
            .unwrap_or(false);
            let ok = e.is_object()
                && code_raw_ok
                && code_plain
                && e.get("message").is_some_and(Value::is_string)
                && id_ok != Some(false);
            if ok { Shape::Error } else { Shape::Invalid }
        }
        _ => Shape::Invalid,
    }
}

/// simd-json's reading (on a copy) against ours; see the module docs for its known
/// differences.
fn check_simd(frame: &[u8], env: &Envelope<'_>) -> Result<(), Disagreement> {
    let mut copy = frame.to_vec();
    match simd_json::to_borrowed_value(&mut copy) {
        Err(e) => {
            if has_huge_integer(frame) {
                Ok(())
            } else {
                Err(dis(format!("we accept but simd-json rejects: {e}")))
            }
        }
        Ok(sv) => {
            let s_method = sv.get("method").and_then(|m| m.as_str()).map(str::to_owned);
            let o_method = env.method().map(|m| m.decode().into_owned());
            if s_method != o_method {
                return Err(dis(format!(
                    "method: ours {o_method:?} vs simd-json {s_method:?}"
                )));
            }
            let s_rpc = sv
                .get("jsonrpc")
                .and_then(|m| m.as_str())
                .map(str::to_owned);
            let o_rpc = env.jsonrpc().map(|s| s.decode().into_owned());
            if s_rpc != o_rpc {
                return Err(dis(format!(
                    "jsonrpc: ours {o_rpc:?} vs simd-json {s_rpc:?}"
                )));
            }
            match env.id() {
                Some(Id::Int { value, .. })
                    if sv.get("id").and_then(|i| i.as_i64()) != Some(value) =>
                {
                    return Err(dis(format!(
                        "id: ours {value} vs simd-json {:?}",
                        sv.get("id")
                    )));
                }
                Some(Id::Str(s))
                    if sv.get("id").and_then(|i| i.as_str()) != Some(s.decode().as_ref()) =>
                {
                    return Err(dis(format!(
                        "id: ours {s:?} vs simd-json {:?}",
                        sv.get("id")
                    )));
                }
                _ => {}
            }
            Ok(())
        }
    }
}

/// True when `frame` holds an integer token (no fraction, no exponent) outside both the
/// `i64` and the `u64` range: simd-json rejects those, serde_json reads them as floats.
pub fn has_huge_integer(frame: &[u8]) -> bool {
    let mut i = 0;
    while i < frame.len() {
        match frame[i] {
            b'"' => {
                i += 1;
                while i < frame.len() && frame[i] != b'"' {
                    i += if frame[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let s = i;
                while i < frame.len()
                    && matches!(frame[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let t = std::str::from_utf8(&frame[s..i]).unwrap_or("");
                if !t.contains(['.', 'e', 'E'])
                    && t.parse::<i64>().is_err()
                    && t.parse::<u64>().is_err()
                {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}
