# Generates cases.json (run from the repo root: python3 tests/sdk_shapes/cases.py).
import json
L, N = "2025-06-18", "2026-07-28"
cases = []
def res(profile, method, model, valid, result, note=""):
    if profile == N:
        result = dict(result, resultType="complete")
        if method in ("resources/read", "tools/list", "prompts/list", "resources/list",
                      "resources/templates/list"):
            # Cacheable results: the SDK's 2026 models require both (the spec reads an
            # absent ttlMs as 0, and mcpwire follows the spec there; not these cases' point).
            result.update(ttlMs=0, cacheScope="private")
    cases.append(dict(profile=profile, kind="result", method=method, model=model,
                      valid=valid, json=result, note=note))
def par(profile, method, model, valid, params, note=""):
    cases.append(dict(profile=profile, kind="params", method=method, model=model,
                      valid=valid, json=params, note=note))
def msg(profile, model, valid, message, note="", rule="missing-param"):
    # `rule`: the one violation mcpwire reports on an invalid message.
    case = dict(profile=profile, kind="message", method=message["method"], model=model,
                valid=valid, json=message, note=note)
    if not valid:
        case["rule"] = rule
    cases.append(case)

T = {"type": "text", "text": "a"}
for p in (L, N):
    ok_blocks = [T,
        {"type": "image", "data": "AA==", "mimeType": "image/png"},
        {"type": "audio", "data": "AA==", "mimeType": "audio/wav", "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}},
        {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3, "title": "A", "icons": [{"src": "https://x/i.png", "sizes": ["48x48"], "theme": "dark"}]},
        {"type": "resource", "resource": {"uri": "file:///a", "blob": "AA=="}},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "t", "mimeType": "text/plain"}}]
    res(p, "tools/call", "CallToolResult", True, {"content": ok_blocks}, "every content block type")
    for bad, why in [
        ({"type": "text"}, "text block without text"),
        ({"type": "text", "text": 1}, "text not a string"),
        ({"type": "image", "data": "AA=="}, "image without mimeType"),
        ({"type": "audio", "mimeType": "audio/wav"}, "audio without data"),
        ({"type": "video", "data": "AA==", "mimeType": "video/mp4"}, "unknown block type"),
        ({"type": "resource_link", "uri": "file:///a"}, "resource link without name"),
        ({"type": "resource_link", "uri": "file:///a", "name": "a", "size": "3"}, "size not an integer"),
        ({"type": "resource", "resource": {"uri": "file:///a"}}, "embedded resource without text or blob"),
        ({"type": "resource", "resource": "file:///a"}, "embedded resource not an object"),
        ({"type": "text", "text": "a", "annotations": {"priority": "high"}}, "priority not a number"),
        ({"type": "text", "text": "a", "annotations": {"audience": ["bot"]}}, "audience not a role"),
        ({"type": "tool_use", "id": "1", "name": "n", "input": {}}, "tool_use is sampling-only"),
    ]:
        res(p, "tools/call", "CallToolResult", False, {"content": [T, bad]}, why)
    res(p, "resources/read", "ReadResourceResult", True,
        {"contents": [{"uri": "u", "text": "t"}, {"uri": "u", "blob": "AA==", "mimeType": "x"}, {"uri": "u", "text": "t", "blob": "AA=="}]})
    res(p, "resources/read", "ReadResourceResult", False, {"contents": [{"uri": "u"}]}, "neither text nor blob")
    res(p, "resources/read", "ReadResourceResult", False, {"contents": [{"uri": "u", "blob": 1}]}, "blob not a string")
    res(p, "prompts/get", "GetPromptResult", True,
        {"description": "d", "messages": [{"role": "user", "content": {"type": "resource_link", "uri": "u", "name": "n"}}]})
    res(p, "prompts/get", "GetPromptResult", False, {"messages": [{"role": "user", "content": {"type": "text"}}]}, "message content without text")
    res(p, "prompts/get", "GetPromptResult", False, {"description": 1, "messages": []}, "description not a string")
    tool = {"name": "t", "title": "T", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            "outputSchema": {"type": "object"}, "annotations": {"title": "T", "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
            "icons": [{"src": "https://x/i.png"}]}
    res(p, "tools/list", "ListToolsResult", True, {"tools": [tool], "nextCursor": "c"})
    for patch, why in [
        ({"annotations": {"readOnlyHint": "yes"}}, "hint not a boolean"),
        ({"description": 1}, "description not a string"),
        ({"icons": [{}]}, "icon without src"),
        ({"icons": [{"src": "s", "theme": "blue"}]}, "icon theme not light or dark"),
        ({"title": ["T"]}, "title not a string"),
    ]:
        res(p, "tools/list", "ListToolsResult", False, {"tools": [dict(tool, **patch)]}, why)
    res(p, "prompts/list", "ListPromptsResult", True,
        {"prompts": [{"name": "p", "title": "P", "description": "d", "arguments": [{"name": "a", "title": "A", "description": "d", "required": True}]}]})
    res(p, "prompts/list", "ListPromptsResult", False, {"prompts": [{"name": "p", "arguments": [{"required": True}]}]}, "argument without name")
    res(p, "prompts/list", "ListPromptsResult", False, {"prompts": [{"name": "p", "arguments": [{"name": "a", "required": "yes"}]}]}, "required not a boolean")
    res(p, "resources/list", "ListResourcesResult", True,
        {"resources": [{"uri": "u", "name": "n", "title": "T", "description": "d", "mimeType": "m", "size": 10, "annotations": {"priority": 1}}]})
    res(p, "resources/list", "ListResourcesResult", False, {"resources": [{"uri": "u", "name": "n", "size": 1.5}]}, "size not an integer")
    res(p, "resources/list", "ListResourcesResult", False, {"resources": [{"uri": "u", "name": "n", "annotations": {"priority": "x"}}]}, "priority not a number")
    res(p, "resources/templates/list", "ListResourceTemplatesResult", False,
        {"resourceTemplates": [{"uriTemplate": "u/{x}", "name": "n", "description": 1}]}, "description not a string")

# Legacy-only outputSchema form, 2026 any schema object.
res(L, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}}]}, "legacy outputSchema type not object")
res(N, "tools/list", "ListToolsResult", True, {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}}]}, "2026 outputSchema any schema")
res(L, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object", "required": "a"}}]}, "legacy inputSchema required not strings")
# `$schema` is a string in both eras; legacy `properties` values are objects, 2026 ones any.
for p in (L, N):
    res(p, "tools/list", "ListToolsResult", True, {"tools": [{"name": "t", "inputSchema": {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema"}, "outputSchema": {"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema"}}]}, "$schema strings")
    res(p, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object", "$schema": 5}}]}, "inputSchema $schema not a string")
    res(p, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "$schema": 5}}]}, "outputSchema $schema not a string")
res(L, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": 5}}}]}, "legacy inputSchema property not an object")
res(N, "tools/list", "ListToolsResult", True, {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": 5}}}]}, "2026 inputSchema property any value")
res(L, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "always"}}]}, "taskSupport not an allowed value")

# Legacy results of server requests and initialize.
caps_ok = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": False}, "prompts": {}, "logging": {}}
init = {"protocolVersion": L, "serverInfo": {"name": "s", "version": "1", "title": "S", "websiteUrl": "https://x", "icons": [{"src": "s"}]}}
res(L, "initialize", "InitializeResult", True, dict(init, capabilities=caps_ok))
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={"tools": {"listChanged": "yes"}}), "listChanged not a boolean")
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={"resources": {"subscribe": 1}}), "subscribe not a boolean")
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={}, serverInfo={"name": "s", "version": "1", "icons": [{"src": 1}]}), "icon src not a string")
for content, valid, why in [
    ({"type": "text", "text": "t"}, True, "one text block"),
    ([{"type": "text", "text": "t"}, {"type": "tool_use", "id": "1", "name": "n", "input": {}}], True, "an array of blocks"),
    ({"type": "tool_result", "toolUseId": "1", "content": [{"type": "text", "text": "r"}], "isError": False}, True, "a tool result"),
    ({"type": "tool_use", "id": "1", "name": "n"}, False, "tool_use without input"),
    ({"type": "tool_result", "toolUseId": "1", "content": [{"type": "text"}]}, False, "tool result with a bad block"),
    ({"type": "resource_link", "uri": "u", "name": "n"}, False, "resource link is not sampling content"),
    ({}, False, "empty object"),
    ([], True, "empty array"),
]:
    res(L, "sampling/createMessage", "CreateMessageResult", valid, {"role": "assistant", "model": "m", "content": content}, why)

