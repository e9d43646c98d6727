"""Concurrent MCP sessions through a load balancer, driven by the official Python client (mcp 2.3).

Usage: lb_sessions.py URL SESSIONS ROUNDS

Opens SESSIONS Streamable HTTP sessions on URL at once. Each does the handshake (`initialize`, so
the server hands out an `Mcp-Session-Id`), then ROUNDS times:

- calls `test_elicitation`: the server asks this client for a username and an email, the
  callback answers with values unique to the session and round, and the result must quote them,
  so the answer reached the very instance (and session) that asked;
- calls `test_tool_with_progress`: progress 0, 50 and 100 of 100 must arrive before the result.

Every HTTP exchange is seen through httpx event hooks, so the script also checks what the
session API hides: each POST, the GET stream and the closing DELETE carried the session's id and
got a 2xx (an instance that does not know the session answers 404, except to DELETE, which
rmcp answers 202 whatever the id: the caller checks where the DELETE went in the proxy's log).

Prints `session <n> <id> <requests>` per session, then `all <n> sessions passed`, and exits 0;
on the first failure prints `FAIL session <n>: <reason>` with that session's HTTP exchanges to
stderr and exits 1. Everything is bounded by OVERALL_TIMEOUT.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import CheckFailed, expect

OVERALL_TIMEOUT = 60.0
CALL_TIMEOUT = 15.0
SESSION_HEADER = "mcp-session-id"


@dataclass
class Exchange:
    method: str
    status: int
    sent_id: str | None  # the Mcp-Session-Id the request carried
    got_id: str | None  # the one the response carried


@dataclass
class Record:
    """One session's HTTP traffic, as the hooks saw it."""

    exchanges: list[Exchange] = field(default_factory=list)

    async def on_response(self, response: httpx2.Response) -> None:
        self.exchanges.append(
            Exchange(
                response.request.method,
                response.status_code,
                response.request.headers.get(SESSION_HEADER),
                response.headers.get(SESSION_HEADER),
            )
        )

    def dump(self) -> str:
        return "\n".join(
            f"  {e.method} -> {e.status} (sent id {e.sent_id}, got id {e.got_id})" for e in self.exchanges
        ) or "  (none)"


def texts(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def run_session(url: str, n: int, rounds: int, record: Record) -> str:
    """One session's checks; returns its id."""
    answers: list[dict[str, str]] = []

    async def on_elicit(
        context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        content = {"username": f"user-{n}-{len(answers)}", "email": f"s{n}r{len(answers)}@example.com"}
        answers.append(content)
        return types.ElicitResult(action="accept", content=content)

    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(CALL_TIMEOUT, read=CALL_TIMEOUT),
        event_hooks={"response": [record.on_response]},
    )
    async with http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(
                read, write, read_timeout_seconds=CALL_TIMEOUT, elicitation_callback=on_elicit
            ) as session:
                await session.initialize()
                ids = {e.got_id for e in record.exchanges if e.got_id}
                expect(len(ids) == 1, f"the handshake gave session ids {ids}, expected one")
                session_id = ids.pop()

                for r in range(rounds):
                    result = await session.call_tool("test_elicitation", {"message": f"round {r}"})
                    body = texts(result)
                    expect(not result.is_error, f"test_elicitation failed: {body}")
                    expect(len(answers) == r + 1, f"{len(answers)} elicitations after {r + 1} calls")
                    for value in answers[r].values():
                        expect(value in body, f"the result does not quote our answer {value!r}: {body!r}")

                    seen: list[tuple[float, float | None]] = []

                    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                        seen.append((progress, total))

                    result = await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
                    expect(not result.is_error, f"test_tool_with_progress failed: {texts(result)}")
                    got = [p for p, _ in seen]
                    expect(got == [0, 50, 100], f"progress {seen}, expected 0, 50 and 100 of 100")
                    expect(all(t == 100 for _, t in seen), f"progress totals {seen}, expected 100")

                # The GET stream opens in the background after the handshake; wait for its
                # answer so the check below covers it.
                with anyio.fail_after(CALL_TIMEOUT):
                    while not any(e.method == "GET" for e in record.exchanges):
                        await anyio.sleep(0.02)
    # The transport sends DELETE as it closes.
    for e in record.exchanges[1:]:
        expect(e.sent_id == session_id, f"a {e.method} carried session id {e.sent_id}, not {session_id}")
    for e in record.exchanges:
        expect(200 <= e.status < 300, f"a {e.method} was answered {e.status}")
    methods = {e.method for e in record.exchanges}
    expect({"POST", "GET", "DELETE"} <= methods, f"methods seen: {sorted(methods)}")
    return session_id


async def run(url: str, sessions: int, rounds: int) -> tuple[int, BaseException, Record] | None:
    records = [Record() for _ in range(sessions)]
    ids: list[str | None] = [None] * sessions
    failure: tuple[int, BaseException, Record] | None = None

    async def one(n: int) -> None:
        nonlocal failure
        try:
            ids[n] = await run_session(url, n, rounds, records[n])
        except BaseException as e:  # noqa: BLE001 - reported with the session's traffic
            if failure is None:
                failure = (n, e, records[n])
            raise

    try:
        with anyio.fail_after(OVERALL_TIMEOUT):
            async with anyio.create_task_group() as tg:
                for n in range(sessions):
                    tg.start_soon(one, n)
    except BaseException as e:  # noqa: BLE001
        return failure or (-1, e, Record())
    for n, session_id in enumerate(ids):
        print(f"session {n} {session_id} {len(records[n].exchanges)}", flush=True)
    return None


def main() -> int:
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} URL SESSIONS ROUNDS", file=sys.stderr)
        return 2
    url, sessions, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    failure = anyio.run(run, url, sessions, rounds)
    if failure is None:
        print(f"all {sessions} sessions passed", flush=True)
        return 0
    n, error, record = failure
    # The transport's task groups wrap the error: the innermost one says what went wrong.
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, CheckFailed):
        reason = str(error)
    else:  # not an assertion: the traceback says where it came from
        reason = "".join(traceback.format_exception(error)).rstrip()
    print(f"FAIL session {n}: {reason}", file=sys.stderr)
    print("its HTTP exchanges:", file=sys.stderr)
    print(record.dump(), file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
