//! Human output: violations as `file:line:col` with the offending line and a caret, and
//! summaries as short tables. Colour comes from annotate-snippets' styled renderer; the
//! anstream writers strip it when the stream is not a terminal or `NO_COLOR` is set.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

use super::input::Frame;
use super::record::Record;

/// Bytes of context shown on each side of the caret on long lines.
const WINDOW: usize = 60;

/// Characters traffic must not send to a terminal as they are: controls (C0 with CR, LF and
/// ESC, DEL, C1) and the Unicode format and filler characters that reorder text or are
/// invisible (bidi marks, embeddings, overrides and isolates, the Arabic letter mark, zero
/// width spaces and joiners, the line and paragraph separators, the BOM, variation selectors,
/// tags, Hangul fillers), so that `tools/list\u{200b}` cannot pass for `tools/list` (re-trial
/// finding).
fn unsafe_for_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// `text` for a terminal: [`unsafe_for_terminal`] characters as `\u{..}` escapes (a method
/// name with ESC, CR or LF in it cannot style, rewrite or forge a line of the report; trial
/// finding).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(unsafe_for_terminal) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_for_terminal(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// Makes a printable one-line excerpt of `line` around byte `at`; returns the text and the
/// byte position of `at` in it. Invalid UTF-8 becomes U+FFFD, [`unsafe_for_terminal`]
/// characters become `·`.
fn excerpt(line: &[u8], at: usize) -> (String, usize, bool, bool) {
    let at = at.min(line.len());
    let lo = at.saturating_sub(WINDOW);
    let hi = (at + WINDOW).min(line.len());
    let cut_left = lo > 0;
    let cut_right = hi < line.len();
    let part = &line[lo..hi];
    let mut out = String::with_capacity(part.len() + 8);
    if cut_left {
        out.push('…');
    }
    let mut pos = None;
    let mut i = 0;
    for chunk in part.utf8_chunks() {
        for c in chunk.valid().chars() {
            if pos.is_none() && lo + i >= at {
                pos = Some(out.len());
            }
            out.push(if unsafe_for_terminal(c) { '·' } else { c });
            i += c.len_utf8();
        }
        for _ in chunk.invalid() {
            if pos.is_none() && lo + i >= at {
                pos = Some(out.len());
            }
            out.push('\u{FFFD}');
            i += 1;
        }
    }
    let pos = pos.unwrap_or(out.len());
    if cut_right {
        out.push('…');
    }
    (out, pos, cut_left, cut_right)
}

/// Writes every violation of `rec` as a diagnostic.
pub fn write_violations(
    out: &mut dyn Write,
    renderer: &Renderer,
    file: &str,
    frame: &Frame<'_>,
    rec: &Record,
) -> io::Result<()> {
    let locator = frame.locator();
    for v in &rec.violations {
        let (_, line, col) = locator.locate(v.rel);
        // The offending input line: for stdio the frame itself; otherwise the frame line
        // holding the offset.
        let bytes = frame.bytes;
        let rel = v.rel.min(bytes.len());
        let Range { start: ls, end: le } = locator.line_bounds(rel);
        writeln!(
            out,
            "{}:{line}:{col}: {} [{}] (code {})",
            printable(file),
            v.message,
            v.kind,
            v.code
        )?;
        if bytes.is_empty() {
            // A framing error whose bytes were discarded (oversize) or never formed a line.
            writeln!(
                out,
                "  = {} (frame {}, byte {}): no frame text to show\n",
                v.kind, rec.frame, v.offset
            )?;
            continue;
        }
        // Where the frame's text starts in its input line: an SSE data value follows its
        // `data:` field name (and the optional space), so the snippet shows that prefix too
        // and its caret stands at the column the header names.
        // On line 1 a stream's BOM (3 bytes, counted in the columns) may come first.
        let prefix_len = (col as usize).saturating_sub(1 + (rel - ls));
        let bom = if line == 1 && prefix_len > 6 { 3 } else { 0 };
        let prefix = match prefix_len - bom {
            4 => "data",
            5 => "data:",
            6 => "data: ",
            _ => "",
        };
        let (text, pos, cut_left, _) = excerpt(&bytes[ls..le], rel - ls);
        let prefix = if cut_left { "" } else { prefix };
        let (text, pos) = (format!("{prefix}{text}"), pos + prefix.len());
        let end = text[pos..]
            .chars()
            .next()
            .map_or(pos, |c| pos + c.len_utf8());
        let title = format!("{} (frame {}, byte {})", v.kind, rec.frame, v.offset);
        let report = &[Level::ERROR.primary_title(title.as_str()).element(
            Snippet::source(text.as_str())
                .line_start(line as usize)
                .annotation(
                    AnnotationKind::Primary
                        .span(pos..end)
                        .label(v.message.as_str()),
                ),
        )];
        writeln!(out, "{}", renderer.render(report))?;
    }
    Ok(())
}

/// Formats a byte count (B, KiB, MiB, GiB).
pub fn bytes(n: u64) -> String {
    const U: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < U.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", U[u])
    }
}

/// Writes `title` and a two-column table of counts, largest first.
pub fn write_counts(
    out: &mut dyn Write,
    title: &str,
    counts: &BTreeMap<String, u64>,
) -> io::Result<()> {
    if counts.is_empty() {
        return Ok(());
    }
    writeln!(out, "{title}:")?;
    let mut v: Vec<_> = counts.iter().map(|(k, n)| (printable(k), n)).collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(&b.0)));
    let w = v.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    for (k, n) in v {
        writeln!(out, "  {k:<w$}  {n:>9}")?;
    }
    Ok(())
}

/// The line about SSE field lines of unknown names (nothing when there is none).
///
/// # Errors
/// Write errors on `out`.
pub fn write_unknown_fields(out: &mut dyn Write, n: u64) -> io::Result<()> {
    if n == 0 {
        return Ok(());
    }
    writeln!(
        out,
        "SSE lines with an unknown field name (ignored, values lost; e.g. a misspelt `Data:`): {n}"
    )
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn excerpt_marks_invalid_utf8_and_controls() {
        let (t, pos, l, r) = excerpt(b"ab\xffc\x00d", 2);
        assert_eq!(t, "ab\u{FFFD}c\u{b7}d");
        assert_eq!(pos, 2);
        assert!(!l && !r);
        let (t, pos, _, _) = excerpt(b"ab\xffc\x00d", 4);
        assert_eq!(&t[pos..pos + 2], "\u{b7}");
    }

    #[test]
    fn excerpt_windows_long_lines() {
        let line = vec![b'x'; 1000];
        let (t, pos, l, r) = excerpt(&line, 500);
        assert!(l && r);
        assert_eq!(pos, '…'.len_utf8() + 60);
        assert_eq!(t.chars().count(), 122);
    }

    #[test]
    fn excerpt_offset_at_end() {
        let (t, pos, _, _) = excerpt(b"{\"a\":", 5);
        assert_eq!(pos, t.len());
    }
}