# Params (legacy requests).
for ref, valid, why in [
    ({"type": "ref/prompt", "name": "p", "title": "P"}, True, "prompt ref"),
    ({"type": "ref/resource", "uri": "u/{x}"}, True, "resource ref"),
    ({"type": "ref/prompt"}, False, "prompt ref without name"),
    ({"type": "ref/resource", "name": "x"}, False, "resource ref without uri"),
    ({"type": "ref/prompt", "uri": "u"}, False, "prompt ref with a uri only"),
]:
    par(L, "completion/complete", "CompleteRequestParams", valid, {"ref": ref, "argument": {"name": "a", "value": "v"}}, why)
for schema, valid, why in [
    ({"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}, True, "form schema"),
    ({"type": "object"}, False, "schema without properties"),
    ({"type": "string", "properties": {}}, False, "schema type not object"),
    ({"type": "object", "properties": {}, "required": "n"}, False, "required not strings"),
    ({"type": "object", "properties": []}, False, "properties not an object"),
]:
    par(L, "elicitation/create", "ElicitRequestFormParams", valid, {"message": "m", "requestedSchema": schema}, why)
for content, valid, why in [
    ({"type": "text", "text": "a"}, True, "text message"),
    ([{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}], True, "array content"),
    ({"type": "text"}, False, "text without text"),
    ({"type": "resource", "resource": {"uri": "u", "text": "t"}}, False, "embedded resource is not sampling content"),
]:
    par(L, "sampling/createMessage", "CreateMessageRequestParams", valid, {"messages": [{"role": "user", "content": content}], "maxTokens": 10}, why)
init_params = {"protocolVersion": L, "clientInfo": {"name": "c", "version": "1"}}
par(L, "initialize", "InitializeRequestParams", True, dict(init_params, capabilities={"roots": {"listChanged": True}, "sampling": {}}))
par(L, "initialize", "InitializeRequestParams", False, dict(init_params, capabilities={"roots": {"listChanged": 1}}), "roots listChanged not a boolean")
par(L, "initialize", "InitializeRequestParams", False, dict(init_params, capabilities={}, clientInfo={"name": "c", "version": "1", "websiteUrl": 5}), "websiteUrl not a string")

# Annotation priorities are from 0 to 1; experimental capabilities are objects; an accepted
# elicitation's content values are primitives or arrays of strings.
for prio, valid in [(0, True), (1, True), (0.5, True), (5, False), (1.0000001, False), (-0.5, False)]:
    res(L, "tools/call", "CallToolResult", valid,
        {"content": [{"type": "text", "text": "a", "annotations": {"priority": prio}}]}, f"priority {prio}")
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={"experimental": {"x": 5}}), "experimental capability not an object")
par(L, "initialize", "InitializeRequestParams", False, dict(init_params, capabilities={"experimental": {"x": []}}), "experimental capability not an object")
for content, valid, why in [
    ({"a": "s", "b": 1, "c": 1.5, "d": True, "e": None, "f": ["x", "y"]}, True, "every field kind"),
    ({"a": {"b": 1}}, False, "a nested object"),
    ({"a": [1]}, False, "an array of numbers"),
    ([], False, "content not an object"),
]:
    res(L, "elicitation/create", "ElicitResult", valid, {"action": "accept", "content": content}, why)

