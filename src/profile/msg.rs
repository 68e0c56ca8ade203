//! The profile layer's view of one message: the envelope's shape plus the member spans the
//! rules read. Built once per frame from an [`Envelope`].

use std::borrow::Cow;

use super::json::{self, Kind};
use crate::envelope::{Envelope, Shape, Span};
use crate::error::Error;

/// Envelope keys, for the case-variant check.
const ENVELOPE_KEYS: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];

pub(crate) struct Msg<'f> {
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
    /// First depth-1 key equal to an envelope key only under ASCII case folding.
    pub case_variant: Option<Span>,
}

impl<'f> Msg<'f> {
    pub(crate) fn from_envelope(env: &Envelope<'f>) -> Self {
        Self::walk(env.frame(), env.shape(), env.invalid_reason())
    }

    /// Walks the depth-1 members of a validated frame.
    pub(crate) fn walk(frame: &'f [u8], shape: Shape, invalid: Option<Error>) -> Self {
        let mut m = Msg {
            frame,
            shape,
            invalid,
            id: None,
            method: None,
            method_span: None,
            params: None,
            result: None,
            error: None,
            meta: None,
            case_variant: None,
        };
        let start = frame
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .unwrap_or(frame.len());
        let end = frame
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .map_or(start, |e| e + 1);
        if frame.get(start) != Some(&b'{') {
            return m;
        }
        for mem in json::members(frame, Span::new(start, end.max(start))) {
            match &*mem.key {
                "id" => m.id = Some(mem.value),
                "method" => {
                    m.method_span = Some(mem.value);
                    m.method = json::string_at(frame, mem.value);
                }
                "params" => m.params = Some(mem.value),
                "result" => m.result = Some(mem.value),
                "error" => m.error = Some(mem.value),
                "jsonrpc" => {}
                k => {
                    if m.case_variant.is_none()
                        && ENVELOPE_KEYS.iter().any(|e| e.eq_ignore_ascii_case(k))
                    {
                        m.case_variant = Some(mem.key_span);
                    }
                }
            }
        }
        let holder = if m.result.is_some() && m.method.is_none() {
            m.result
        } else {
            m.params
        };
        if let Some(h) = holder {
            m.meta = json::get(frame, h, "_meta")
                .filter(|s| json::kind(frame, *s) == Some(Kind::Object));
        }
        m
    }

    /// The raw id text when the id is a string or integer (echoable).
    pub(crate) fn id_text(&self) -> Option<&'f str> {
        let s = self.id?;
        match json::kind(self.frame, s)? {
            Kind::String | Kind::Number => std::str::from_utf8(s.slice(self.frame)).ok(),
            _ => None,
        }
    }

    /// The id normalised for matching: `s:` + decoded string, or `n:` + the integer text.
    pub(crate) fn id_key(&self) -> Option<String> {
        let s = self.id?;
        match json::kind(self.frame, s)? {
            Kind::String => Some(format!("s:{}", json::string_at(self.frame, s)?)),
            Kind::Number => Some(format!(
                "n:{}",
                std::str::from_utf8(s.slice(self.frame)).ok()?
            )),
            _ => None,
        }
    }

    /// `_meta[key]` value span.
    pub(crate) fn meta_get(&self, key: &str) -> Option<Span> {
        json::get(self.frame, self.meta?, key)
    }

    /// A member of `params`.
    pub(crate) fn param(&self, key: &str) -> Option<Span> {
        json::get(self.frame, self.params?, key)
    }

    /// A member of `result`.
    pub(crate) fn result_member(&self, key: &str) -> Option<Span> {
        json::get(self.frame, self.result?, key)
    }

    /// The decoded string at `span`.
    pub(crate) fn str_at(&self, span: Span) -> Option<Cow<'f, str>> {
        json::string_at(self.frame, span)
    }

    /// The JSON type at `span`.
    pub(crate) fn kind_at(&self, span: Span) -> Option<Kind> {
        json::kind(self.frame, span)
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
        let s = json::get(self.frame, self.error?, "code")?;
        let v = std::str::from_utf8(s.slice(self.frame))
            .ok()?
            .parse()
            .ok()?;
        Some((v, s))
    }
}

/// A simple classifier for unit tests run without the core walk.
#[cfg(test)]
pub(crate) fn classify_trusted(frame: &[u8]) -> Msg<'_> {
    let mut m = Msg::walk(frame, Shape::Invalid, None);
    m.shape = match (
        m.method.is_some(),
        m.id.is_some(),
        m.result.is_some(),
        m.error.is_some(),
    ) {
        (true, true, false, false) => Shape::Request,
        (true, false, false, false) => Shape::Notification,
        (false, true, true, false) => Shape::Result,
        (false, _, false, true) => Shape::Error,
        _ => Shape::Invalid,
    };
    if frame.trim_ascii_start().first() == Some(&b'[') {
        m.shape = Shape::Batch;
    }
    m
}
