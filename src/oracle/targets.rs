//! The bodies of the fuzz targets, shared by `fuzz/fuzz_targets/*.rs` and the replay test
//! (`tests/fuzz_replay.rs`), so `cargo test` on stable runs every corpus file and every saved
//! crash through exactly the checks the fuzzers run.
//!
//! Each function takes the raw fuzz input and returns `Err(finding)` when an oracle fails; the
//! fuzz targets turn that into a panic (a libFuzzer crash). A panic inside mcpwire itself
//! propagates as is.
//!
//! Input layouts:
//! * `envelope`, `scalar_vs_simd`, `profile`: the input is one frame.
//! * `envelope_structured`: the input is decoded by [`MessageModel::from_fuzz_input`] and
//!   rendered; the rendering is the frame.
//! * `ndjson`, `sse`: see [`split_input`].
//! * `session`: a sequence of messages on one connection; see [`super::session`].

use super::model::MessageModel;
use crate::profile::{Direction, Profile, Validator, Violation, error_reply};

/// Every fuzz target, by the name of its `fuzz/fuzz_targets/NAME.rs` file and corpus folder.
pub const TARGETS: &[&str] = &[
    "envelope",
    "envelope_structured",
    "ndjson",
    "sse",
    "scalar_vs_simd",
    "profile",
    "session",
];

/// Runs the target named `target` on `data`.
///
/// # Errors
/// The oracle's finding, or `unknown fuzz target` for a name not in [`TARGETS`].
pub fn run(target: &str, data: &[u8]) -> Result<(), String> {
    match target {
        "envelope" => envelope(data),
        "envelope_structured" => envelope_structured(data),
        "ndjson" => ndjson(data),
        "sse" => sse(data),
        "scalar_vs_simd" => scalar_vs_simd(data),
        "profile" => profile(data),
        "session" => super::session::check(data),
        _ => Err(format!("unknown fuzz target {target:?}")),
    }
}

/// `envelope`: any bytes as one frame; the envelope oracle (verdict and extracted fields agree
/// with serde_json and simd-json except where the strictness policy rejects more).
///
/// # Errors
/// The oracle's finding.
pub fn envelope(data: &[u8]) -> Result<(), String> {
    super::envelope::check_frame(data).map_err(|e| e.to_string())
}

/// `scalar_vs_simd`: every available scan backend gives the identical result (spans or error
/// kind and offset) as the scalar path, with the default limits and with tight limits (depth
/// 3, number tokens of 4 bytes, and a frame limit equal to the input length for even lengths
/// or one byte below it for odd ones) so the limit paths are compared too.
///
/// # Errors
/// The backend disagreement.
pub fn scalar_vs_simd(data: &[u8]) -> Result<(), String> {
    use crate::envelope::Limits;
    super::envelope::check_backends(data, Limits::DEFAULT).map_err(|e| e.to_string())?;
    let tight = Limits {
        max_depth: 3,
        max_number_len: 4,
        max_frame_len: data.len() - (data.len() % 2),
    };
    super::envelope::check_backends(data, tight).map_err(|e| format!("tight limits: {e}"))
}

/// `envelope_structured`: the input decoded as a [`MessageModel`], rendered, then checked as
/// in [`envelope`]. Inputs too short to decode are not an error.
///
/// # Errors
/// The oracle's finding, with the rendered frame.
pub fn envelope_structured(data: &[u8]) -> Result<(), String> {
    let Ok(model) = MessageModel::from_fuzz_input(data) else {
        return Ok(());
    };
    let frame = model.render();
    envelope(&frame).map_err(|e| format!("{e}\nrendered frame: {}", super::framing::show(&frame)))
}

/// `profile`: any bytes as one frame, validated under every [`Profile`] and [`Direction`]:
/// no panic; every violation's error reply is a JSON-RPC error response that our parser and
/// serde_json accept; and when the frame parses, the multiset of violated rules is the same
/// for two re-serialisations that any strict parser reads as the same message (see
/// [`reserialise`]): minified with minimal escapes, and spread out with every string
/// character `\u`-escaped.
///
/// # Errors
/// The first instability or bad reply found.
pub fn profile(data: &[u8]) -> Result<(), String> {
    let parser = crate::Parser::new();
    let parsed = parser.parse(data);
    let original = match &parsed {
        Ok(env) => rules_by_setting(env)?,
        Err(e) => {
            for &p in Profile::ALL {
                let mut out = Vec::new();
                Validator::new(p, Direction::Unknown).check_parse_error(e, &mut out);
                check_replies(None, &out)?;
            }
            return Ok(());
        }
    };
    for escape_all in [false, true] {
        let again = reserialise(data, escape_all);
        let env = parser.parse(&again).map_err(|e| {
            format!(
                "re-serialised frame rejected ({e}); original accepted\nre-serialised: {}",
                super::framing::show(&again)
            )
        })?;
        let rules = rules_by_setting(&env)?;
        if rules != original {
            let diff: Vec<_> = original
                .iter()
                .zip(&rules)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("{} {}: {:?} vs {:?}", a.0, a.1, a.2, b.2))
                .collect();
            return Err(format!(
                "violations change under re-serialisation (escape_all={escape_all}):\n{}\nre-serialised: {}",
                diff.join("\n"),
                super::framing::show(&again)
            ));
        }
    }
    Ok(())
}

