"""A small MCP server on the official Python SDK (PyPI `mcp` 2.x) for the interop tests.

Tools cover plain results, structured output, errors, progress, logging, a slow call (for
cancellation) and elicitation, sampling and roots round trips (input_required results on
2026-07-28, server-to-client requests on legacy revisions); plus one resource, one resource
template and one prompt. Runs on stdio.
"""
from typing import Annotated

import anyio
import mcp_types as types
from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.resolve import ListRoots, Sample

server = MCPServer("mcpwire-interop-py", instructions="mcpwire interop fixture")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


@server.tool()
async def count(steps: int, ctx: Context) -> str:
    """Report progress `steps` times, logging each step."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await ctx.info(f"step {i + 1} of {steps}")
    return f"counted {steps}"


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer (cancel it to test cancellation)."""
    await anyio.sleep(seconds)
    return "done"


class Answer(BaseModel):
    name: str


def ask_name(question: str) -> Elicit[Answer]:
    return Elicit(question, Answer)


@server.tool()
async def ask(question: str, answer: Annotated[Answer, Resolve(ask_name)]) -> str:
    """Ask the client for a name (elicitation)."""
    return f"hello {answer.name}"


def want_sample() -> Sample:
    return Sample(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hi."))],
        max_tokens=16,
    )


@server.tool()
async def sample(result: Annotated[types.CreateMessageResult, Resolve(want_sample)]) -> str:
    """Sample the client's model (sampling)."""
    return f"model said: {result.content.text}"


def want_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def roots(result: Annotated[types.ListRootsResult, Resolve(want_roots)]) -> str:
    """List the client's roots."""
    return ",".join(str(r.uri) for r in result.roots)


@server.resource("fixture://hello", mime_type="text/plain")
def hello() -> str:
    """A static text resource."""
    return "hello from the fixture"


@server.resource("fixture://items/{item}")
def item(item: str) -> str:
    """A templated resource."""
    return f"item {item}"


@server.prompt()
def greet(name: str) -> str:
    """A greeting prompt."""
    return f"Please greet {name} warmly."


if __name__ == "__main__":
    server.run("stdio")
