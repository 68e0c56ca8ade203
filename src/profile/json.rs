//! A small walker over JSON text that the envelope layer has ALREADY validated (RFC 8259,
//! UTF-8, depth): it iterates the members of an object value or the elements of an array
//! value and decodes string tokens. It never validates; on text that is not well-formed
//! JSON it returns wrong spans or stops early, but never panics, loops or reads out of
//! bounds (every index is checked).
//!
//! The profile layer uses it for the few nested values it reads (`params.arguments`,
//! `result.inputRequests`, `_meta` values) that the envelope's spans do not cover.

use std::borrow::Cow;

use crate::envelope::Span;

/// The JSON type of a value, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// The type of the value starting at `span.start()` (after no whitespace: value spans are
/// trimmed).
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

#[inline]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Index one past the closing quote of the string starting at `i` (`b[i] == b'"'`).
fn skip_string(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match memchr::memchr2(b'"', b'\\', &b[j..]) {
            None => return b.len(),
            Some(k) => {
                j += k;
                if b[j] == b'\\' {
                    j += 2;
                } else {
                    return j + 1;
                }
            }
        }
    }
    b.len()
}

/// Index one past the value starting at `i`.
pub(crate) fn skip_value(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        None => b.len(),
        Some(b'"') => skip_string(b, i),
        Some(b'{') | Some(b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        Some(_) => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            j
        }
    }
}

/// One member of an object: decoded key, key token span (between the quotes), value span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member<'f> {
    pub key: Cow<'f, str>,
    pub key_span: Span,
    pub value: Span,
}

/// Iterator over the members of the object value at `span`.
pub(crate) struct Members<'f> {
    b: &'f [u8],
    i: usize,
    end: usize,
}

/// The members of the object value at `span` of `frame` (empty if it is not an object).
pub(crate) fn members(frame: &[u8], span: Span) -> Members<'_> {
    let ok = span.end() <= frame.len() && frame.get(span.start()) == Some(&b'{');
    Members {
        b: frame,
        i: if ok { span.start() + 1 } else { span.end() },
        end: span.end(),
    }
}

impl<'f> Iterator for Members<'f> {
    type Item = Member<'f>;
    fn next(&mut self) -> Option<Member<'f>> {
        let b = &self.b[..self.end.min(self.b.len())];
        let mut i = skip_ws(b, self.i);
        if i < b.len() && b[i] == b',' {
            i = skip_ws(b, i + 1);
        }
        if i >= b.len() || b[i] != b'"' {
            self.i = self.end;
            return None;
        }
        let kend = skip_string(b, i);
        let key_span = Span::new(i + 1, kend.saturating_sub(1).max(i + 1));
        let key = decode(key_span.slice(self.b));
        i = skip_ws(b, kend);
        if i < b.len() && b[i] == b':' {
            i = skip_ws(b, i + 1);
        }
        let vend = skip_value(b, i);
        self.i = vend;
        Some(Member {
            key,
            key_span,
            value: Span::new(i.min(vend), vend),
        })
    }
}

/// Iterator over the element spans of the array value at `span`.
pub(crate) struct Elements<'f> {
    b: &'f [u8],
    i: usize,
    end: usize,
}

/// The elements of the array value at `span` of `frame` (empty if it is not an array).
pub(crate) fn elements(frame: &[u8], span: Span) -> Elements<'_> {
    let ok = span.end() <= frame.len() && frame.get(span.start()) == Some(&b'[');
    Elements {
        b: frame,
        i: if ok { span.start() + 1 } else { span.end() },
        end: span.end(),
    }
}

impl Iterator for Elements<'_> {
    type Item = Span;
    fn next(&mut self) -> Option<Span> {
        let b = &self.b[..self.end.min(self.b.len())];
        let mut i = skip_ws(b, self.i);
        if i < b.len() && b[i] == b',' {
            i = skip_ws(b, i + 1);
        }
        if i >= b.len() || b[i] == b']' {
            self.i = self.end;
            return None;
        }
        let vend = skip_value(b, i);
        self.i = vend;
        Some(Span::new(i, vend))
    }
}