/// Sorted rule names per (profile, direction), after checking each violation's reply.
type RulesBySetting = Vec<(&'static str, &'static str, Vec<&'static str>)>;

fn rules_by_setting(env: &crate::Envelope<'_>) -> Result<RulesBySetting, String> {
    let mut all = Vec::new();
    for &p in Profile::ALL {
        for d in [
            Direction::ClientToServer,
            Direction::ServerToClient,
            Direction::Unknown,
        ] {
            let mut out = Vec::new();
            Validator::new(p, d).check(env, &mut out);
            check_replies(Some(env), &out)?;
            let mut rules: Vec<&'static str> = out.iter().map(|v| v.rule.name()).collect();
            rules.sort_unstable();
            all.push((p.as_str(), d.as_str(), rules));
        }
    }
    Ok(all)
}

/// Every violation's error reply must parse (ours and serde_json's) as an error response.
fn check_replies(env: Option<&crate::Envelope<'_>>, out: &[Violation]) -> Result<(), String> {
    for v in out {
        let reply = error_reply(env, v);
        let shown = || super::framing::show(&reply.body);
        serde_json::from_slice::<serde_json::Value>(&reply.body)
            .map_err(|e| format!("error reply is not JSON ({e}): {}", shown()))?;
        let parsed = crate::parse(&reply.body)
            .map_err(|e| format!("error reply rejected by our parser ({e}): {}", shown()))?;
        if parsed.shape() != crate::Shape::Error {
            return Err(format!(
                "error reply has shape {} ({:?}): {}",
                parsed.shape().name(),
                parsed.invalid_reason(),
                shown()
            ));
        }
    }
    Ok(())
}

/// Re-writes a well-formed JSON text token by token: numbers and literals verbatim (so no
/// number is re-read), strings decoded and re-encoded, member order kept. With
/// `escape_all == false`: no whitespace, minimal escapes (serde_json's); with `true`: a space
/// and a newline around every structural character and every string character written as a
/// `\u` escape (surrogate pairs above U+FFFF). Any strict parser reads the result as the same
/// value. Bytes that are not well-formed JSON are copied as they come (callers only pass
/// frames the parser accepted).
pub fn reserialise(frame: &[u8], escape_all: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.len() + 16);
    let mut i = 0;
    while i < frame.len() {
        let b = frame[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'"' => {
                let mut j = i + 1;
                while j < frame.len() && frame[j] != b'"' {
                    j += if frame[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(frame.len());
                let token = &frame[i..end];
                match serde_json::from_slice::<String>(token) {
                    Ok(text) if escape_all => {
                        out.push(b'"');
                        for unit in text.encode_utf16() {
                            out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                        }
                        out.push(b'"');
                    }
                    Ok(text) => out.extend_from_slice(
                        serde_json::to_string(&text)
                            .expect("a String serialises")
                            .as_bytes(),
                    ),
                    Err(_) => out.extend_from_slice(token),
                }
                i = end;
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                if escape_all {
                    out.extend_from_slice(&[b' ', b, b'\n']);
                } else {
                    out.push(b);
                }
                i += 1;
            }
            _ => {
                let start = i;
                while i < frame.len() && !b" \t\n\r\"{}[]:,".contains(&frame[i]) {
                    i += 1;
                }
                out.extend_from_slice(&frame[start..i]);
            }
        }
    }
    out
}

/// A stream-target input: read boundaries, a limit selector and the stream bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamInput<'a> {
    /// Read boundaries (stream offsets; normalised later by
    /// [`normalise_splits`](super::framing::normalise_splits)).
    pub splits: Vec<usize>,
    /// Limit selector: below 128 the default limits, else small limits derived from it.
    pub limit_sel: u8,
    /// The stream.
    pub stream: &'a [u8],
}

impl StreamInput<'_> {
    /// The small limit (bytes) selected by `limit_sel >= 128`: 8, 16, … 1024; `None` for the
    /// defaults.
    pub fn small_limit(&self) -> Option<usize> {
        (self.limit_sel >= 128).then(|| (self.limit_sel as usize - 127) * 8)
    }
}

