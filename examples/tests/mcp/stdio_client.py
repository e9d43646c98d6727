"""End-to-end check of `toolctl serve --stdio` with the official Python MCP client (mcp 2.3).

Usage: stdio_client.py TOOLCTL [ARGS...]

Starts `TOOLCTL ARGS... serve --stdio --root <temp dir>` through `mcp.client.stdio.stdio_client`,
drives it with `ClientSession` and runs the named checks below in order. Each passing check
prints `ok <name>`; the first failure prints `FAIL <name>: <reason>` and the JSON-RPC traffic
to stderr and exits 1. Everything is bounded by OVERALL_TIMEOUT, so the script never hangs.

The session's streams are tapped (see `Wire`) so checks can assert on what crossed the wire
(progress before the result, the `notifications/cancelled` the client sends), not only on
what the client chose to surface.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from checks import CheckFailed, expect

OVERALL_TIMEOUT = 60.0
CHECK_TIMEOUT = 15.0
SERVER_NAME = "toolctl"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
FILE_NAME = "notes.txt"
# Several lines and non-ASCII text, so a partial or lossy read shows.
FILE_TEXT = "first line\nsecond line: café, 東京\nthird line\n"


@dataclass
class Frame:
    at: float
    direction: str  # "->" client to server, "<-" server to client
    data: dict[str, Any]


@dataclass
class Wire:
    """Every JSON-RPC message between the session and the transport, in order."""

    frames: list[Frame] = field(default_factory=list)
    start: float = field(default_factory=time.monotonic)

    def record(self, direction: str, item: object) -> None:
        if isinstance(item, SessionMessage):
            data = item.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        else:  # the transport hands parse failures up as exceptions
            data = {"transport-exception": repr(item)}
        self.frames.append(Frame(time.monotonic() - self.start, direction, data))

    def dump(self, limit: int = 60) -> str:
        lines = []
        for f in self.frames[-limit:]:
            text = json.dumps(f.data, ensure_ascii=False)
            if len(text) > 400:
                text = text[:400] + f"... ({len(text)} chars)"
            lines.append(f"  {f.at:7.3f}s {f.direction} {text}")
        skipped = len(self.frames) - limit
        head = [f"  ... {skipped} earlier frames"] if skipped > 0 else []
        return "\n".join(head + lines) or "  (none)"


class TapRead:
    """ReadStream wrapper that records what the server sent."""

    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._wire.record("<-", item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> TapRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class TapWrite:
    """WriteStream wrapper that records what the client sent."""

    def __init__(self, inner: Any, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    async def send(self, item: Any) -> None:
        self._wire.record("->", item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> TapWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@dataclass
class Ctx:
    session: ClientSession
    wire: Wire


Check = Callable[[Ctx], Awaitable[None]]
CHECKS: list[tuple[str, Check]] = []


def check(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS.append((name, fn))
        return fn

    return register


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def outgoing_call(wire: Wire, since: int, tool: str) -> dict[str, Any]:
    """The first tools/call request for `tool` the client wrote after frame `since`."""
    for f in wire.frames[since:]:
        d = f.data
        if f.direction == "->" and d.get("method") == "tools/call":
            if d.get("params", {}).get("name") == tool:
                return d
    raise CheckFailed(f"no tools/call for {tool} on the wire")


async def call_ok(ctx: Ctx, name: str, args: dict[str, Any], **kw: Any) -> types.CallToolResult:
    result = await ctx.session.call_tool(name, args, **kw)
    expect(not result.is_error, f"{name} {json.dumps(args)} failed: {texts(result)}")
    return result


async def call_bad(ctx: Ctx, name: str, args: dict[str, Any], mentions: str) -> None:
    """Bad input must be a tool error the model can read (isError), not a protocol error."""
    what = f"{name} {json.dumps(args)}"
    try:
        result = await ctx.session.call_tool(name, args)
    except MCPError as e:
        raise CheckFailed(f"{what}: protocol error {e.code} {e.message!r}, expected an isError result") from e
    expect(result.is_error is True, f"{what}: isError is {result.is_error!r}, not true: {texts(result)}")
    body = "\n".join(texts(result))
    expect(bool(body), f"{what}: the error result has no text content")
    expect(mentions in body, f"{what}: the error text does not mention {mentions!r}: {body!r}")


@check("initialize")
async def check_initialize(ctx: Ctx) -> None:
    result = await ctx.session.initialize()
    name = result.server_info.name
    expect(name == SERVER_NAME, f"server name is {name!r}, expected {SERVER_NAME!r}")
    expect(result.capabilities.tools is not None, f"no tools capability: {result.capabilities!r}")


@check("tools/list")
async def check_tools_list(ctx: Ctx) -> None:
    listed = await ctx.session.list_tools()
    tools = {t.name: t for t in listed.tools}
    for name in ("get_current_time", "wait_duration", "read_file"):
        expect(name in tools, f"{name} missing from tools/list: {sorted(tools)}")
    # The typed model maps absent hints to None, so read the raw wire result: a hint must be
    # present and boolean, since clients assume the worst (destructive, open world) when absent.
    raw = next(
        (
            f.data["result"]["tools"]
            for f in reversed(ctx.wire.frames)
            if f.direction == "<-" and "tools" in f.data.get("result", {})
        ),
        None,
    )
    expect(raw is not None, "the tools/list response is not on the wire")
    for tool in raw:
        name = tool["name"]
        expect(isinstance(tool.get("title"), str) and tool["title"] != "", f"{name}: no title")
        schema = tool.get("inputSchema", {})
        expect(schema.get("type") == "object", f"{name}: inputSchema.type is not object: {schema}")
        annotations = tool.get("annotations")
        expect(isinstance(annotations, dict), f"{name}: no annotations")
        for hint in HINTS:
            value = annotations.get(hint)
            expect(isinstance(value, bool), f"{name}: annotations.{hint} is {value!r}, not a boolean")
    schema = tools["get_current_time"].output_schema
    expect(schema is not None and schema.get("type") == "object", f"get_current_time's outputSchema: {schema!r}")


@check("get_current_time")
async def check_get_current_time(ctx: Ctx) -> None:
    # call_tool also validates structuredContent against the listed outputSchema.
    result = await call_ok(ctx, "get_current_time", {"timezone": "Asia/Tokyo"})
    structured = result.structured_content
    expect(isinstance(structured, dict), f"no structuredContent: {result!r}")
    zone = structured.get("timezone")
    expect(zone == "Asia/Tokyo", f"structuredContent.timezone is {zone!r}")
    body = texts(result)
    expect(len(body) == 1, f"expected one text block, got {len(body)}: {result.content!r}")
    try:
        mirrored = json.loads(body[0])
    except json.JSONDecodeError as e:
        raise CheckFailed(f"the text content is not JSON ({e}): {body[0]!r}") from e
    expect(mirrored == structured, f"the text mirror {mirrored} differs from structuredContent {structured}")


@check("read_file")
async def check_read_file(ctx: Ctx) -> None:
    result = await call_ok(ctx, "read_file", {"path": FILE_NAME})
    structured = result.structured_content or {}
    content = structured.get("content")
    expect(content == FILE_TEXT, f"content is {content!r}, expected {FILE_TEXT!r}")
    expect(structured.get("truncated") is False, f"truncated is {structured.get('truncated')!r}")


@check("bad input")
async def check_bad_input(ctx: Ctx) -> None:
    await call_bad(ctx, "get_current_time", {"timezone": "Mars/Base"}, "Mars/Base")
    await call_bad(ctx, "wait_duration", {}, "seconds")
    await call_bad(ctx, "wait_duration", {"seconds": "soon"}, "seconds")


@check("unknown tool")
async def check_unknown_tool(ctx: Ctx) -> None:
    try:
        result = await ctx.session.call_tool("get_curent_time", {})
    except MCPError as e:
        expect(e.code == types.INVALID_PARAMS, f"code {e.code}, not {types.INVALID_PARAMS}: {e.message!r}")
        expect("get_current_time" in e.message, f"the error does not suggest get_current_time: {e.message!r}")
        return
    raise CheckFailed(f"expected a protocol error, got a result (isError={result.is_error}): {texts(result)}")


@check("progress")
async def check_progress(ctx: Ctx) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    since = len(ctx.wire.frames)
    result = await call_ok(ctx, "wait_duration", {"seconds": 0.5}, progress_callback=on_progress)
    delivered = list(seen)  # what the callback had been given when the result came back
    structured = result.structured_content or {}
    expect(structured.get("seconds") == 0.5, f"structuredContent is {structured!r}")

    request = outgoing_call(ctx.wire, since, "wait_duration")
    token = request["params"].get("_meta", {}).get("progressToken")
    expect(token is not None, f"the client sent no progressToken: {request}")
    frames = ctx.wire.frames[since:]
    answers = [i for i, f in enumerate(frames) if f.direction == "<-" and f.data.get("id") == request["id"]]
    answer = answers[0] if answers else None
    expect(answer is not None, "the result is not on the wire")
    on_wire = [
        i
        for i, f in enumerate(frames)
        if f.data.get("method") == "notifications/progress" and f.data["params"].get("progressToken") == token
    ]
    expect(all(i < answer for i in on_wire), f"progress after the result (frames {on_wire}, result {answer})")

    count = len(delivered)
    expect(count >= 5, f"{count} progress notifications before the result, expected at least 5: {delivered}")
    values = [p for p, _, _ in delivered]
    expect(all(a < b for a, b in zip(values, values[1:])), f"progress does not increase: {values}")
    totals = {t for _, t, _ in delivered}
    expect(len(totals) == 1 and None not in totals, f"total missing or changing: {sorted(totals, key=str)}")
    total = totals.pop()
    expect(math.isclose(values[-1], total), f"the last progress is {values[-1]}, expected the total {total}")


@check("cancellation")
async def check_cancellation(ctx: Ctx) -> None:
    # A progress token makes a wait that ignored the cancel visible on the wire: its progress
    # steps (ten at most 3 s apart for 30 s) would keep coming after the cancel.
    async def ignore(progress: float, total: float | None, message: str | None) -> None:
        pass

    since = len(ctx.wire.frames)
    started = anyio.current_time()
    # The 2.3 client cancels by cancelling the calling scope: JSONRPCDispatcher.send_raw_request
    # catches the cancellation and writes `notifications/cancelled` for the request (shielded).
    with anyio.move_on_after(0.3) as scope:
        await ctx.session.call_tool("wait_duration", {"seconds": 30}, progress_callback=ignore)
    ended = anyio.current_time() - started
    expect(scope.cancelled_caught, "wait_duration {seconds: 30} returned before it was cancelled")
    expect(ended < 2.0, f"the cancelled call took {ended:.1f} s to end")

    request = outgoing_call(ctx.wire, since, "wait_duration")
    cancels = [
        f
        for f in ctx.wire.frames[since:]
        if f.direction == "->"
        and f.data.get("method") == "notifications/cancelled"
        and f.data.get("params", {}).get("requestId") == request["id"]
    ]
    expect(len(cancels) == 1, f"{len(cancels)} notifications/cancelled sent for request {request['id']}")

    result = await call_ok(ctx, "get_current_time", {})
    expect(bool(result.structured_content), "the follow-up get_current_time has no structuredContent")
    followed = anyio.current_time() - started
    expect(followed < 5.0, f"the follow-up call ended {followed:.1f} s after the cancelled one started")

    # Past the first progress step of the cancelled wait: nothing more may come for it, neither
    # progress nor a response (the spec says a cancelled request SHOULD NOT be answered).
    await anyio.sleep(max(0.0, 4.0 - (anyio.current_time() - started)))
    token = request["params"].get("_meta", {}).get("progressToken")
    after = [
        f.data
        for f in ctx.wire.frames[since:]
        if f.direction == "<-"
        and f.at > cancels[0].at
        and (f.data.get("id") == request["id"] or f.data.get("params", {}).get("progressToken") == token)
    ]
    expect(not after, f"the server kept working on the cancelled request {request['id']}: {after}")


async def run_checks(argv: list[str]) -> tuple[str, BaseException, Wire] | None:
    """Runs every check; returns the first failure with the traffic so far, or None."""
    with tempfile.TemporaryDirectory(prefix="toolctl-mcp-") as tmp:
        root = Path(tmp)
        (root / FILE_NAME).write_text(FILE_TEXT, encoding="utf-8")
        args = [*argv[1:], "serve", "--stdio", "--root", str(root)]
        params = StdioServerParameters(command=argv[0], args=args)
        wire = Wire()
        current = "start the server"
        try:
            with anyio.fail_after(OVERALL_TIMEOUT):
                async with stdio_client(params) as (read, write):
                    async with ClientSession(TapRead(read, wire), TapWrite(write, wire)) as session:
                        ctx = Ctx(session, wire)
                        for name, fn in CHECKS:
                            current = name
                            try:
                                with anyio.fail_after(CHECK_TIMEOUT):
                                    await fn(ctx)
                            except TimeoutError:
                                return name, CheckFailed(f"no outcome within {CHECK_TIMEOUT:.0f} s"), wire
                            except Exception as e:
                                return name, e, wire
                            print(f"ok {name}", flush=True)
                current = "shut down"
        except Exception as e:  # spawn failure, overall timeout, transport crash
            return current, e, wire
        return None


def main() -> int:
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} TOOLCTL [ARGS...]", file=sys.stderr)
        return 2
    failure = anyio.run(run_checks, sys.argv[1:])
    if failure is None:
        print(f"all {len(CHECKS)} checks passed", flush=True)
        return 0
    name, error, wire = failure
    if isinstance(error, CheckFailed):
        reason = str(error)
    else:  # not an assertion: the traceback says where it came from
        reason = "".join(traceback.format_exception(error)).rstrip()
    print(f"FAIL {name}: {reason}", file=sys.stderr)
    print("JSON-RPC traffic (seconds since start, -> to the server, <- from it):", file=sys.stderr)
    print(wire.dump(), file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
