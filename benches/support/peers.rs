//! The peer implementations: the same extraction done with serde_json, simd-json and
//! sonic-rs the way a knowledgeable engineer would write it (reused buffers, no per-frame
//! allocation beyond what the crate's API forces). Row ids follow notes/peers-perf.md.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use simd_json::prelude::*;
use sonic_rs::{JsonContainerTrait, JsonValueTrait, PointerTree};

use super::{Extractor, Sink};

fn id_from_raw<S: Sink>(raw: &str, sink: &mut S) -> Result<(), String> {
    if raw.starts_with('"') {
        let s: Cow<'_, str> = serde_json::from_str(raw).map_err(|e| e.to_string())?;
        sink.id_str(&s);
    } else if let Ok(v) = raw.parse::<i64>() {
        sink.id_int(v);
    } else {
        sink.id_other(raw);
    }
    Ok(())
}

// ------------------------------------------------------------------ a: serde_json::Value

/// Row a: `serde_json::from_slice::<Value>` (full validation, builds a DOM).
#[derive(Default)]
pub struct SerdeValue;

fn serde_value_meta<S: Sink>(v: &serde_json::Value, sink: &mut S) {
    if let Some(meta) = v.get("_meta").and_then(|m| m.as_object()) {
        sink.meta_begin();
        for k in meta.keys() {
            sink.meta_key(k);
        }
    }
}

impl Extractor for SerdeValue {
    fn name(&self) -> &'static str {
        "serde_value"
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let v: serde_json::Value = serde_json::from_slice(frame).map_err(|e| e.to_string())?;
        let o = v.as_object().ok_or("not an object")?;
        if let Some(s) = o.get("jsonrpc").and_then(|v| v.as_str()) {
            sink.jsonrpc(s);
        }
        match o.get("id") {
            Some(serde_json::Value::String(s)) => sink.id_str(s),
            Some(n @ serde_json::Value::Number(_)) => match n.as_i64() {
                Some(i) => sink.id_int(i),
                None => sink.id_other("number"),
            },
            Some(_) => sink.id_other("other"),
            None => {}
        }
        if let Some(s) = o.get("method").and_then(|v| v.as_str()) {
            sink.method(s);
        }
        let (p, r, e) = (o.get("params"), o.get("result"), o.get("error"));
        sink.members(p.is_some(), r.is_some(), e.is_some());
        if let Some(r) = r
            && let Some(t) = r.get("resultType").and_then(|t| t.as_str())
        {
            sink.result_type(t);
        }
        if let Some(p) = p {
            serde_value_meta(p, sink);
        } else if let Some(r) = r {
            serde_value_meta(r, sink);
        }
        Ok(())
    }
}

// ------------------------------------------- b: serde_json envelope with &RawValue, 2 passes

#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MetaPeek<'a> {
    #[serde(borrow, rename = "_meta")]
    meta: Option<&'a RawValue>,
    #[serde(borrow, rename = "resultType")]
    result_type: Option<Cow<'a, str>>,
}

/// Row b: borrowed envelope (`Cow<str>` + `&RawValue` members), then a second
/// `from_str` over `params`/`result` for `_meta` and `resultType` (full−U validation: strings
/// inside ignored values are not UTF-8-checked).
#[derive(Default)]
pub struct SerdeRawEnvelope;

