//! One frame's verdict: the `--format jsonl` record of DESIGN.md's CLI contract.

use mcpwire::error::ErrorKind;
use mcpwire::{Parser, Shape};
use serde::Serialize;

use super::input::{Frame, FrameIssue};

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
    /// 1-based frame number within its input.
    pub frame: u64,
    /// Absolute byte offset of the frame in its input.
    pub offset: u64,
    /// Frame length in bytes (as it appears in the input).
    pub len: u64,
    /// `request|notification|result|error|batch|invalid`.
    pub shape: &'static str,
    /// Raw id JSON text, or null when absent.
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
    let (offset, _, _) = frame.locate(rel);
    ViolationOut {
        kind: kind.to_owned(),
        code,
        offset,
        message: message.to_owned(),
        rel,
    }
}

/// Parses one frame with the envelope layer and builds its record (profile rules are applied
/// afterwards by the caller).
pub fn judge(parser: &Parser, frame: &Frame<'_>, number: u64) -> Record {
    let mut rec = Record {
        file: None,
        frame: number,
        offset: frame.offset(),
        len: frame.input_len,
        shape: Shape::Invalid.name(),
        id: None,
        method: None,
        result_type: None,
        error_code: None,
        valid: false,
        violations: Vec::new(),
    };
    if let Some(FrameIssue::TooLarge) = frame.issue {
        let k = ErrorKind::FrameTooLarge;
        rec.violations
            .push(violation(frame, k.name(), k.code().into(), 0, k.message()));
        return rec;
    }
    match parser.parse(frame.bytes) {
        Err(e) => {
            let k = e.kind();
            rec.violations.push(violation(
                frame,
                k.name(),
                e.code().into(),
                e.offset(),
                k.message(),
            ));
        }
        Ok(env) => {
            rec.shape = env.shape().name();
            rec.id = env.id_raw().map(str::to_owned);
            rec.method = env.method().map(|m| m.decode().into_owned());
            rec.result_type = env.result_type().map(|m| m.decode().into_owned());
            rec.error_code = env.error_code();
            if let Some(e) = env.invalid_reason() {
                let k = e.kind();
                rec.violations.push(violation(
                    frame,
                    k.name(),
                    e.code().into(),
                    e.offset(),
                    k.message(),
                ));
            }
        }
    }
    rec.valid = rec.violations.is_empty();
    rec
}
