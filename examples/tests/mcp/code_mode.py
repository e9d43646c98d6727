"""`toolctl serve --code-mode`, seen by the official Python MCP client (mcp 2.3) in each era the
target serves.

Usage: code_mode.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (stateless: both eras, each
call on its own). The server is `toolctl serve --code-mode --code-keep get_current_time`. For
each target and era (`auto`: 2026-07-28; `legacy`: the session era):

- the listing is `execute_code`, `search_tools` and the kept `get_current_time`, and
  `execute_code`'s description carries the bundled tools' stubs;
- a script calls three tools in a loop, catches the error of a zone that does not exist, and
  returns a summary, which comes back as the structured content and the text;
- a script that reaches for the host (`open`) gets the sandbox's PermissionError, and one that
  never ends stops at its time limit, each as an answer the model can act on.

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from checks import expect, run_checks

CHECK_TIMEOUT = 60.0

SCRIPT = """
zones = ["Asia/Tokyo", "Mars/Olympus", "Europe/Paris"]
found = {}
missing = []
for zone in zones:
    try:
        now = await get_current_time(timezone=zone)
        found[zone] = now["utc_offset"]
    except ValueError as e:
        missing.append(str(e).split(":")[0])
meeting = await convert_time(time="09:00", from_timezone="Europe/Paris", to_timezone="Asia/Tokyo")
print(f"{len(found)} zones, {len(missing)} missing")
{"zones": sorted(found), "missing": missing, "tokyo": meeting["target"]["timezone"]}
"""


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_of(target: str) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=["serve", "--stdio", *argv[1:]])
    return target.removeprefix("stateless:")


async def listed(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    expect(
        sorted(tools) == ["execute_code", "get_current_time", "search_tools"],
        f"listed: {sorted(tools)}",
    )
    description = tools["execute_code"].description or ""
    for stub in [
        "async def get_current_time(*, timezone: str | None = None) -> dict:",
        "async def convert_time(*, time: str, from_timezone: str, to_timezone: str) -> dict:",
        "async def search_tools(",
    ]:
        expect(stub in description, f"no `{stub}` in the description")


async def summarised(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("execute_code", {"code": SCRIPT})
    expect(not result.is_error, f"error: {text(result)}")
    data = result.structured_content or {}
    expect(
        data.get("result")
        == {"zones": ["Asia/Tokyo", "Europe/Paris"], "missing": ["invalid_input"], "tokyo": "Asia/Tokyo"},
        f"result: {data}",
    )
    expect(data.get("tool_calls") == 4, f"tool calls: {data.get('tool_calls')}")
    expect(text(result).startswith("2 zones, 1 missing\nResult: "), f"text: {text(result)}")


async def contained(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        escape = await client.call_tool("execute_code", {"code": "open('/etc/passwd').read()"})
        spin = await client.call_tool("execute_code", {"code": "while True:\n    pass"})
    expect("PermissionError" in text(escape), f"open: {text(escape)}")
    expect("root:" not in text(escape), "the file was read")
    expect(
        (spin.structured_content or {}).get("limit") == "cpu_time",
        f"endless loop: {spin.structured_content}",
    )
    expect("cpu_time limit" in text(spin), f"endless loop: {text(spin)}")


def main() -> int:
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} TARGET [TARGET...]", file=sys.stderr)
        return 2
    checks = []
    for target in sys.argv[1:]:
        server = server_of(target)
        label = target.partition(":")[0] if not target.startswith("http") else "sessions"
        for mode in ["auto", "legacy"]:
            era = "2026-07-28" if mode == "auto" else "session"

            def bound(fn: Any, server: Any = server, mode: str = mode) -> Any:
                async def run() -> None:
                    await fn(server, mode)

                return run

            checks.append((f"{label} {era} listing", bound(listed)))
            checks.append((f"{label} {era} a script's summary", bound(summarised)))
            checks.append((f"{label} {era} contained", bound(contained)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