impl Extractor for SerdeRawEnvelope {
    fn name(&self) -> &'static str {
        "serde_raw_2pass"
    }
    fn validates(&self) -> &'static str {
        "full-U"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let env: RawEnvelope<'_> = serde_json::from_slice(frame).map_err(|e| e.to_string())?;
        if let Some(s) = &env.jsonrpc {
            sink.jsonrpc(s);
        }
        if let Some(id) = env.id {
            id_from_raw(id.get(), sink)?;
        }
        if let Some(m) = &env.method {
            sink.method(m);
        }
        sink.members(
            env.params.is_some(),
            env.result.is_some(),
            env.error.is_some(),
        );
        let inner = env.params.or(env.result);
        if let Some(inner) = inner
            && inner.get().starts_with('{')
        {
            let peek: MetaPeek<'_> =
                serde_json::from_str(inner.get()).map_err(|e| e.to_string())?;
            if env.result.is_some()
                && let Some(t) = &peek.result_type
            {
                sink.result_type(t);
            }
            if let Some(m) = peek.meta {
                sink.meta_begin();
                sink.meta_raw(m.get().as_bytes());
            }
        }
        Ok(())
    }
}

// ------------------------------------ b2 / b2u: serde_json one-pass typed peek (_meta RawValue)

#[derive(Deserialize)]
struct PeekEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<MetaPeek<'a>>,
    #[serde(borrow)]
    result: Option<MetaPeek<'a>>,
    error: Option<IgnoredAny>,
}

fn report_peek<S: Sink>(env: &PeekEnvelope<'_>, sink: &mut S) -> Result<(), String> {
    if let Some(s) = &env.jsonrpc {
        sink.jsonrpc(s);
    }
    if let Some(id) = env.id {
        id_from_raw(id.get(), sink)?;
    }
    if let Some(m) = &env.method {
        sink.method(m);
    }
    sink.members(
        env.params.is_some(),
        env.result.is_some(),
        env.error.is_some(),
    );
    if let Some(r) = &env.result
        && let Some(t) = &r.result_type
    {
        sink.result_type(t);
    }
    let meta = match (&env.params, &env.result) {
        (Some(p), _) => p.meta,
        (None, Some(r)) => r.meta,
        _ => None,
    };
    if let Some(m) = meta {
        sink.meta_begin();
        sink.meta_raw(m.get().as_bytes());
    }
    Ok(())
}

/// Row b2: one pass, `params`/`result` deserialised into a struct that keeps only `_meta`
/// (`&RawValue`) and `resultType` (full−U validation).
#[derive(Default)]
pub struct SerdePeek;

impl Extractor for SerdePeek {
    fn name(&self) -> &'static str {
        "serde_peek"
    }
    fn validates(&self) -> &'static str {
        "full-U"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let env: PeekEnvelope<'_> = serde_json::from_slice(frame).map_err(|e| e.to_string())?;
        report_peek(&env, sink)
    }
}

/// Row b2u: b2 made fully validating: `simdutf8` over the whole frame, then `from_str`.
#[derive(Default)]
pub struct SerdePeekUtf8;

impl Extractor for SerdePeekUtf8 {
    fn name(&self) -> &'static str {
        "serde_peek_utf8"
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let text = simdutf8::basic::from_utf8(frame).map_err(|e| e.to_string())?;
        let env: PeekEnvelope<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        report_peek(&env, sink)
    }
}

// ------------------------------------------------ c: simd-json borrowed value (copy + Buffers)

/// Row c: `simd_json::to_borrowed_value_with_buffers` on a reused copy (the API mutates its
/// input; a proxy must keep the original bytes).
#[derive(Default)]
pub struct SimdBorrowed {
    copy: Vec<u8>,
    buffers: simd_json::Buffers,
}

fn simd_borrowed_meta<S: Sink>(v: &simd_json::BorrowedValue<'_>, sink: &mut S) {
    if let Some(meta) = v.get("_meta").and_then(|m| m.as_object()) {
        sink.meta_begin();
        for k in meta.keys() {
            sink.meta_key(k);
        }
    }
}

