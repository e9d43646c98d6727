"""This project's server against the Python SDK's own dual-era server (`mcp.server.MCPServer`, mcp
2.3), the same tools on each, both driven by the official Python client in its default mode
(`auto`: 2026-07-28) and in `legacy` mode (the `initialize` handshake), over stdio.

Usage: differential.py CONFORMANCE_SERVER

CONFORMANCE_SERVER is started as `CONFORMANCE_SERVER serve --stdio`; the Python SDK's server is
`py_dual_server.py` beside this script, which writes the same tools with the SDK's primitives.

Observed from each, per mode, and compared field by field: the protocol spoken; the listing
(names, required arguments); a text result; a tool error; an unknown tool; the log messages a
call gets without asking and when asking for `info`; progress; and elicitation: in 2026-07-28
the first round's `InputRequiredResult` (its shape, one elicitation request, a `requestState`),
then the answer the retry brings; in a session the request the client is sent.

Where the two differ, the specification decides: a difference the spec settles against the
SDK is listed in SDK_DEVIATIONS with the rule, and this project must give the spec's answer;
any other difference fails. Prints `ok <field> <mode>` per comparison and `all N checks
passed`.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

warnings.simplefilter("ignore")

TOOLS = ["test_elicitation", "test_error_handling", "test_simple_text", "test_tool_with_logging", "test_tool_with_progress"]
ANSWER = {"username": "ada", "email": "ada@example.org"}

# What the spec says where the SDK's server answers otherwise: (field, mode) -> (the spec's
# answer, the rule). This project must give the spec's answer.
SDK_DEVIATIONS: dict[tuple[str, str], tuple[Any, str]] = {
    ("unknown tool", "auto"): (
        ["protocol error", -32602],
        "2026-07-28 server/tools: an unknown tool is a protocol error (JSON-RPC -32602), not an isError result",
    ),
    ("unknown tool", "legacy"): (
        ["protocol error", -32602],
        "2025-11-25 server/tools: an unknown tool is a protocol error (JSON-RPC -32602), not an isError result",
    ),
}

# Where the spec allows both answers: (field, mode) -> (this project's answer, why the SDK's
# differs). The SDK's answer is shown, not compared.
SPEC_ALLOWS: dict[tuple[str, str], tuple[Any, str]] = {
    ("logs asking info", "legacy"): (
        ["info", "info", "info"],
        "the SDK's server declares no logging capability in a session and refuses logging/setLevel, "
        "which the spec allows; this server declares it and filters by it",
    ),
    ("logs asking warning", "legacy"): (
        [],
        "as above: after logging/setLevel warning no info message may reach the client",
    ),
}


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


async def observe(server: StdioServerParameters, mode: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content=dict(ANSWER))

    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        seen["protocol"] = client.protocol_version if mode == "auto" else "session"
        listed = await client.session.list_tools()
        seen["listing"] = {
            t.name: sorted((t.input_schema or {}).get("required", [])) for t in listed.tools if t.name in TOOLS
        }
        result = await client.call_tool("test_simple_text", {})
        seen["text result"] = [result.is_error or False, texts(result)]
        result = await client.call_tool("test_error_handling", {})
        # The wording around the tool's own message is each server's (the SDK prefixes it).
        said = any("This tool intentionally returns an error for testing" in t for t in texts(result))
        seen["tool error"] = [result.is_error, said]
        try:
            result = await client.call_tool("no_such_tool", {})
            seen["unknown tool"] = ["isError result", result.is_error]
        except MCPError as e:
            seen["unknown tool"] = ["protocol error", e.error.code]

        progress: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(done)

        await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        seen["progress"] = progress

        if mode == "auto":
            first = await client.session.call_tool(
                "test_elicitation", {"message": "Who are you?"}, allow_input_required=True
            )
            requests = getattr(first, "input_requests", None) or {}
            seen["elicitation round"] = [
                getattr(first, "result_type", "complete"),
                sorted(r.method for r in requests.values()),
                sorted(getattr(r.params, "message", None) for r in requests.values()),
                bool(getattr(first, "request_state", None)),
            ]
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        seen["elicitation"] = [asked, texts(result)]

    for level in (None, "info", "warning"):
        levels: list[str] = []

        async def on_log(message: types.LoggingMessageNotificationParams) -> None:
            levels.append(message.level)

        opt_in = level if mode == "auto" else None
        field = f"logs asking {level or 'nothing'}"
        async with Client(server, mode=mode, log_level=opt_in, logging_callback=on_log) as client:
            if mode == "legacy" and level is not None:
                try:
                    await client.set_logging_level(level)
                except MCPError as e:
                    seen[field] = ["logging/setLevel refused", e.error.code]
                    continue
            await client.call_tool("test_tool_with_logging", {})
        seen[field] = levels
    return seen


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} CONFORMANCE_SERVER", file=sys.stderr)
        return 2
    ours = StdioServerParameters(command=sys.argv[1], args=["serve", "--stdio"])
    theirs = StdioServerParameters(command=sys.executable, args=[str(Path(__file__).with_name("py_dual_server.py"))])
    checks = 0
    failures: list[str] = []
    for mode in ("auto", "legacy"):
        a = anyio.run(observe, ours, mode)
        b = anyio.run(observe, theirs, mode)
        for field in sorted(set(a) | set(b)):
            checks += 1
            mine, sdk = a.get(field), b.get(field)
            allowed = SPEC_ALLOWS.get((field, mode))
            if allowed is not None:
                spec, why = allowed
                if mine != spec:
                    failures.append(f"{field} ({mode}): expected {spec!r}; this project gave {mine!r}")
                else:
                    print(f"ok {field} {mode}: {mine!r}; the SDK gives {sdk!r} ({why})")
                continue
            deviation = SDK_DEVIATIONS.get((field, mode))
            if deviation is not None:
                spec, rule = deviation
                if mine != spec:
                    failures.append(f"{field} ({mode}): the spec says {spec!r} ({rule}); this project gave {mine!r}")
                elif sdk == spec:
                    failures.append(f"{field} ({mode}): the SDK now agrees with the spec; drop the deviation")
                else:
                    print(f"ok {field} {mode}: the spec's answer {spec!r}; the SDK gives {sdk!r} ({rule})")
                continue
            if mine != sdk:
                failures.append(f"{field} ({mode}): this project {mine!r}, the SDK's server {sdk!r}")
            else:
                print(f"ok {field} {mode}: {mine!r}")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"all {checks} checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