/// The member `key` of the object at `span`, if present (first occurrence).
pub(crate) fn get(frame: &[u8], span: Span, key: &str) -> Option<Span> {
    members(frame, span).find(|m| m.key == key).map(|m| m.value)
}

/// Decodes the text between the quotes of a validated string token.
pub(crate) fn decode(raw: &[u8]) -> Cow<'_, str> {
    if !raw.contains(&b'\\') {
        return String::from_utf8_lossy(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            let next = memchr::memchr(b'\\', &raw[i..]).map_or(raw.len(), |k| i + k);
            out.push_str(&String::from_utf8_lossy(&raw[i..next]));
            i = next;
            continue;
        }
        let esc = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        match esc {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let hi = hex4(raw, i);
                i += 4;
                let cp = if (0xD800..0xDC00).contains(&hi)
                    && raw.get(i) == Some(&b'\\')
                    && raw.get(i + 1) == Some(&b'u')
                {
                    let lo = hex4(raw, i + 2);
                    if (0xDC00..0xE000).contains(&lo) {
                        i += 6;
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    } else {
                        0xFFFD
                    }
                } else {
                    hi
                };
                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
            }
            other => out.push(other as char),
        }
    }
    Cow::Owned(out)
}

fn hex4(raw: &[u8], i: usize) -> u32 {
    let mut v = 0u32;
    for k in 0..4 {
        let d = raw
            .get(i + k)
            .and_then(|c| (*c as char).to_digit(16))
            .unwrap_or(0);
        v = v * 16 + d;
    }
    v
}

/// The decoded value of the string token at `span` (`None` if it is not a string).
pub(crate) fn string_at(frame: &[u8], span: Span) -> Option<Cow<'_, str>> {
    if kind(frame, span)? != Kind::String || span.len() < 2 {
        return None;
    }
    Some(decode(&frame[span.start() + 1..span.end() - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(b: &[u8]) -> Span {
        Span::new(0, b.len())
    }

    #[test]
    fn members_and_nested_values() {
        let b = br#"{ "a" : {"x":[1,"]}"]} , "b\u0065":"s\"q", "c":-1.5e3,"d":null }"#;
        let m: Vec<_> = members(b, whole(b)).collect();
        let keys: Vec<_> = m.iter().map(|m| m.key.to_string()).collect();
        assert_eq!(keys, ["a", "be", "c", "d"]);
        assert_eq!(m[0].value.slice(b), br#"{"x":[1,"]}"]}"#);
        assert_eq!(m[1].value.slice(b), br#""s\"q""#);
        assert_eq!(string_at(b, m[1].value).unwrap(), "s\"q");
        assert_eq!(m[2].value.slice(b), b"-1.5e3");
        assert_eq!(kind(b, m[3].value), Some(Kind::Null));
    }

    #[test]
    fn elements_of_arrays() {
        let b = br#"[ {"a":1}, "x" ,[2,3], true ]"#;
        let e: Vec<_> = elements(b, whole(b)).map(|s| s.slice(b).to_vec()).collect();
        assert_eq!(
            e,
            [
                br#"{"a":1}"#.to_vec(),
                b"\"x\"".to_vec(),
                b"[2,3]".to_vec(),
                b"true".to_vec()
            ]
        );
        assert_eq!(elements(b"[]", Span::new(0, 2)).count(), 0);
    }

    #[test]
    fn decode_escapes_and_surrogates() {
        assert_eq!(decode(br"\ud83d\ude00 \u00e9\n"), "\u{1F600} \u{e9}\n");
        assert_eq!(decode(br"\ud83d"), "\u{FFFD}");
    }

    #[test]
    fn garbage_does_not_panic() {
        for b in [
            &b"{\"a"[..],
            b"{\"a\":",
            b"[1,",
            b"{",
            b"\"\\",
            b"{\"k\":\"\\u12",
        ] {
            let _ = members(b, whole(b)).count();
            let _ = elements(b, whole(b)).count();
            let _ = decode(b);
        }
    }
}