impl Extractor for SimdBorrowed {
    fn name(&self) -> &'static str {
        "simd_borrowed"
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        self.copy.clear();
        self.copy.extend_from_slice(frame);
        let v = simd_json::to_borrowed_value_with_buffers(&mut self.copy, &mut self.buffers)
            .map_err(|e| e.to_string())?;
        let o = v.as_object().ok_or("not an object")?;
        if let Some(s) = o.get("jsonrpc").and_then(|v| v.as_str()) {
            sink.jsonrpc(s);
        }
        if let Some(id) = o.get("id") {
            if let Some(s) = id.as_str() {
                sink.id_str(s);
            } else if let Some(i) = id.as_i64() {
                sink.id_int(i);
            } else {
                sink.id_other("other");
            }
        }
        if let Some(s) = o.get("method").and_then(|v| v.as_str()) {
            sink.method(s);
        }
        let (p, r, e) = (o.get("params"), o.get("result"), o.get("error"));
        sink.members(p.is_some(), r.is_some(), e.is_some());
        if let Some(r) = r
            && let Some(t) = r.get("resultType").and_then(|t| t.as_str())
        {
            sink.result_type(t);
        }
        if let Some(p) = p {
            simd_borrowed_meta(p, sink);
        } else if let Some(r) = r {
            simd_borrowed_meta(r, sink);
        }
        Ok(())
    }
}

// --------------------------------------- d2: simd-json tape on a reused padded copy (1 copy)

/// Row d2: copy into a reused buffer with `INPUT_PADDING` spare bytes, `fill_tape_padded`
/// with reused `Buffers` and `Tape`, then one walk over the root object's members.
pub struct SimdTape {
    buf: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<simd_json::Tape<'static>>,
}

impl Default for SimdTape {
    fn default() -> Self {
        Self {
            buf: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: Some(simd_json::Tape::null().reset()),
        }
    }
}

fn tape_meta<S: Sink>(v: simd_json::tape::Value<'_, '_>, sink: &mut S) {
    if let Some(meta) = v
        .as_object()
        .and_then(|o| o.get("_meta"))
        .and_then(|m| m.as_object())
    {
        sink.meta_begin();
        for k in meta.keys() {
            sink.meta_key(k);
        }
    }
}

impl Extractor for SimdTape {
    fn name(&self) -> &'static str {
        "simd_tape"
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let len = frame.len();
        self.buf.clear();
        self.buf.extend_from_slice(frame);
        self.buf.resize(len + simd_json::INPUT_PADDING, b' ');
        let mut tape: simd_json::Tape<'_> = self
            .tape
            .take()
            .unwrap_or_else(simd_json::Tape::null)
            .reset();
        let res = simd_json::fill_tape_padded(&mut self.buf, len, &mut self.buffers, &mut tape);
        let out = match res {
            Err(e) => Err(e.to_string()),
            Ok(()) => (|| {
                let root = tape.as_value();
                let o = root.as_object().ok_or("not an object")?;
                let (mut p, mut r, mut e) = (None, None, None);
                for (k, v) in o.iter() {
                    match k {
                        "jsonrpc" => {
                            if let Some(s) = v.into_string() {
                                sink.jsonrpc(s);
                            }
                        }
                        "id" => {
                            if let Some(s) = v.into_string() {
                                sink.id_str(s);
                            } else if let Some(i) = v.as_i64() {
                                sink.id_int(i);
                            } else {
                                sink.id_other("other");
                            }
                        }
                        "method" => {
                            if let Some(s) = v.into_string() {
                                sink.method(s);
                            }
                        }
                        "params" => p = Some(v),
                        "result" => r = Some(v),
                        "error" => e = Some(v),
                        _ => {}
                    }
                }
                sink.members(p.is_some(), r.is_some(), e.is_some());
                if let Some(r) = r
                    && let Some(t) = r
                        .as_object()
                        .and_then(|o| o.get("resultType"))
                        .and_then(|t| t.into_string())
                {
                    sink.result_type(t);
                }
                if let Some(p) = p {
                    tape_meta(p, sink);
                } else if let Some(r) = r {
                    tape_meta(r, sink);
                }
                Ok(())
            })(),
        };
        self.tape = Some(tape.reset());
        out
    }
}

