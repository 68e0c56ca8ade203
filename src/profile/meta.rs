//! `_meta` key grammar and reserved keys (spec digest §4.1-§4.2; \[B\] General fields → `_meta`,
//! \[TS\] `MetaObject`; 2025-06-18: \[B-0618\]).

use super::Revision;

fn is_label(l: &[u8]) -> bool {
    match (l.first(), l.last()) {
        (Some(f), Some(e)) => {
            f.is_ascii_alphabetic()
                && e.is_ascii_alphanumeric()
                && l.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        }
        _ => false,
    }
}

fn is_name(n: &[u8]) -> bool {
    match (n.first(), n.last()) {
        (None, _) => true,
        (Some(f), Some(e)) => {
            f.is_ascii_alphanumeric()
                && e.is_ascii_alphanumeric()
                && n.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        }
        _ => false,
    }
}

/// Splits a key into `(prefix, name)`, the prefix being the labels before the `/` (`None`
/// when there is no `/`); `None` when it breaks the grammar `KEY = (LABEL(.LABEL)*/)? NAME`.
/// No allocation (it runs for every `_meta` key of every message).
pub(crate) fn parse_key(key: &str) -> Option<(Option<&str>, &str)> {
    let b = key.as_bytes();
    match key.find('/') {
        None => is_name(b).then_some((None, key)),
        Some(slash) => {
            let (prefix, name) = (&key[..slash], &key[slash + 1..]);
            (prefix.split('.').all(|l| is_label(l.as_bytes())) && is_name(name.as_bytes()))
                .then_some((Some(prefix), name))
        }
    }
}

/// True when the key's prefix (from [`parse_key`]) is reserved for MCP under `rev`'s rule.
///
/// 2025-11-25 and 2026-07-28: the **second** label is `modelcontextprotocol` or `mcp`.
/// 2025-06-18: zero or more labels, then `modelcontextprotocol` or `mcp`, then exactly one
/// more label (the second-to-last label is `modelcontextprotocol` / `mcp`).
pub(crate) fn is_reserved_prefix(rev: Revision, prefix: Option<&str>) -> bool {
    let mcp = |l: &str| l == "modelcontextprotocol" || l == "mcp";
    let Some(p) = prefix else {
        return false;
    };
    match rev {
        Revision::V2025_06_18 => p.rsplit('.').nth(1).is_some_and(mcp),
        _ => p.split('.').nth(1).is_some_and(mcp),
    }
}

/// Whether `rev` defines a `_meta` key grammar (2025-06-18 and later).
pub(crate) fn has_grammar(rev: Revision) -> bool {
    rev >= Revision::V2025_06_18
}

/// Reserved keys 2026-07-28 defines (request, notification and result `_meta`).
pub(crate) const KNOWN_2026: &[&str] = &[
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/subscriptionId",
    "io.modelcontextprotocol/serverInfo",
];

/// Reserved keys 2025-11-25 defines (core Tasks, [TASKS-1125]).
pub(crate) const KNOWN_2025_11_25: &[&str] = &[
    "io.modelcontextprotocol/related-task",
    "io.modelcontextprotocol/model-immediate-response",
];

/// True when `key` (under an MCP-reserved prefix) is defined for `_meta` under `rev`.
///
/// 2026-07-28 accepts only its own keys. A legacy revision accepts every key some MCP
/// revision defines: dual-era clients probe with 2026-07-28 `_meta` keys in sessions that
/// then negotiate a legacy revision (captures `stdio_py-client_everything_auto`), and a key
/// MCP itself defines is not the misuse of the reserved prefix the rule is about.
pub(crate) fn is_defined(rev: Revision, key: &str) -> bool {
    KNOWN_2026.contains(&key) || (!rev.is_modern() && KNOWN_2025_11_25.contains(&key))
}

/// Tasks extension identifier (`capabilities.extensions` key, 2026-07-28 [EXT-TASKS]).
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Protocol-version key (request `params._meta`, 2026-07-28).
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Client-capabilities key (request `params._meta`, 2026-07-28).
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// Log-level key (request `params._meta`, 2026-07-28; deprecated, SEP-2577).
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the sender's `Implementation` on requests (2026-07-28).
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the server's `Implementation` on results (2026-07-28).
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Subscription id key (listen-stream notifications and the listen result, 2026-07-28).
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_grammar() {
        for ok in [
            "",
            "a",
            "progressToken",
            "com.example/",
            "io.modelcontextprotocol/protocolVersion",
            "x/a.b_c-d",
            "a-1.b2/n",
            "9lives",
        ] {
            assert!(parse_key(ok).is_some(), "{ok:?} should parse");
        }
        for bad in [
            "/x", "1a/x", "a-/x", "a..b/x", "a/b/c", "a/-x", "a/x-", "_x", "x_", "é", "a b",
            ".a/x", "a./x",
        ] {
            assert!(parse_key(bad).is_none(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn reserved_prefixes() {
        let r = |k: &str, rev| is_reserved_prefix(rev, parse_key(k).unwrap().0);
        let m = Revision::V2026_07_28;
        assert!(r("io.modelcontextprotocol/x", m));
        assert!(r("dev.mcp/x", m));
        assert!(r("org.modelcontextprotocol.api/x", m));
        assert!(!r("com.example.mcp/x", m));
        assert!(!r("mcp/x", m));
        let o = Revision::V2025_06_18;
        assert!(r("modelcontextprotocol.io/x", o));
        assert!(r("mcp.dev/x", o));
        assert!(!r("com.mcp/x", o));
    }
}
