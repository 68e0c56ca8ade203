#!/usr/bin/env python3
"""Writes corpora/hostile/*: hand-made hostile frames, one case per line (ndjson) unless the
file name says otherwise, and corpora/hostile/CASES.md describing every line with the verdict
DESIGN.md's strictness policy asks for. Usage: python3 corpora/tools/make_hostile.py
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "hostile")

R = b'{"jsonrpc":"2.0","id":1,'  # common request prefix


def req(rest):
    return R + rest


CASES = {
    "duplicate-keys.jsonl": [
        (req(b'"method":"tools/list","method":"tools/call"}'), "duplicate `method` (first-wins vs last-wins parsers disagree)", "invalid -32600 duplicate-key"),
        (b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}', "duplicate `id`", "invalid -32600 duplicate-key"),
        (b'{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"tools/list"}', "duplicate `jsonrpc`", "invalid -32600 duplicate-key"),
        (req(b'"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}'), "duplicate `params`", "invalid -32600 duplicate-key"),
        (b'{"jsonrpc":"2.0","id":1,"result":{},"result":{}}', "duplicate `result`", "invalid -32600 duplicate-key"),
        (req(b'"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}'), "duplicate `_meta` key", "invalid -32600 duplicate-meta-key"),
        (req(b'"method":"tools/list","params":{"_meta":{},"_meta":{"a":1}}}'), "duplicate `params._meta` member", "invalid (duplicate inspected member)"),
        (req(b'"method":"tools/call","params":{"name":"greet","name":"secretTool"}}'), "duplicate `params.name` (authorisation key; Docker mcp-gateway / Teleport class)", "invalid (duplicate inspected params member, -32602 per reliability 1.2.1)"),
        (req(b'"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}'), "duplicate key inside `params.arguments` (not read by the core walk)", "JSON-valid to the core; the profile rejects it: -32602 duplicate-params-key (a policy reading the first `a` and a backend running the last disagree)"),
    ],
    "escaped-keys.jsonl": [
        (req(b'"method":"tools/list","\\u006d\\u0065thod":"tools/call"}'), "`method` then escaped `\\u006d\\u0065thod` (decodes to `method`): duplicate after unescaping", "invalid -32600 duplicate-key"),
        (req(b'"m\\u0065thod":"tools/list"}'), "only key is escaped `m\\u0065thod`: it IS `method`", "valid request, method tools/list"),
        (req(b'"method":"tools\\/call","params":{"name":"x"}}'), "escaped solidus in the method value: `tools/call`", "valid request, method tools/call"),
        (b'{"jsonrpc":"2\\u002e0","id":1,"method":"tools/list"}', "escaped `jsonrpc` value decoding to `2.0`", "valid (decoded value is \"2.0\")"),
        (req(b'"method":"tools/list","params":{"\\u005fmeta":{"a":1},"_meta":{"b":2}}}'), "`_meta` and escaped `\\u005fmeta` in params", "invalid (duplicate `_meta` after unescaping)"),
        (b'{"\\u006aSONRPC":"2.0","jsonrpc":"2.0","id":1,"method":"tools/list"}', "escaped key that differs from `jsonrpc` by case after unescaping", "invalid (case variant of an envelope key)"),
        (req(b'"method":"tools/list","\\u0069d":2}'), "second `id` written `\\u0069d`", "invalid -32600 duplicate-key"),
    ],
    "decoys.jsonl": [
        (req(b'"params":{"method":"tools/call"},"method":"tools/list"}'), "`method` nested in params before the real one", "valid request, method tools/list"),
        (req(b'"method":"tools/list","params":{"x":"\\",\\"method\\":\\"tools/call"}}'), "fake `\",\"method\":\"tools/call` inside a string", "valid request, method tools/list"),
        (req(b'"params":{"x":"a\\\\"},"method":"tools/list"}'), "string ending in an escaped backslash before the real `method`", "valid request, method tools/list"),
        (req(b'"params":{"x":["method","tools/call",{"method":"tools/call"}]},"method":"tools/list"}'), "`method` as array element and in a nested object", "valid request, method tools/list"),
        (req(b'"params":{"x":"\\\\\\"method\\\\\\":1"},"method":"tools/list"}'), "odd/even backslash runs around quotes", "valid request, method tools/list"),
        (b'{"jsonrpc":"2.0","result":{"method":"tools/call","id":7},"id":1}', "`method` and `id` inside a result", "valid result, id 1"),
    ],
    "case-variants.jsonl": [
        (req(b'"method":"ping","Method":"tools/call"}'), "`Method` next to `method` (Go SDK CVE-2026-27896 class)", "invalid (case variant of an envelope key)"),
        (req(b'"METHOD":"tools/call"}'), "only `METHOD`, no `method`", "invalid (no shape / case variant)"),
        (req(b'"method":"tools/list","param\\u017f":{"a":1}}'), "`param\\u017f` (long s, folds to `params` in Go)", "invalid (Unicode case-folding variant of `params`)"),
        (req(b'"method":"tools/list","ID":2}'), "`ID` next to `id`", "invalid (case variant)"),
        (req(b'"method":"tools/call","params":{"name":"greet","Name":"secretTool"}}'), "`Name` next to `name` in params", "invalid (case variant of an inspected params member, -32602)"),
        (b'{"JSONRPC":"2.0","id":1,"method":"tools/list"}', "`JSONRPC` instead of `jsonrpc`", "invalid -32600 (jsonrpc missing / case variant)"),
    ],
    "surrogates.jsonl": [
        (req(b'"method":"tools/list","params":{"x":"\\ud800"}}'), "lone high surrogate escape in a skipped string", "invalid -32700 lone-surrogate"),
        (req(b'"method":"tools/list","params":{"x":"\\udc00"}}'), "lone low surrogate escape", "invalid -32700 lone-surrogate"),
        (req(b'"method":"tools/list","params":{"x":"\\ud800\\u0041"}}'), "high surrogate followed by a non-surrogate escape", "invalid -32700 lone-surrogate"),
        (req(b'"method":"tools/list","params":{"x":"\\ude00\\ud83d"}}'), "surrogate pair in reverse order", "invalid -32700 lone-surrogate"),
        (req(b'"method\\ud888":"tools/call","method":"tools/list"}'), "lone surrogate inside a key (truncation collision)", "invalid -32700 lone-surrogate"),
        (req(b'"method":"tools/list","params":{"x":"\\ud83d\\ude00"}}'), "valid surrogate pair (control)", "valid request"),
        (req(b'"method":"tools/list","params":{"x":"\\ud800"'), "lone surrogate at the end of a truncated frame", "invalid -32700"),
    ],
    "utf8.jsonl": [
        (req(b'"method":"tools/list","params":{"x":"\xff\xfe"}}'), "raw bytes FF FE in a string", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/list","params":{"x":"\xc0\xaf"}}'), "overlong encoding C0 AF of `/`", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/list","params":{"x":"\xed\xa0\x80"}}'), "encoded surrogate ED A0 80", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/list","params":{"x":"\xe2\x82"}}'), "truncated 3-byte sequence", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/list","params":{"x":"\xf4\x90\x80\x80"}}'), "code point above U+10FFFF", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/list","params":{"x":"\xf8\x88\x80\x80\x80"}}'), "5-byte form", "invalid -32700 invalid-utf8"),
        (req(b'"method":"tools/li\xc3\xa7t"}'), "non-ASCII (valid) in the method value", "valid request (unknown method for the profile)"),
        (req(b'"method":"tools/list","params":{"x":"a\xe2\x80\xa8b\xe2\x80\xa9c"}}'), "raw U+2028/U+2029 in a string (both SDKs send these)", "valid request"),
        (req(b'"meth\xc3\xb6d":"tools/list"}'), "non-ASCII key close to `method`", "invalid -32600 (no shape)"),
    ],
    "bom.jsonl": [
        (b'\xef\xbb\xbf' + req(b'"method":"tools/list"}'), "UTF-8 BOM before the first frame of the stream", "invalid -32700 bom (stdio: reject, no strip)"),
        (req(b'"method":"tools/list"}'), "ordinary frame after it: the stream goes on", "valid request"),
        (b'\xef\xbb\xbf' + req(b'"method":"tools/list"}'), "BOM at the start of a later line", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"x":"\xef\xbb\xbf"}}'), "U+FEFF inside a string", "valid request"),
    ],
    "control-characters.jsonl": [
        (req(b'"method":"tools/list","params":{"x":"a\x00b"}}'), "raw NUL inside a string", "invalid -32700 control-character"),
        (req(b'"method":"tools/list"}\x00'), "raw NUL after the value", "invalid -32700 trailing-characters"),
        (req(b'"method":"tools/list","params":{"x":"a\tb"}}'), "raw TAB inside a string", "invalid -32700 control-character"),
        (req(b'"method":"tools/list","params":{"x":"\x1f"}}'), "raw U+001F inside a string", "invalid -32700 control-character"),
        (req(b'"method":"tools/call\\u0000.evil"}'), "escaped NUL in the method: not `tools/call`", "valid JSON; method is `tools/call\\u0000.evil`"),
        (req(b'"method\\u0000":"tools/call","method":"tools/list"}'), "key `method\\u0000` is not `method`", "valid request, method tools/list"),
        (req(b'"method":"tools/list",\x0c"params":{}}'), "form feed used as whitespace", "invalid -32700 unexpected-byte"),
        (req(b'"method":"tools/list",\xc2\xa0"params":{}}'), "U+00A0 used as whitespace", "invalid -32700 unexpected-byte"),
        (req(b'"method":"tools/list",\x0b"params":{}}'), "vertical tab used as whitespace", "invalid -32700 unexpected-byte"),
        (b' \t' + req(b'"method":"tools/list"} \t'), "legal JSON whitespace (space, tab) around the value", "valid request"),
    ],
    "comments.jsonl": [
        (req(b'/*"method":"tools/call",*/"method":"tools/list"}'), "block comment hiding a member", "invalid -32700 unexpected-byte"),
        (req(b'"method":"tools/list"} // trailing comment'), "line comment after the value", "invalid -32700"),
        (req(b'"method":"tools/list"} # hash comment'), "hash comment after the value", "invalid -32700"),
        (req(b'"method":"tools/list","params":{/**/}}'), "empty block comment in params", "invalid -32700"),
    ],
    "trailing-commas.jsonl": [
        (req(b'"method":"tools/list",}'), "trailing comma in the envelope", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"a":[1,2,]}}'), "trailing comma in an array inside params", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"a":1,}}'), "trailing comma in params", "invalid -32700"),
        (req(b',"method":"tools/list"}'), "double comma", "invalid -32700"),
    ],
    "trailing-data.jsonl": [
        (req(b'"method":"tools/list"}') + req(b'"method":"tools/call"}'), "two objects on one line", "invalid -32700 trailing-characters"),
        (req(b'"method":"tools/list"} x'), "garbage after the value", "invalid -32700 trailing-characters"),
        (req(b'"method":"tools/list"}]'), "stray closing bracket", "invalid -32700 trailing-characters"),
        (req(b'"method":"tools/list"}   '), "trailing spaces", "valid request"),
        (req(b'"method":"tools/list"}\r'), "CRLF line ending (the CR belongs to the terminator)", "valid request"),
        (req(b'"method":"tools/list"'), "truncated: no closing brace", "invalid -32700 unexpected-end"),
        (b'', "blank line between frames", "skipped by the ndjson framer or reported as an empty frame"),
        (req(b'"method":"tools/list"}'), "frame after the blank line", "valid request"),
    ],
    "numbers.jsonl": [
        (req(b'"method":"tools/list","params":{"x":1e400}}'), "number overflowing f64", "invalid -32700 number-out-of-range"),
        (req(b'"method":"tools/list","params":{"x":1e-400}}'), "underflow to 0.0 (serde_json accepts)", "valid request"),
        (req(b'"method":"tools/list","params":{"x":' + b'1' * 1024 + b'}}'), "1024-digit integer (at the number token limit)", "valid request (limit is 1024 bytes)"),
        (req(b'"method":"tools/list","params":{"x":' + b'1' * 1025 + b'}}'), "1025-digit integer (one over the limit)", "invalid -32700 number-too-long"),
        (req(b'"method":"tools/list","params":{"x":NaN}}'), "NaN literal", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"x":-Infinity}}'), "-Infinity literal", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"x":+1}}'), "leading plus", "invalid -32700 invalid-number"),
        (req(b'"method":"tools/list","params":{"x":.5}}'), "leading dot", "invalid -32700"),
        (req(b'"method":"tools/list","params":{"x":1.}}'), "trailing dot", "invalid -32700 invalid-number"),
        (req(b'"method":"tools/list","params":{"x":01}}'), "leading zero", "invalid -32700 invalid-number"),
        (req(b'"method":"tools/list","params":{"x":-}}'), "lone minus", "invalid -32700 invalid-number"),
        (req(b'"method":"tools/list","params":{"x":tru}}'), "truncated literal", "invalid -32700 invalid-literal"),
    ],
    "ids.jsonl": [
        (b'{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/list"}', "id 2^64 (serde_json silently makes it a float)", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}', "id 2^53+1 (JavaScript rounds it)", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/list"}', "id 2^53 (one over the limit)", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":9007199254740991,"method":"tools/list"}', "id 2^53-1 (the limit)", "valid request"),
        (b'{"jsonrpc":"2.0","id":-9007199254740991,"method":"tools/list"}', "id -(2^53-1)", "valid request"),
        (b'{"jsonrpc":"2.0","id":-9007199254740992,"method":"tools/list"}', "id -2^53", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}', "float id 1.0 (rmcp reads 1)", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":1e2,"method":"tools/list"}', "exponent id 1e2", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":-0,"method":"tools/list"}', "id -0", "policy: canonical integer grammar allows -0? (reliability 1.2.7: -?(0|[1-9][0-9]*))"),
        (b'{"jsonrpc":"2.0","id":0,"method":"tools/list"}', "id 0 (the TS client's first id)", "valid request"),
        (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', "null id in a request", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', "null id in an error response (id unreadable)", "valid error"),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', "object id", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', "boolean id", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}', "array id", "invalid -32600 invalid-id"),
        (b'{"jsonrpc":"2.0","id":"1","method":"tools/list"}', "string id \"1\" (differs from integer 1)", "valid request"),
        (b'{"jsonrpc":"2.0","id":"","method":"tools/list"}', "empty string id", "valid request"),
        (b'{"jsonrpc":"2.0","id":"listen-1","result":{}}', "string id on a result (Python client's subscriptions/listen)", "valid result"),
    ],
    "batches.jsonl": [
        (b'[]', "empty batch", "invalid -32600 empty-batch"),
        (b'[' + req(b'"method":"tools/list"},') + b'{"jsonrpc":"2.0","id":2,"method":"prompts/list"}]', "batch of two requests", "batch: rejected for >= 2025-06-18, allowed for 2025-03-26"),
        (b'[1]', "batch with a non-object element", "invalid -32600"),
        (b'[[' + req(b'"method":"tools/list"}') + b']]', "nested batch", "invalid -32600"),
        (b'[' + req(b'"method":"tools/list"}'), "unterminated batch", "invalid -32700"),
    ],
    "shapes.jsonl": [
        (req(b'"method":"tools/list","result":{}}'), "`method` together with `result`", "invalid -32600 method-with-response"),
        (b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"x"}}', "`result` and `error`", "invalid -32600 result-and-error"),
        (b'{"id":1,"method":"tools/list"}', "no `jsonrpc`", "invalid -32600 jsonrpc-missing"),
        (b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}', "`jsonrpc` 1.0", "invalid -32600 jsonrpc-version"),
        (b'{"jsonrpc":2.0,"id":1,"method":"tools/list"}', "`jsonrpc` as a number", "invalid -32600 jsonrpc-version"),
        (req(b'"method":42}'), "`method` not a string", "invalid -32600 method-not-string"),
        (req(b'"method":"tools/list","params":[1,2]}'), "positional (array) params", "invalid -32600 params-not-object"),
        (req(b'"method":"tools/list","params":"x"}'), "string params", "invalid -32600 params-not-object"),
        (req(b'"method":"tools/list","params":{"_meta":[]}}'), "`_meta` not an object", "invalid -32602 meta-not-object"),
        (b'{"jsonrpc":"2.0","id":1,"result":1}', "scalar result", "invalid -32600 result-not-object"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}', "error without `code`", "invalid -32600 invalid-error-object"),
        (b'{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"x"}}', "error `code` not an integer", "invalid -32600 invalid-error-object"),
        (b'{"jsonrpc":"2.0","result":{}}', "result without `id`", "invalid -32600 missing-id"),
        (b'{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}', "error without `id` (id unreadable)", "valid error"),
        (b'{"jsonrpc":"2.0","id":1}', "neither method, result nor error", "invalid -32600 no-shape"),
        (b'{}', "empty object", "invalid -32600"),
        (b'"tools/list"', "top-level string", "invalid -32600 not-an-object"),
        (b'42', "top-level number", "invalid -32600 not-an-object"),
        (b'null', "top-level null", "invalid -32600 not-an-object"),
    ],
}


def nesting(n_inner, closed=True):
    # root object (depth 1) + params object (depth 2) + n_inner arrays.
    inner = b'[' * n_inner + (b']' * n_inner if closed else b'')
    tail = b'}}' if closed else b''
    return req(b'"method":"tools/list","params":{"x":' + inner + tail)


CASES["deep-nesting.jsonl"] = [
    (nesting(125), "127 nested containers in total (root + params + 125 arrays)", "valid request (serde_json accepts 127)"),
    (nesting(126), "128 nested containers in total", "invalid -32700 depth-limit (serde_json rejects 128)"),
    (nesting(127), "129 nested containers in total", "invalid -32700 depth-limit"),
    (b'[' * 100000, "100 000 unclosed `[` (stack-overflow probe)", "invalid -32700 depth-limit, no recursion"),
    (b'{"a":' * 50000, "50 000 unclosed objects", "invalid -32700 depth-limit"),
]


def write_file(name, lines):
    with open(os.path.join(OUT, name), "wb") as f:
        for frame, _, _ in lines:
            f.write(frame + b"\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    md = ["# Hostile cases", "",
          "Generated by `corpora/tools/make_hostile.py` (hand-written by the mcpwire project; each",
          "case is one ndjson line). `expected` is what DESIGN.md's strictness policy and",
          "../shared/notes/reliability.md ask for; the checked-in snapshots in tests/snapshots/ record",
          "what mcpwire actually reports.", ""]
    for name in sorted(CASES):
        lines = CASES[name]
        write_file(name, lines)
        md += [f"## `{name}`", "", "| line | case | expected |", "| --- | --- | --- |"]
        for i, (_, what, exp) in enumerate(lines, 1):
            cell = what.replace("|", "\\|")
            md.append(f"| {i} | {cell} | {exp} |")
        md.append("")
    # Whole-file cases (framing level).
    extra = {
        "empty.jsonl": (b"", "an empty file: no frames", "0 frames, exit 0"),
        "crlf.jsonl": (req(b'"method":"tools/list"}\r\n') + b'{"jsonrpc":"2.0","id":1,"result":{}}\r\n', "two frames with CRLF line endings", "2 valid frames"),
        "no-final-newline.jsonl": (req(b'"method":"tools/list"}\n') + b'{"jsonrpc":"2.0","id":1,"result":{}}', "last frame without a terminating LF", "partial frame at end of input: reported, never silently lost"),
        "blank-lines.jsonl": (b"\n\n" + req(b'"method":"tools/list"}\n') + b"\n  \n", "blank and whitespace-only lines around one frame", "1 valid frame; blank lines skipped or reported as empty"),
        "sse-hostile.sse": (b'\xef\xbb\xbf: comment line\r\n'
                            b'event: message\rdata: {"jsonrpc":"2.0",\rdata: "method":"notifications/progress","params":{"progressToken":1,"progress":1}}\r\r'
                            b'id: 7\nretry: 500\ndata:\n\n'
                            b'data:{"jsonrpc":"2.0","id":1,"result":{}}\n\n'
                            b'data: {"jsonrpc":"2.0","id":2,"result":{}}\n',
                            "SSE: leading BOM + comment, CR-only line endings, an event split over two `data:` lines, an empty priming event, `data:` without space, and a last event with no blank line (incomplete at end of stream)",
                            "BOM stripped; 3 events dispatched (the joined one is one frame); empty-data event ignored; last incomplete event discarded"),
    }
    md += ["## Whole-file cases", "", "| file | case | expected |", "| --- | --- | --- |"]
    for name, (data, what, exp) in sorted(extra.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        md.append(f"| `{name}` | {what} | {exp} |")
    md.append("")
    with open(os.path.join(OUT, "CASES.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
