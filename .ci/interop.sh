#!/usr/bin/env bash
# Interop tests of `mcpwire proxy stdio` and `mcpwire proxy http` with real MCP peers (issue 8):
# the official Python SDK (PyPI `mcp` 2.x) as client, `@modelcontextprotocol/server-everything`
# (npm, stdio) and a small Python SDK server (stdio, and Streamable HTTP with SSE or JSON
# responses) as servers. Installs the peers into target/interop from the registries;
# skips (exit 0, with a clear message) only when a registry cannot be reached.
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_PY_SPEC="${MCP_PY_SPEC:-mcp>=2,<3}"
EVERYTHING_SPEC="${EVERYTHING_SPEC:-@modelcontextprotocol/server-everything@2026.8.31}"
WORK=target/interop

for tool in python3 node npm; do
    if ! command -v "$tool" >/dev/null; then
        echo "interop: FAILED: $tool not found (needed for the interop peers)" >&2
        exit 1
    fi
done

mkdir -p "$WORK"
if [ ! -x "$WORK/venv/bin/python" ]; then
    python3 -m venv "$WORK/venv"
fi
if ! "$WORK/venv/bin/python" -c 'import mcp, sys; sys.exit(0 if int(__import__("importlib.metadata").metadata.version("mcp").split(".")[0]) >= 2 else 1)' 2>/dev/null; then
    if ! "$WORK/venv/bin/pip" download --no-deps -q -d "$WORK/probe" "$MCP_PY_SPEC" >/dev/null 2>&1; then
        echo "interop: SKIPPED: PyPI cannot be reached (pip could not fetch $MCP_PY_SPEC)"
        exit 0
    fi
    "$WORK/venv/bin/pip" install -q "$MCP_PY_SPEC"
fi
EVERYTHING="$WORK/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$EVERYTHING" ]; then
    if ! npm view "$EVERYTHING_SPEC" version >/dev/null 2>&1; then
        echo "interop: SKIPPED: the npm registry cannot be reached (npm view $EVERYTHING_SPEC failed)"
        exit 0
    fi
    npm install --prefix "$WORK/npm" --no-audit --no-fund -q "$EVERYTHING_SPEC"
fi

cargo build --bin mcpwire
"$WORK/venv/bin/python" tests/interop/interop.py \
    --mcpwire target/debug/mcpwire --everything "$EVERYTHING" --work "$WORK/run"
# The verdicts of tests/sdk_shapes/cases.json (which a unit test holds mcpwire to) against
# the same SDK's models.
"$WORK/venv/bin/python" tests/sdk_shapes/verify.py tests/sdk_shapes/cases.json