// ------------------------------------------------------------ e: sonic-rs get_many (checked)

/// Row e: `sonic_rs::get_many` with 9 paths (partial validation: no trailing-bytes check,
/// `\u` hex digits unchecked, stops once all paths are found; see PERF.md).
pub struct SonicGetMany {
    tree: PointerTree,
}

impl Default for SonicGetMany {
    fn default() -> Self {
        let mut tree = PointerTree::new();
        tree.add_path(["jsonrpc"]); // 0
        tree.add_path(["id"]); // 1
        tree.add_path(["method"]); // 2
        tree.add_path(["params"]); // 3
        tree.add_path(["result"]); // 4
        tree.add_path(["error"]); // 5
        tree.add_path(["params", "_meta"]); // 6
        tree.add_path(["result", "_meta"]); // 7
        tree.add_path(["result", "resultType"]); // 8
        Self { tree }
    }
}

impl Extractor for SonicGetMany {
    fn name(&self) -> &'static str {
        "sonic_get_many"
    }
    fn validates(&self) -> &'static str {
        "partial"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let got = sonic_rs::get_many(frame, &self.tree).map_err(|e| e.to_string())?;
        if let Some(s) = got[0].as_ref().and_then(|v| v.as_str()) {
            sink.jsonrpc(s);
        }
        if let Some(id) = &got[1] {
            if let Some(s) = id.as_str() {
                sink.id_str(s);
            } else if let Some(i) = id.as_i64() {
                sink.id_int(i);
            } else {
                sink.id_other(id.as_raw_str());
            }
        }
        if let Some(s) = got[2].as_ref().and_then(|v| v.as_str()) {
            sink.method(s);
        }
        sink.members(got[3].is_some(), got[4].is_some(), got[5].is_some());
        if let Some(t) = got[8].as_ref().and_then(|v| v.as_str()) {
            sink.result_type(t);
        }
        let meta = if got[3].is_some() {
            got[6].as_ref()
        } else {
            got[7].as_ref()
        };
        if let Some(m) = meta {
            sink.meta_begin();
            sink.meta_raw(m.as_raw_str().as_bytes());
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------ f: sonic-rs Value

/// Row f: `sonic_rs::from_slice::<sonic_rs::Value>` (full validation, arena DOM).
#[derive(Default)]
pub struct SonicValue;

fn sonic_value_meta<S: Sink>(v: &sonic_rs::Value, sink: &mut S) {
    if let Some(meta) = v.get("_meta").and_then(|m| m.as_object()) {
        sink.meta_begin();
        for (k, _) in meta.iter() {
            sink.meta_key(k);
        }
    }
}

impl Extractor for SonicValue {
    fn name(&self) -> &'static str {
        "sonic_value"
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let v: sonic_rs::Value = sonic_rs::from_slice(frame).map_err(|e| e.to_string())?;
        let o = v.as_object().ok_or("not an object")?;
        if let Some(s) = o.get(&"jsonrpc").and_then(|v| v.as_str()) {
            sink.jsonrpc(s);
        }
        if let Some(id) = o.get(&"id") {
            if let Some(s) = id.as_str() {
                sink.id_str(s);
            } else if let Some(i) = id.as_i64() {
                sink.id_int(i);
            } else {
                sink.id_other("other");
            }
        }
        if let Some(s) = o.get(&"method").and_then(|v| v.as_str()) {
            sink.method(s);
        }
        let (p, r, e) = (o.get(&"params"), o.get(&"result"), o.get(&"error"));
        sink.members(p.is_some(), r.is_some(), e.is_some());
        if let Some(r) = r
            && let Some(t) = r.get("resultType").and_then(|t| t.as_str())
        {
            sink.result_type(t);
        }
        if let Some(p) = p {
            sonic_value_meta(p, sink);
        } else if let Some(r) = r {
            sonic_value_meta(r, sink);
        }
        Ok(())
    }
}
