//! HTTP body framing: one body is one frame (MCP Streamable HTTP: a POST body holds exactly
//! one JSON-RPC message; an `application/json` response body holds one).
//!
//! The framer never searches the body: it checks the size limit as bytes arrive (and against a
//! declared `Content-Length` before any byte arrives), and at end of body returns the whole
//! pending buffer as the frame. Exceeding the limit is fatal
//! ([`FrameErrorKind::BodyTooLarge`], HTTP 413): stop reading, answer 413.

use super::{DEFAULT_MAX_FRAME_LEN, Decoded, FrameError, FrameErrorKind, Status};

/// The body frame: the whole buffer given to [`BodyFramer::finish`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyFrame {
    len: usize,
}

impl BodyFrame {
    /// Body length in bytes (the frame is `buf[..len]`).
    pub fn len(&self) -> usize {
        self.len
    }
    /// True for an empty body.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One-body framer (sans-I/O). Feed the growing body to [`decode`](Self::decode) (it only
/// checks the limit) and call [`finish`](Self::finish) at end of body.
#[derive(Clone, Debug)]
pub struct BodyFramer {
    max_body_len: usize,
    content_length: Option<u64>,
    done: bool,
}

impl Default for BodyFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl BodyFramer {
    /// Default limit [`DEFAULT_MAX_FRAME_LEN`] (4 MiB), no declared length.
    pub fn new() -> Self {
        Self::with_max_body_len(DEFAULT_MAX_FRAME_LEN)
    }
    /// Bodies longer than `max_body_len` bytes are rejected.
    pub fn with_max_body_len(max_body_len: usize) -> Self {
        Self {
            max_body_len,
            content_length: None,
            done: false,
        }
    }
    /// The body limit in bytes.
    pub fn max_body_len(&self) -> usize {
        self.max_body_len
    }

    /// Declares the `Content-Length`. Returns [`FrameErrorKind::BodyTooLarge`] at once when it
    /// exceeds the limit (answer 413 without reading the body); the length is then not kept
    /// (library trial: it was, and a later end of stream reported `truncated-body`).
    pub fn set_content_length(&mut self, len: u64) -> Result<(), FrameError> {
        if len > self.max_body_len as u64 {
            return Err(self.too_large(len.min(usize::MAX as u64) as usize));
        }
        self.content_length = Some(len);
        Ok(())
    }

    /// Always 0: the framer never searches the body (the counterpart of the other framers'
    /// counters).
    pub fn bytes_examined(&self) -> u64 {
        0
    }

    /// Checks the bytes received so far (`buf` is the whole body so far). Partial while within
    /// the limit (and within a declared length); [`FrameErrorKind::BodyTooLarge`] (fatal) once
    /// over either. Never consumes: the body is one frame.
    pub fn decode(&mut self, buf: &[u8]) -> Decoded<BodyFrame> {
        if self.done {
            return Decoded::partial(0);
        }
        let limit = match self.content_length {
            Some(cl) => (cl.min(usize::MAX as u64) as usize).min(self.max_body_len),
            None => self.max_body_len,
        };
        if buf.len() > limit {
            self.done = true;
            return Decoded::error(buf.len(), self.too_large(buf.len()));
        }
        Decoded::partial(0)
    }

    /// End of body: returns the whole of `buf` as the frame (consumed = `buf.len()`), or
    /// [`FrameErrorKind::BodyTooLarge`] / [`FrameErrorKind::TruncatedBody`]. A second call
    /// returns [`Status::Partial`] (drained).
    pub fn finish(&mut self, buf: &[u8]) -> Decoded<BodyFrame> {
        if self.done {
            return Decoded::partial(buf.len());
        }
        let d = self.decode(buf);
        if d.status.is_complete() {
            return d;
        }
        self.done = true;
        if let Some(cl) = self.content_length
            && (buf.len() as u64) < cl
        {
            let e = FrameError::new(FrameErrorKind::TruncatedBody, 0, 0, buf.len());
            return Decoded::error(buf.len(), e);
        }
        Decoded {
            consumed: buf.len(),
            status: Status::Complete(Ok(BodyFrame { len: buf.len() })),
        }
    }

    /// Ready for the next body (same limit, no declared length).
    pub fn reset(&mut self) {
        self.content_length = None;
        self.done = false;
    }

    fn too_large(&self, len: usize) -> FrameError {
        FrameError::new(FrameErrorKind::BodyTooLarge, 0, 0, len)
    }
}
