"""Streamable HTTP servers of this workspace driven by the official Python MCP client (mcp 2.3).

Usage: http_client.py TOOLCTL_URL SESSION_URL STATELESS_URL

- TOOLCTL_URL: `toolctl serve --http` (sessions). A session lists and calls tools, then ends:
  the client sends DELETE, which must be answered 200 or 204 (the client logs "Session
  termination failed" for anything else), and the ended session is 404 afterwards.
- SESSION_URL: `conformance-server serve --http` (sessions). `test_sampling` reaches the
  client's sampling callback; a client that declared no sampling gets a tool error at once.
- STATELESS_URL: `conformance-server serve --http --stateless`. `test_sampling` cannot reach the
  client without a session: it must fail at once with a tool error that says so.
- On TOOLCTL_URL and STATELESS_URL, in the client's default mode (2026-07-28) and in legacy
  mode (a session, or session-era requests without one), a call and a listing of a client that
  asks for no progress are answered with one JSON body, and (with sessions, where only the SDK
  streams) a call that asks for progress gets the SDK's SSE stream, with the same result.

Each passing check prints `ok <name>`; the first failure prints `FAIL <name>: <reason>` and
exits 1. Everything is bounded by timeouts, so the script never hangs.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from checks import expect, run_checks

CHECK_TIMEOUT = 20.0
# Well under the 60 s a client waits for an answer that never comes.
AT_ONCE = 1.0


class Warnings(logging.Handler):
    """Every warning the client's loggers emit."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


WARNINGS = Warnings()
logging.getLogger("mcp").addHandler(WARNINGS)


class Exchanges:
    """The method, status and session id of every HTTP exchange, through httpx2's hooks, and
    the media type each JSON-RPC method was answered with."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, str | None]] = []
        self.answered_as: list[tuple[str, str]] = []

    async def on_response(self, response: httpx2.Response) -> None:
        session = response.request.headers.get("mcp-session-id") or response.headers.get("mcp-session-id")
        self.seen.append((response.request.method, response.status_code, session))
        if response.request.method == "POST":
            try:
                method = json.loads(response.request.content).get("method", "")
            except ValueError:
                method = ""
            media = response.headers.get("content-type", "").split(";")[0].strip()
            self.answered_as.append((method, media))

    def client(self) -> httpx2.AsyncClient:
        client = create_mcp_http_client()
        client.event_hooks["response"].append(self.on_response)
        return client


def texts(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="hello from the client"),
        model="test-model",
    )


async def check_session_ends_cleanly(url: str) -> None:
    exchanges = Exchanges()
    async with exchanges.client() as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                expect(any(t.name == "get_current_time" for t in listed.tools), "get_current_time is not listed")
                result = await session.call_tool("get_current_time", {"timezone": "Asia/Tokyo"})
                expect(not result.is_error, f"get_current_time failed: {texts(result)}")
        deletes = [(status, sid) for method, status, sid in exchanges.seen if method == "DELETE"]
        expect(len(deletes) == 1, f"expected one DELETE, saw {exchanges.seen}")
        status, sid = deletes[0]
        expect(status in (200, 204), f"DELETE was answered {status}")
        termination = [m for m in WARNINGS.messages if "termination" in m.lower()]
        expect(not termination, f"the client logged: {termination}")
        # The ended session is gone.
        after = await http.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"Accept": "application/json, text/event-stream", "Mcp-Session-Id": sid or ""},
        )
        expect(after.status_code == 404, f"a request on the ended session got {after.status_code}")


async def call_sampling_tool(url: str, **session_options: Any) -> tuple[types.CallToolResult, float]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, **session_options) as session:
            await session.initialize()
            started = time.monotonic()
            result = await session.call_tool("test_sampling", {"prompt": "Say hello"})
            return result, time.monotonic() - started


async def check_sampling_with_a_session(url: str) -> None:
    result, _ = await call_sampling_tool(url, sampling_callback=sample)
    expect(not result.is_error, f"test_sampling failed: {texts(result)}")
    expect("hello from the client" in texts(result), f"the answer is not the client's: {texts(result)}")


async def check_sampling_without_the_capability(url: str) -> None:
    result, took = await call_sampling_tool(url)
    expect(result.is_error is True, f"expected a tool error, got: {texts(result)}")
    expect("`sampling` capability" in texts(result), f"the error does not name the capability: {texts(result)}")
    expect(took < AT_ONCE, f"the error took {took:.2f} s")


async def check_stateless_sampling_fails_at_once(url: str) -> None:
    result, took = await call_sampling_tool(url, sampling_callback=sample)
    expect(result.is_error is True, f"expected a tool error, got: {texts(result)}")
    body = texts(result)
    expect("this server is stateless" in body and "MCP session" in body, f"the error does not say why: {body}")
    expect(took < AT_ONCE, f"the error took {took:.2f} s")
    print(f"stateless sampling error after {took * 1000:.1f} ms", flush=True)


async def check_answered_with_one_body(
    url: str, tool: str, arguments: dict[str, Any], mode: str, progress_streams: bool
) -> None:
    exchanges = Exchanges()
    async with exchanges.client() as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await client.list_tools()
            plain = await client.call_tool(tool, arguments)
            expect(not plain.is_error, f"{tool} failed: {texts(plain)}")
            progress: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                progress.append(done)

            streamed = await client.call_tool(tool, arguments, progress_callback=on_progress)
    calls = [media for method, media in exchanges.answered_as if method == "tools/call"]
    lists = [media for method, media in exchanges.answered_as if method == "tools/list"]
    expect(calls[:1] == ["application/json"], f"a call without progress was answered as {calls}")
    expect(lists[:1] == ["application/json"], f"a listing was answered as {lists}")
    # A stateless server answers in JSON whoever answers (its SDK path too): only a server with
    # sessions shows which path took the call.
    if progress_streams:
        expect(calls[1:] == ["text/event-stream"], f"a call with progress was answered as {calls}")
    expect(texts(streamed) == texts(plain), f"the answers differ: {texts(plain)!r} {texts(streamed)!r}")


async def run(urls: list[str]) -> int:
    toolctl, with_sessions, stateless = urls
    checks: list[tuple[str, Callable[[], Awaitable[None]]]] = [
        ("session ends cleanly", lambda: check_session_ends_cleanly(toolctl)),
        ("sampling with a session", lambda: check_sampling_with_a_session(with_sessions)),
        ("sampling without the capability", lambda: check_sampling_without_the_capability(with_sessions)),
        ("stateless sampling fails at once", lambda: check_stateless_sampling_fails_at_once(stateless)),
    ]
    for mode in ["auto", "legacy"]:
        era = "2026-07-28" if mode == "auto" else "session era"
        checks.append(
            (
                f"sessions, {era}: answered with one body",
                lambda mode=mode: check_answered_with_one_body(toolctl, "get_current_time", {"timezone": "UTC"}, mode, True),
            )
        )
        checks.append(
            (
                f"stateless, {era}: answered with one body",
                lambda mode=mode: check_answered_with_one_body(stateless, "test_simple_text", {}, mode, False),
            )
        )
    return await run_checks(checks, CHECK_TIMEOUT)


def main() -> int:
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} TOOLCTL_URL SESSION_URL STATELESS_URL", file=sys.stderr)
        return 2
    return anyio.run(run, sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
