//! mcpwire itself as an [`Extractor`]: `Parser::parse`, then the envelope accessors.

use mcpwire::envelope::Id;
use mcpwire::profile::{Direction, Profile, Validator, Violation};
use mcpwire::{Backend, Envelope, Parser, Span};

use super::{Extractor, Sink};

/// mcpwire with a given scan backend (`Backend::detect()` = run-time dispatch).
pub struct Ours {
    parser: Parser,
    name: &'static str,
}

impl Default for Ours {
    fn default() -> Self {
        Self {
            parser: Parser::new(),
            name: "mcpwire",
        }
    }
}

impl Ours {
    /// Forces `backend` (falls back to scalar when this CPU lacks it); `None` when the CPU
    /// cannot run it, so the bench can say so instead of timing the fallback.
    pub fn with_backend(backend: Backend, name: &'static str) -> Option<Self> {
        let parser = Parser::new().with_backend(backend);
        (parser.backend() == backend).then_some(Self { parser, name })
    }
}

impl Extractor for Ours {
    fn name(&self) -> &'static str {
        self.name
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    #[inline]
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let env = self.parser.parse(frame).map_err(|e| e.to_string())?;
        emit(&env, frame, sink);
        Ok(())
    }
}

/// mcpwire's parse and accessors as [`Ours`], then `Validator::check` against an MCP
/// profile: what a gateway that validates MCP, not only JSON-RPC, pays per message. The
/// direction is unknown (the bench classes mix both directions, so direction rules are
/// skipped); the violations buffer is reused. The extracted fields are [`Ours`]'s.
pub struct OursValidating {
    parser: Parser,
    validator: Validator,
    out: Vec<Violation>,
    name: &'static str,
}

impl OursValidating {
    /// Validates against `profile`.
    pub fn new(profile: Profile, name: &'static str) -> Self {
        Self {
            parser: Parser::new(),
            validator: Validator::new(profile, Direction::Unknown),
            out: Vec::new(),
            name,
        }
    }
}

impl Extractor for OursValidating {
    fn name(&self) -> &'static str {
        self.name
    }
    fn validates(&self) -> &'static str {
        "full"
    }
    #[inline]
    fn run<S: Sink>(&mut self, frame: &[u8], sink: &mut S) -> Result<(), String> {
        let env = self.parser.parse(frame).map_err(|e| e.to_string())?;
        emit(&env, frame, sink);
        self.out.clear();
        self.validator.check(&env, &mut self.out);
        std::hint::black_box(self.out.len());
        Ok(())
    }
}

/// The fields every mcpwire row reports.
#[inline(always)]
fn emit<S: Sink>(env: &Envelope<'_>, frame: &[u8], sink: &mut S) {
    {
        if let Some(s) = env.jsonrpc() {
            sink.jsonrpc(&s.decode());
        }
        match env.id() {
            Some(Id::Int { value, .. }) => sink.id_int(value),
            Some(Id::Str(s)) => sink.id_str(&s.decode()),
            Some(Id::Null) => sink.id_other("null"),
            None => {}
        }
        if let Some(m) = env.method() {
            sink.method(&m.decode());
        }
        let (p, r) = (env.params_span(), env.result_span());
        sink.members(p.is_some(), r.is_some(), env.error_span().is_some());
        if r.is_some()
            && let Some(t) = env.result_type()
        {
            sink.result_type(&t.decode());
        }
        let meta: Option<Span> = if p.is_some() {
            env.params_meta_span()
        } else {
            env.result_meta_span()
        };
        if let Some(m) = meta {
            sink.meta_begin();
            sink.meta_raw(m.slice(frame));
            if S::WANTS_KEYS {
                let members = if p.is_some() {
                    env.params_meta()
                } else {
                    env.result_meta()
                };
                for member in members.into_iter().flatten() {
                    sink.meta_key(&member.key);
                }
            }
        }
    }
}