# Trial, session 24 (reverse findings): nested `_meta`, sampling's optional members,
# completion context, stopReason, root URIs, Implementation description.
for p in (L, N):
    res(p, "tools/call", "CallToolResult", True, {"content": [dict(T, _meta={"k": 1})]}, "block _meta")
    res(p, "tools/call", "CallToolResult", False, {"content": [dict(T, _meta=[])]}, "block _meta not an object")
    res(p, "resources/read", "ReadResourceResult", False, {"contents": [{"uri": "u", "text": "t", "_meta": 1}]}, "contents _meta not an object")
    res(p, "tools/list", "ListToolsResult", False, {"tools": [{"name": "t", "inputSchema": {"type": "object"}, "_meta": "x"}]}, "tool _meta not an object")
    res(p, "prompts/list", "ListPromptsResult", False, {"prompts": [{"name": "p", "_meta": []}]}, "prompt _meta not an object")
sampling_ok = {"messages": [{"role": "user", "content": T, "_meta": {}}], "maxTokens": 5,
               "systemPrompt": "s", "includeContext": "thisServer", "temperature": 0.7, "stopSequences": ["x"],
               "metadata": {"a": 1}, "modelPreferences": {"hints": [{"name": "claude"}, {}], "costPriority": 0, "speedPriority": 1, "intelligencePriority": 0.5},
               "tools": [{"name": "t", "inputSchema": {"type": "object"}}], "toolChoice": {"mode": "auto"}}