/// Decodes a stream-target input: byte 0 = number of read boundaries `k` (mod 32), byte 1 =
/// limit selector, then `k` little-endian `u16` boundaries, then the stream. Short inputs
/// give fewer boundaries (or an empty stream).
pub fn split_input(data: &[u8]) -> StreamInput<'_> {
    let k = data.first().map_or(0, |b| (b % 32) as usize);
    let limit_sel = data.get(1).copied().unwrap_or(0);
    let rest = data.get(2..).unwrap_or(&[]);
    let k = k.min(rest.len() / 2);
    let splits = rest[..2 * k]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]) as usize)
        .collect();
    StreamInput {
        splits,
        limit_sel,
        stream: &rest[2 * k..],
    }
}

/// `ndjson`: [`check_ndjson_splits`](super::framing::check_ndjson_splits) with the default
/// frame limit or a small one; with the feature `codec`, also
/// [`check_ndjson_batch_codec`](super::framing::check_ndjson_batch_codec) on the same reads
/// and limit, under both oversize policies, with batches of at most 1, 3 and 1024 frames.
///
/// # Errors
/// The oracle's finding.
pub fn ndjson(data: &[u8]) -> Result<(), String> {
    let input = split_input(data);
    let limit = input
        .small_limit()
        .unwrap_or(crate::framing::DEFAULT_MAX_FRAME_LEN);
    super::framing::check_ndjson_splits(input.stream, &input.splits, limit)
        .map_err(|e| e.to_string())?;
    #[cfg(feature = "codec")]
    {
        let reads = super::framing::reads(input.stream, &input.splits);
        for fatal in [false, true] {
            for max_batch in [1, 3, 1024] {
                super::framing::check_ndjson_batch_codec(&reads, limit, fatal, max_batch)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// `sse`: [`check_sse_splits`](super::framing::check_sse_splits); with a small limit `n` the
/// event limit is `n` and the line limit `n + 8`. With feature `codec`, also
/// [`check_sse_batch_codec`](super::framing::check_sse_batch_codec) on the same reads and
/// limits, batches of at most 1, 3 and 1024 items.
///
/// # Errors
/// The oracle's finding.
pub fn sse(data: &[u8]) -> Result<(), String> {
    let input = split_input(data);
    let limits = input.small_limit().map(|n| (n, n + 8));
    super::framing::check_sse_splits(input.stream, &input.splits, limits)
        .map_err(|e| e.to_string())?;
    #[cfg(feature = "codec")]
    {
        let reads = super::framing::reads(input.stream, &input.splits);
        let limits = limits.unwrap_or((
            crate::framing::DEFAULT_MAX_FRAME_LEN,
            crate::framing::DEFAULT_MAX_FRAME_LEN + crate::framing::sse::LINE_OVERHEAD,
        ));
        for max_batch in [1, 3, 1024] {
            super::framing::check_sse_batch_codec(&reads, limits, max_batch)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_input_layout() {
        let d = [2u8, 130, 5, 0, 1, 1, b'a', b'b'];
        let i = split_input(&d);
        assert_eq!(i.splits, vec![5, 257]);
        assert_eq!(i.small_limit(), Some(24));
        assert_eq!(i.stream, b"ab");
        // Short inputs: fewer boundaries, never a panic.
        assert_eq!(split_input(&[]).stream, b"");
        assert_eq!(split_input(&[31, 0, 1]).splits, Vec::<usize>::new());
        assert_eq!(split_input(&[31, 0, 1]).stream, b"\x01");
    }

    #[test]
    fn reserialise_keeps_numbers_and_meaning() {
        let f = br#"{ "a\u0062" : [1.0, -0, 1e2, "x\/y\ud83d\ude00"], "t":true }"#;
        assert_eq!(
            String::from_utf8(reserialise(f, false)).unwrap(),
            "{\"ab\":[1.0,-0,1e2,\"x/y\u{1f600}\"],\"t\":true}"
        );
        let spread = reserialise(f, true);
        let a: serde_json::Value = serde_json::from_slice(f).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&spread).unwrap();
        assert_eq!(a, b);
        assert!(
            String::from_utf8(spread)
                .unwrap()
                .contains("\\ud83d\\ude00")
        );
    }

    #[test]
    fn unknown_target_is_an_error() {
        assert!(run("nope", b"").is_err());
    }
}
