// Header-mirroring cases shared by unit and integration tests: (description, headers, body,
// Mcp-Param bindings as (header, path), expected rule names).
#[allow(dead_code)]
mod header_cases {
    pub const BODY_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"region":"us-west1","count":42,"exact":true,"note":"42","city":"Zürich"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    pub const BODY_READ: &str = r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a b.txt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    pub const BODY_LEGACY: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#;
    pub const BODY_BATCH: &str = r#"[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]"#;

    pub struct Case {
        pub what: &'static str,
        pub headers: Vec<(&'static str, &'static str)>,
        pub body: &'static str,
        pub params: Vec<(&'static str, &'static str)>,
        pub expect: Vec<&'static str>,
    }

    fn base() -> Vec<(&'static str, &'static str)> {
        vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "get_weather")]
    }

    fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut h = base();
        for (k, v) in extra {
            if let Some(slot) = h.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(k)) {
                *slot = (k, v);
            } else {
                h.push((k, v));
            }
        }
        h
    }

    pub fn cases() -> Vec<Case> {
        let c = |what, headers, body, params: &[(&'static str, &'static str)], expect: &[&'static str]| Case {
            what,
            headers,
            body,
            params: params.to_vec(),
            expect: expect.to_vec(),
        };
        vec![
            c("all mirrored", base(), BODY_CALL, &[], &[]),
            c("header names are case-insensitive", vec![("mcp-protocol-version", "2026-07-28"), ("MCP-METHOD", "tools/call"), ("mcp-name", "get_weather")], BODY_CALL, &[], &[]),
            c("values are trimmed", with(&[("Mcp-Name", "  get_weather\t")]), BODY_CALL, &[], &[]),
            c("method value case differs", with(&[("Mcp-Method", "TOOLS/CALL")]), BODY_CALL, &[], &["header-mismatch"]),
            c("name value case differs", with(&[("Mcp-Name", "Get_Weather")]), BODY_CALL, &[], &["header-mismatch"]),
            c("version differs", with(&[("MCP-Protocol-Version", "2025-11-25")]), BODY_CALL, &[], &["header-mismatch"]),
            c("version missing", vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "get_weather")], BODY_CALL, &[], &["header-missing"]),
            c("method missing", vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Name", "get_weather")], BODY_CALL, &[], &["header-missing"]),
            c("name missing", vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")], BODY_CALL, &[], &["header-missing"]),
            c("name in base64", with(&[("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXI=?=")]), BODY_CALL, &[], &[]),
            c("base64 of another name", with(&[("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXJz?=")]), BODY_CALL, &[], &["header-mismatch"]),
            c("invalid base64 padding", with(&[("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXI?=")]), BODY_CALL, &[], &["header-invalid"]),
            c("invalid base64 character", with(&[("Mcp-Name", "=?base64?Z2V0X3dl*XRoZXI=?=")]), BODY_CALL, &[], &["header-invalid"]),
            c("upper-case BASE64 marker is a literal", with(&[("Mcp-Name", "=?BASE64?Z2V0X3dlYXRoZXI=?=")]), BODY_CALL, &[], &["header-mismatch"]),
            c("missing end marker is a literal", with(&[("Mcp-Name", "=?base64?Z2V0X3dlYXRoZXI=")]), BODY_CALL, &[], &["header-mismatch"]),
            c("resources/read uri in base64", vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "resources/read"), ("Mcp-Name", "=?base64?ZmlsZTovLy9hIGIudHh0?=")], BODY_READ, &[], &[]),
            c("resources/read uri differs", vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "resources/read"), ("Mcp-Name", "file:///a%20b.txt")], BODY_READ, &[], &["header-mismatch"]),
            c("string param matches", with(&[("Mcp-Param-Region", "us-west1")]), BODY_CALL, &[("Region", "region")], &[]),
            c("string param differs", with(&[("Mcp-Param-Region", "us-east1")]), BODY_CALL, &[("Region", "region")], &["header-mismatch"]),
            c("param header missing", base(), BODY_CALL, &[("Region", "region")], &["header-missing"]),
            c("param for absent argument", with(&[("Mcp-Param-Zone", "a")]), BODY_CALL, &[("Zone", "zone")], &["header-mismatch"]),
            c("integer param spelled 42", with(&[("Mcp-Param-Count", "42")]), BODY_CALL, &[("Count", "count")], &[]),
            c("integer param spelled 42.0", with(&[("Mcp-Param-Count", "42.0")]), BODY_CALL, &[("Count", "count")], &[]),
            c("integer param spelled 4.2e1", with(&[("Mcp-Param-Count", "4.2e1")]), BODY_CALL, &[("Count", "count")], &[]),
            c("integer param 43", with(&[("Mcp-Param-Count", "43")]), BODY_CALL, &[("Count", "count")], &["header-mismatch"]),
            c("string \"42\" vs header 42.0", with(&[("Mcp-Param-Note", "42.0")]), BODY_CALL, &[("Note", "note")], &["header-mismatch"]),
            c("boolean param", with(&[("Mcp-Param-Exact", "true")]), BODY_CALL, &[("Exact", "exact")], &[]),
            c("boolean param in upper case", with(&[("Mcp-Param-Exact", "TRUE")]), BODY_CALL, &[("Exact", "exact")], &["header-mismatch"]),
            c("non-ASCII param in base64", with(&[("Mcp-Param-City", "=?base64?WsO8cmljaA==?=")]), BODY_CALL, &[("City", "city")], &[]),
            c("non-ASCII param sent raw", with(&[("Mcp-Param-City", "Zürich")]), BODY_CALL, &[("City", "city")], &["header-invalid"]),
            c("unknown param header with bad base64", with(&[("Mcp-Param-Other", "=?base64?@@?=")]), BODY_CALL, &[], &["header-invalid"]),
            c("modern header, legacy body (trial finding)", with(&[("Mcp-Name", "x")]), BODY_LEGACY, &[], &["header-mismatch"]),
            c("batch under a 2025-06-18 header (hostile trial)", vec![("MCP-Protocol-Version", "2025-06-18")], BODY_BATCH, &[], &["header-mismatch"]),
            c("batch under a 2026-07-28 header (hostile trial)", base(), BODY_BATCH, &[], &["header-mismatch"]),
            c("batch under a 2025-03-26 header", vec![("MCP-Protocol-Version", "2025-03-26")], BODY_BATCH, &[], &[]),
            c("legacy POST is not checked", vec![("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", "abc")], BODY_LEGACY, &[], &[]),
        ]
    }
}