par(L, "sampling/createMessage", "CreateMessageRequestParams", True, sampling_ok, "every optional member")
for patch, why in [
    ({"systemPrompt": 1}, "systemPrompt not a string"),
    ({"includeContext": "bogus"}, "includeContext not an allowed value"),
    ({"temperature": "hot"}, "temperature not a number"),
    ({"stopSequences": [1]}, "stopSequences not strings"),
    ({"metadata": []}, "metadata not an object"),
    ({"modelPreferences": {"costPriority": 2}}, "priority above 1"),
    ({"modelPreferences": {"hints": [{"name": 1}]}}, "hint name not a string"),
    ({"tools": [{"name": "t"}]}, "tool without inputSchema"),
    ({"toolChoice": {"mode": "always"}}, "toolChoice mode not an allowed value"),
    ({"messages": [{"role": "user", "content": T, "_meta": 1}]}, "message _meta not an object"),
]:
    par(L, "sampling/createMessage", "CreateMessageRequestParams", False, dict(sampling_ok, **patch), why)
res(L, "sampling/createMessage", "CreateMessageResult", True, {"role": "assistant", "model": "m", "content": T, "stopReason": "endTurn"})
# A tool result handed back to the model: its `structuredContent` is an object in the legacy
# revisions, any value in 2026-07-28 (inside `inputRequests` there).
for sc, valid in [({"a": 1}, True), ([1, 2], False), (5, False)]:
    block = {"type": "tool_result", "toolUseId": "u", "content": [T], "structuredContent": sc}
    why = "legacy tool_result structuredContent " + ("an object" if valid else "not an object")
    par(L, "sampling/createMessage", "CreateMessageRequestParams", valid, {"messages": [{"role": "user", "content": [block]}], "maxTokens": 10}, why)
    res(L, "sampling/createMessage", "CreateMessageResult", valid, {"role": "user", "model": "m", "content": [block]}, why)
res(L, "sampling/createMessage", "CreateMessageResult", False, {"role": "assistant", "model": "m", "content": T, "stopReason": 1}, "stopReason not a string")
comp = {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}}
par(L, "completion/complete", "CompleteRequestParams", True, dict(comp, context={"arguments": {"x": "1"}}), "context arguments")
par(L, "completion/complete", "CompleteRequestParams", False, dict(comp, context={"arguments": {"x": 1}}), "context argument not a string")
par(L, "completion/complete", "CompleteRequestParams", False, dict(comp, context=[]), "context not an object")
res(L, "roots/list", "ListRootsResult", True, {"roots": [{"uri": "file:///home/a", "name": "a", "_meta": {}}]})
res(L, "roots/list", "ListRootsResult", False, {"roots": [{"uri": "https://example.com/a"}]}, "root not a file:// URI")
# The schemas say a root's URI "must start with file://" and the TypeScript SDK (1.32.2,
# `z.string().startsWith('file://')`) refuses another; the Python SDK's wire model types it
# `str`. mcpwire follows the schema and the stricter reader.
cases[-1]["python_sdk"] = True
cases[-1]["note"] += " (the TypeScript SDK refuses it; the Python SDK's wire model takes any string)"
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={}, serverInfo={"name": "s", "version": "1", "description": 5}), "description not a string")

# 2026 requests: the client capabilities in `_meta` are typed as the legacy `initialize` ones.
def call26(caps):
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "_meta": {
        "io.modelcontextprotocol/protocolVersion": N, "io.modelcontextprotocol/clientCapabilities": caps}}}
