"""Drives one full MCP session with the official Python SDK client (PyPI `mcp` 2.x) and writes
its normalised results as JSON, so a direct session and one through `mcpwire proxy stdio` can
be compared.

  python session.py --mode auto|legacy --out RESULTS.json -- SERVER [ARGS...]

The session: connect (auto = server/discover, falling back to initialize; legacy =
initialize), list every tool and call each one with arguments built from its input schema,
collecting progress and log notifications; list and read resources and resource templates;
list and get every prompt; cancel a slow call and check the session still works afterwards.
Elicitation, sampling and roots requests (legacy) and input_required rounds (2026-07-28) are
answered by the callbacks below.
"""
import argparse
import json
import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

# Arguments for tools whose schema alone does not give a quick, deterministic call.
OVERRIDES = {
    "echo": {"text": "hello mcpwire", "message": "hello mcpwire"},
    "add": {"a": 2, "b": 40},
    "get-sum": {"a": 2, "b": 40},
    "fail": {"reason": "deliberate failure"},
    "count": {"steps": 3},
    "slow": {"seconds": 0.05},
    "ask": {"question": "What is your name?"},
    "trigger-long-running-operation": {"duration": 1, "steps": 3},
    "simulate-research-query": {"topic": "mcpwire", "ambiguous": False},
    "get-resource-reference": {"resourceType": "Text", "resourceId": 1},
    "get-resource-links": {"count": 2},
    "get-annotated-message": {"messageType": "success", "includeImage": False},
    "gzip-file-as-resource": {
        "name": "fixture.txt.gz",
        "data": "data:text/plain;base64,aGVsbG8gbWNwd2lyZQ==",
        "outputType": "resourceLink",
    },
}
# (tool, arguments) whose call is cancelled after CANCEL_AFTER seconds.
SLOW = {"slow": {"seconds": 30}, "trigger-long-running-operation": {"duration": 30, "steps": 30}}
CANCEL_AFTER = 0.5
# Tools left out: they start background activity or read the process environment.
SKIP = {"toggle-simulated-logging", "toggle-subscriber-updates", "get-env"}


def default_for(schema):
    if not isinstance(schema, dict):
        return "x"
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    if isinstance(t, list):
        t = t[0]
    return {
        "string": "x",
        "integer": 1,
        "number": 1,
        "boolean": True,
        "array": [],
        "object": {},
    }.get(t, "x")


def args_for(tool):
    schema = tool.input_schema or {}
    props = schema.get("properties", {})
    out = {}
    for name in schema.get("required", []):
        out[name] = default_for(props.get(name))
    for k, v in OVERRIDES.get(tool.name, {}).items():
        if k in props:
            out[k] = v
    return out


def dump(x):
    d = x.model_dump(mode="json", by_alias=True, exclude_none=True)
    d.pop("_meta", None)
    return d


async def run(server_cmd, mode, out_path):
    notes = {"progress": 0, "log": 0, "elicitation": 0, "sampling": 0, "roots": 0}

    async def on_elicit(ctx, params):
        notes["elicitation"] += 1
        return types.ElicitResult(action="accept", content={"name": "mcpwire", "color": "blue"})

    async def on_sample(ctx, params):
        notes["sampling"] += 1
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled by mcpwire interop"),
            model="mcpwire-test-model",
            stop_reason="endTurn",
        )

    async def on_roots(ctx):
        notes["roots"] += 1
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/mcpwire", name="tmp")])

    async def on_log(params):
        notes["log"] += 1

    async def on_progress(progress, total, message):
        notes["progress"] += 1

    params = StdioServerParameters(command=server_cmd[0], args=server_cmd[1:])
    results = {"tools": {}, "resources": {}, "templates": [], "prompts": {}}
    async with Client(
        params,
        mode=mode,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
        logging_callback=on_log,
        log_level="debug",
        read_timeout_seconds=30,
    ) as c:
        results["protocol_version"] = c.protocol_version
        if mode == "legacy" and c.server_capabilities.logging is not None:
            try:
                await c.set_logging_level("debug")
                results["set_level"] = "ok"
            except Exception as e:
                results["set_level"] = str(e)
        tools = (await c.list_tools()).tools
        results["tool_names"] = sorted(t.name for t in tools)
        for t in tools:
            if t.name in SKIP:
                continue
            try:
                r = await c.call_tool(t.name, args_for(t), progress_callback=on_progress)
                results["tools"][t.name] = dump(r)
            except Exception as e:  # an error reply is a result too
                results["tools"][t.name] = {"exception": type(e).__name__, "message": str(e)}
        caps = c.server_capabilities
        if caps.resources is not None:
            res = (await c.list_resources()).resources
            results["resource_uris"] = sorted(str(r.uri) for r in res)
            for r in res[:5]:
                results["resources"][str(r.uri)] = dump(await c.read_resource(str(r.uri)))
            tmpl = (await c.list_resource_templates()).resource_templates
            results["templates"] = sorted(t.uri_template for t in tmpl)
        if caps.prompts is not None:
            for p in (await c.list_prompts()).prompts:
                a = {x.name: "mcpwire" for x in (p.arguments or []) if x.required}
                try:
                    results["prompts"][p.name] = dump(await c.get_prompt(p.name, a))
                except Exception as e:
                    results["prompts"][p.name] = {"exception": type(e).__name__, "message": str(e)}
        # Cancellation: abandon a slow call; the SDK sends notifications/cancelled.
        slow = next((n for n in SLOW if n in results["tool_names"]), None)
        if slow is not None:
            with anyio.move_on_after(CANCEL_AFTER) as scope:
                await c.call_tool(slow, SLOW[slow])
            results["cancelled"] = scope.cancelled_caught
            # The session still works after the cancellation.
            results["after_cancel"] = len((await c.list_tools()).tools)
    results["notifications"] = {k: v > 0 for k, v in notes.items()}
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="auto")
    ap.add_argument("--out", required=True)
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.server[1:] if a.server and a.server[0] == "--" else a.server
    anyio.run(run, cmd, a.mode, a.out)


if __name__ == "__main__":
    sys.exit(main())
