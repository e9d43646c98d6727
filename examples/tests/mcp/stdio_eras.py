"""A stdio server of this workspace driven by the official Python MCP client (mcp 2.3) in both
eras: `Client` in its default mode (`auto`: `server/discover`, then protocol 2026-07-28, every
request saying who is asking) and in `legacy` mode (the `initialize` handshake).

Usage: stdio_eras.py SERVER [ARGS...]   (SERVER ARGS... serve --stdio is started for each client)

- The default mode speaks 2026-07-28: results carry the server's info, listings cache hints.
- Logs by request: a 2026-07-28 call gets `notifications/message` only when the client opts in
  with a log level, and only at or above it; a legacy session gets them as `logging/setLevel`
  says.
- Progress reaches the client in both eras, before the result.

Each passing check prints `ok <name>`; the first failure prints `FAIL <name>: <reason>` and
exits 1. Everything is bounded by timeouts, so the script never hangs.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from checks import expect, run_checks

CHECK_TIMEOUT = 20.0


def params(argv: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=argv[0], args=[*argv[1:], "serve", "--stdio"])


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def logged(argv: list[str], mode: str, level: str | None) -> list[str]:
    """The levels of the log messages one call of `test_tool_with_logging` gets."""
    levels: list[str] = []

    async def on_log(message: types.LoggingMessageNotificationParams) -> None:
        levels.append(message.level)

    async with Client(params(argv), mode=mode, log_level=level, logging_callback=on_log) as client:
        if mode == "legacy" and level is not None:
            await client.set_logging_level(level)
        result = await client.call_tool("test_tool_with_logging", {})
        expect(not result.is_error, f"the call failed: {text(result)}")
        expect(text(result) == "Logging test completed", f"result: {text(result)}")
    return levels


def main() -> int:
    argv = sys.argv[1:]
    if not argv:
        print(f"usage: {sys.argv[0]} SERVER [ARGS...]", file=sys.stderr)
        return 2

    async def modern() -> None:
        async with Client(params(argv)) as client:
            expect(client.protocol_version == "2026-07-28", f"spoke {client.protocol_version}")
            listed = await client.session.list_tools()
            names = [t.name for t in listed.tools]
            expect("test_tool_with_logging" in names, f"tools: {names}")
            expect(listed.ttl_ms is not None and listed.ttl_ms > 0, f"ttlMs: {listed.ttl_ms}")
            expect(listed.cache_scope == "public", f"cacheScope: {listed.cache_scope}")
            result = await client.call_tool("test_simple_text", {})
            expect(not result.is_error, text(result))
            meta: dict[str, Any] = result.meta or {}
            info = meta.get("io.modelcontextprotocol/serverInfo")
            expect(isinstance(info, dict) and bool(info.get("name")), f"_meta: {meta}")

    async def no_logs_unasked() -> None:
        levels = await logged(argv, "auto", None)
        expect(levels == [], f"a call that did not opt in got logs: {levels}")

    async def logs_when_asked() -> None:
        levels = await logged(argv, "auto", "info")
        expect(levels == ["info"] * 3, f"logs at info: {levels}")
        levels = await logged(argv, "auto", "warning")
        expect(levels == [], f"info logs reached a call that asked for warning: {levels}")

    async def legacy_logs() -> None:
        levels = await logged(argv, "legacy", None)
        expect(levels == ["info"] * 3, f"a session gets logs by default: {levels}")
        levels = await logged(argv, "legacy", "error")
        expect(levels == [], f"after setLevel error: {levels}")

    async def progress(mode: str) -> None:
        seen: list[float] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            seen.append(done)

        async with Client(params(argv), mode=mode) as client:
            result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            expect(not result.is_error, text(result))
        expect(seen == [0, 50, 100], f"progress in {mode}: {seen}")

    async def progress_modern() -> None:
        await progress("auto")

    async def progress_legacy() -> None:
        await progress("legacy")

    checks = [
        ("2026-07-28 by default", modern),
        ("no logs unasked", no_logs_unasked),
        ("logs at the level asked", logs_when_asked),
        ("session logs by setLevel", legacy_logs),
        ("progress in 2026-07-28", progress_modern),
        ("progress in a session", progress_legacy),
    ]
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