msg(N, "CallToolRequest", True, call26({"sampling": {}, "elicitation": {"form": {}}, "roots": {}, "experimental": {"x": {}}}))
for caps, why in [({"sampling": 5}, "sampling not an object"), ({"elicitation": []}, "elicitation not an object"),
                  ({"roots": "yes"}, "roots not an object"), ({"experimental": {"x": 1}}, "experimental capability not an object")]:
    msg(N, "CallToolRequest", False, call26(caps), why, rule="reserved-meta-value")

# 2026 requests: `_meta` clientInfo is an Implementation, icons included.
def info26(info):
    m = call26({})
    m["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = info
    return m
msg(N, "CallToolRequest", True, info26({"name": "c", "version": "1", "icons": [
    {"src": "https://x/i.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}]}), "clientInfo with icons")
for icons, why in [([{"mimeType": "image/png"}], "icon without src"), ([{"src": 5}], "icon src not a string"),
                   ([{"src": "a", "theme": "blue"}], "icon theme not light or dark"), (["a"], "icon not an object")]:
    msg(N, "CallToolRequest", False, info26({"name": "c", "version": "1", "icons": icons}), why, rule="reserved-meta-value")

# Capability sub-objects (2025-11-25 sampling, elicitation and tasks; 2026 the same in
# `_meta`), and 2026 extension settings.
par(L, "initialize", "InitializeRequestParams", True, dict(init_params, capabilities={
    "sampling": {"context": {}, "tools": {}}, "elicitation": {"form": {}, "url": {}},
    "tasks": {"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}}}), "every client capability")
for caps, why in [({"sampling": {"tools": []}}, "sampling.tools not an object"),
                  ({"elicitation": {"url": True}}, "elicitation.url not an object"),
                  ({"tasks": {"list": 5}}, "tasks.list not an object")]:
    par(L, "initialize", "InitializeRequestParams", False, dict(init_params, capabilities=caps), why)
res(L, "initialize", "InitializeResult", False, dict(init, capabilities={"tasks": {"cancel": []}}), "server tasks.cancel not an object")
msg(N, "CallToolRequest", True, call26({"extensions": {"com.example/x": {}}}), "extension settings")
for caps, why in [({"sampling": {"context": 1}}, "sampling.context not an object"),
                  ({"elicitation": {"form": []}}, "elicitation.form not an object"),
                  ({"extensions": {"com.example/x": 1}}, "extension settings not an object")]:
    msg(N, "CallToolRequest", False, call26(caps), why, rule="reserved-meta-value")

# 2026 retried requests: each `inputResponses` value is a CreateMessageResult, a
# ListRootsResult or an ElicitResult.
def retry26(responses):
    m = call26({})
    m["params"].update(requestState="s", inputResponses=responses)
    return m
msg(N, "CallToolRequest", True, retry26({
    "e": {"action": "accept", "content": {"name": "x", "n": 1, "tags": ["a"]}},
    "r": {"roots": [{"uri": "file:///a", "name": "a"}]},
    "s": {"role": "assistant", "model": "m", "content": [T], "stopReason": "endTurn"}}), "one response of each kind")
for responses, why in [({"k": {}}, "an empty response"), ({"k": {"action": "maybe"}}, "action not an allowed value"),
                       ({"k": {"roots": [{"uri": 1}]}}, "root uri not a string"),
                       ({"k": {"role": "assistant", "model": "m", "content": {"type": "text"}}}, "sampling content without text"),
                       ({"k": 5}, "a response that is not an object"),
                       ({"k": {"action": "accept", "content": {"a": {"b": 1}}}}, "elicited value an object")]:
    msg(N, "CallToolRequest", False, retry26(responses), why, rule="param-type")

msg(N, "CallToolRequest", True, retry26({"s": {"role": "user", "model": "m", "content": [
    {"type": "tool_result", "toolUseId": "u", "content": [T], "structuredContent": [1, 2]}]}}),
    "2026 tool_result structuredContent any value")

# Whole notifications.
msg(L, "CancelledNotification", False, {"jsonrpc": "2.0", "method": "notifications/cancelled"}, "cancelled without params")
msg(L, "CancelledNotification", True, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, "cancelled with empty params (2025-11-25 task form)")
msg(L, "CancelledNotification", True, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "r"}})

with open("tests/sdk_shapes/cases.json", "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(len(cases), "cases")
