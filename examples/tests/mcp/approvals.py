"""A tool that needs a person's yes (`delete_record`, `#[tool(approval)]`), called by the
official Python MCP client (mcp 2.3) in each era the target serves.

Usage: approvals.py RUN_LOG TARGET [TARGET...]

RUN_LOG is the file the server appends a line to each time the tool runs (`TASK_RUN_LOG`). A
TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (stateless: 2026-07-28,
and the session era's refusal, since nothing carries a question there). For each, in its eras
(`auto`: 2026-07-28, the question in an `InputRequiredResult`; `legacy`: a session, a request
to the client):

The elicitation callback answers as a person would with the host's buttons, and each answer's
effect is checked in the server's run log:

- declines, with a reason: the tool never runs; the result is an error that says so and gives
  the reason;
- cancels: the tool never runs; the error says the question was dismissed;
- accepts the form as it is (empty): the tool runs once, and an identical call is asked again
  (nothing was kept); so is one accepted with a `remember` that is none of the choices;
- accepts with "identical calls": the tool runs; an identical call runs again without asking
  where the server can tell the caller apart (its connection lasts: stdio, or a session),
  and another call is asked;
- a client without an elicitation callback (no `elicitation` capability) gets a refusal as a
  tool error that says why, and the tool never runs.

Each check uses keys of its own; the Rust side reads the server's audit file for the same keys
and finds there, per key, the answers listed (`asked` records of 2026-07-28 aside).
Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import json
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_of(target: str, log: Path) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        # The SDK starts a server with a few variables of its own only: the run log is passed.
        env = {"TASK_RUN_LOG": str(log)}
        return StdioServerParameters(command=argv[0], args=["serve", "--stdio", *argv[1:]], env=env)
    return target.removeprefix("stateless:")


def runs(log: Path, key: str) -> int:
    if not log.exists():
        return 0
    return sum(1 for line in log.read_text().splitlines() if json.loads(line)["key"] == key)


def answering(answers: list[types.ElicitResult], asked: list[str]) -> Any:
    """A callback that gives `answers` in turn (the last one again once they run out)."""

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return answers[min(len(asked), len(answers)) - 1]

    return on_elicit


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


async def calls(
    server: Any, mode: str, answers: list[types.ElicitResult], keys: list[str]
) -> tuple[list[types.CallToolResult], list[str]]:
    """Calls `delete_record` once per key, on one client; the results and the questions shown."""
    asked: list[str] = []
    results = []
    async with Client(server, mode=mode, elicitation_callback=answering(answers, asked)) as client:
        for key in keys:
            results.append(await client.call_tool("delete_record", {"key": key}))
    return results, asked


def new_key(what: str) -> str:
    return f"{what}-{uuid.uuid4().hex[:8]}"


async def declined(server: Any, mode: str, log: Path, keys: dict[str, list[str]]) -> None:
    key = new_key("declined")
    decline = types.ElicitResult(action="decline", content={"reason": "keep it"})
    [result], asked = await calls(server, mode, [decline], [key])
    expect(result.is_error is True, f"declined, yet: {result}")
    expect("declined" in text(result) and "keep it" in text(result), f"result: {text(result)}")
    expect(len(asked) == 1, f"asked {len(asked)} times: {asked}")
    expect(f"Delete the record {key} for good?" in asked[0], f"shown: {asked[0]}")
    expect(runs(log, key) == 0, "the tool ran although the user declined")
    keys[key] = ["denied"]


async def cancelled(server: Any, mode: str, log: Path, keys: dict[str, list[str]]) -> None:
    key = new_key("cancelled")
    [result], asked = await calls(server, mode, [types.ElicitResult(action="cancel")], [key])
    expect(result.is_error is True, f"cancelled, yet: {result}")
    expect("dismissed" in text(result), f"result: {text(result)}")
    expect(len(asked) == 1, f"asked {len(asked)} times: {asked}")
    expect(runs(log, key) == 0, "the tool ran although the user cancelled")
    keys[key] = ["denied"]


async def approved(server: Any, mode: str, log: Path, keys: dict[str, list[str]]) -> None:
    """Accept with the form as it came: this call, once; the same call again is asked again, and
    one accepted with a choice the form does not offer keeps nothing either."""
    key = new_key("approved")
    answers = [accept(), accept(remember="forever"), accept()]
    results, asked = await calls(server, mode, answers, [key, key, key])
    for result in results:
        expect(not result.is_error, f"approved, yet: {text(result)}")
        expect(result.structured_content is not None and result.structured_content["key"] == key, f"{result}")
    expect(len(asked) == 3, f"asked {len(asked)} times for 3 identical calls: nothing was to be kept")
    expect(runs(log, key) == 3, f"the tool ran {runs(log, key)} times for 3 approved calls")
    keys[key] = ["approved"] * 3


async def remembered(server: Any, mode: str, log: Path, keys: dict[str, list[str]], kept: bool) -> None:
    """Accept with "identical calls": the same call again runs without asking if the server
    can tell this caller apart (`kept`), another call is asked."""
    key, other = new_key("remembered"), new_key("other")
    results, asked = await calls(server, mode, [accept(remember="identical calls")], [key, key, other])
    for result in results:
        expect(not result.is_error, f"approved, yet: {text(result)}")
    expected = 2 if kept else 3
    expect(len(asked) == expected, f"asked {len(asked)} times, not {expected}: {asked}")
    expect(f"{other} for good?" in asked[-1], f"the other call was not asked: {asked}")
    expect(runs(log, key) == 2 and runs(log, other) == 1, f"runs: {runs(log, key)}, {runs(log, other)}")
    keys[key] = ["approved", "approved"]
    keys[other] = ["approved"]


async def refused(server: Any, mode: str, log: Path, keys: dict[str, list[str]], why: str) -> None:
    key = new_key("refused")
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("delete_record", {"key": key})
    expect(result.is_error is True, f"no one to ask, yet: {result}")
    expect("approval" in text(result) and why in text(result), f"result: {text(result)}")
    expect(runs(log, key) == 0, "the tool ran although no one could be asked")
    keys[key] = ["unavailable"]


def main() -> int:
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} RUN_LOG TARGET [TARGET...]", file=sys.stderr)
        return 2
    log = Path(sys.argv[1])
    keys: dict[str, list[str]] = {}
    checks = []
    for target in sys.argv[2:]:
        server = server_of(target, log)
        stateless = target.startswith("stateless:")
        label = target.partition(":")[0] if not target.startswith("http") else "sessions"
        for mode in ["auto", "legacy"]:
            era = "2026-07-28" if mode == "auto" else "session"

            def bound(fn: Any, *more: Any, server: Any = server, mode: str = mode) -> Any:
                async def run() -> None:
                    await fn(server, mode, log, keys, *more)

                return run

            if stateless and mode == "legacy":
                # A stateless server and a session-era client: nothing carries a question.
                checks.append((f"{label} {era} no one to ask", bound(refused, "stateless")))
                continue
            # Approvals are kept per caller: one that is not authenticated is told apart by
            # its connection, which lasts over stdio and in a session; a 2026-07-28 call over
            # HTTP is a connection of its own.
            kept = label == "stdio" or mode == "legacy"
            checks.append((f"{label} {era} declined", bound(declined)))
            checks.append((f"{label} {era} cancelled", bound(cancelled)))
            checks.append((f"{label} {era} approved once", bound(approved)))
            checks.append((f"{label} {era} approved with identical calls", bound(remembered, kept)))
            checks.append((f"{label} {era} no elicitation", bound(refused, "elicitation")))
    status = anyio.run(run_checks, checks, CHECK_TIMEOUT)
    # For the Rust side, which reads the server's audit file: each key and its decision.
    print("keys " + json.dumps(keys))
    return status


if __name__ == "__main__":
    sys.exit(main())
