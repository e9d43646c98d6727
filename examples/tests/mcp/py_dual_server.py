"""The conformance server's tools that `differential.py` compares, written for the Python SDK's own
dual-era server (`mcp.server.MCPServer`, mcp 2.3), served on stdio.

Each tool answers as `conformance-server`'s tool of the same name does (same names, arguments
and texts), with the SDK's own primitives: `ctx.log`, `ctx.report_progress`, and for
elicitation `ctx.elicit` in a session, `InputRequiredResult` and `ctx.input_responses` in
2026-07-28, where the SDK leaves multi round-trip requests to the tool.
"""

from __future__ import annotations

import json
import warnings

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

warnings.simplefilter("ignore")  # logging is deprecated upstream (SEP-2577), still served

server = MCPServer("py-dual")


@server.tool(structured_output=False)
def test_simple_text() -> str:
    """Returns a fixed text. Use it to test text results."""
    return "This is a simple text response for testing."


@server.tool(structured_output=False)
async def test_tool_with_logging(ctx: Context) -> str:
    """Logs three messages while it runs, then returns."""
    for message in ["Tool execution started", "Tool processing data", "Tool execution completed"]:
        await ctx.log("info", message, logger_name="test_tool_with_logging")
        await anyio.sleep(0.05)
    return "Logging test completed"


@server.tool(structured_output=False)
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress at 0, 50 and 100 percent, then returns."""
    for done in (0, 50, 100):
        await ctx.report_progress(done, 100, f"Completed step {done // 50 + 1} of 3")
        await anyio.sleep(0.05)
    return "Progress test completed"


@server.tool(structured_output=False)
def test_error_handling() -> str:
    """Always fails with the same message."""
    raise ToolError("This tool intentionally returns an error for testing")


class Details(BaseModel):
    username: str
    email: str


SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "Your username"},
        "email": {"type": "string", "description": "Your email address"},
    },
    "required": ["username", "email"],
}


@server.tool(structured_output=False)
async def test_elicitation(message: str, ctx: Context) -> str | types.InputRequiredResult:
    """Asks the user for a username and an email, and returns the answer."""
    if (ctx.protocol_version or "") >= "2026-07-28":
        answer = (ctx.input_responses or {}).get("details")
        if answer is None:
            request = {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": SCHEMA}}
            return types.InputRequiredResult(input_requests={"details": request}, request_state="round-1")
        result = answer if isinstance(answer, dict) else answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        elicited = await ctx.elicit(message, Details)
        result = {"action": elicited.action}
        if elicited.action == "accept":
            result["content"] = elicited.data.model_dump()
    return "User response: " + json.dumps(result, separators=(",", ":"))


if __name__ == "__main__":
    server.run("stdio")
