"""A tool that needs a person's yes (`delete_record`, `#[tool(approval)]`), called by the
official Python MCP client (mcp 2.3) in each era the target serves.

Usage: approvals.py RUN_LOG TARGET [TARGET...]

RUN_LOG is the file the server appends a line to each time the tool runs (`TASK_RUN_LOG`). A
TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (stateless: 2026-07-28,
and the session era's refusal, since nothing carries a question there). For each, in its eras
(`auto`: 2026-07-28, the question in an `InputRequiredResult`; `legacy`: a session, a request
to the client):

- the user declines in the elicitation callback: the tool never runs, the result is an error
  that says so and gives the user's reason;
- the user approves: the tool runs once;
- a client without an elicitation callback (no `elicitation` capability) gets a refusal as a
  tool error that says why, and the tool never runs.

Each call uses a key of its own; the Rust side reads the server's audit file for the same keys.
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


def answering(approve: bool, asked: list[str]) -> Any:
    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if approve:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="accept", content={"approve": False, "reason": "keep it"})

    return on_elicit


async def declined(server: Any, mode: str, log: Path, keys: dict[str, str]) -> None:
    key = f"declined-{uuid.uuid4().hex[:8]}"
    asked: list[str] = []
    async with Client(server, mode=mode, elicitation_callback=answering(False, asked)) as client:
        result = await client.call_tool("delete_record", {"key": key})
    expect(result.is_error is True, f"declined, yet: {result}")
    expect("declined" in text(result) and "keep it" in text(result), f"result: {text(result)}")
    expect(len(asked) == 1, f"asked {len(asked)} times: {asked}")
    expect(f"Delete the record {key} for good?" in asked[0], f"shown: {asked[0]}")
    expect(runs(log, key) == 0, "the tool ran although the user declined")
    keys[key] = "denied"


async def approved(server: Any, mode: str, log: Path, keys: dict[str, str]) -> None:
    key = f"approved-{uuid.uuid4().hex[:8]}"
    asked: list[str] = []
    async with Client(server, mode=mode, elicitation_callback=answering(True, asked)) as client:
        result = await client.call_tool("delete_record", {"key": key})
    expect(not result.is_error, f"approved, yet: {text(result)}")
    expect(result.structured_content is not None and result.structured_content["key"] == key, f"{result}")
    expect(len(asked) == 1, f"asked {len(asked)} times")
    expect(runs(log, key) == 1, f"the tool ran {runs(log, key)} times")
    keys[key] = "approved"


async def refused(server: Any, mode: str, log: Path, keys: dict[str, str], why: str) -> None:
    key = f"refused-{uuid.uuid4().hex[:8]}"
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("delete_record", {"key": key})
    expect(result.is_error is True, f"no one to ask, yet: {result}")
    expect("approval" in text(result) and why in text(result), f"result: {text(result)}")
    expect(runs(log, key) == 0, "the tool ran although no one could be asked")
    keys[key] = "unavailable"


def main() -> int:
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} RUN_LOG TARGET [TARGET...]", file=sys.stderr)
        return 2
    log = Path(sys.argv[1])
    keys: dict[str, str] = {}
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
            checks.append((f"{label} {era} declined", bound(declined)))
            checks.append((f"{label} {era} approved", bound(approved)))
            checks.append((f"{label} {era} no elicitation", bound(refused, "elicitation")))
    status = anyio.run(run_checks, checks, CHECK_TIMEOUT)
    # For the Rust side, which reads the server's audit file: each key and its decision.
    print("keys " + json.dumps(keys))
    return status


if __name__ == "__main__":
    sys.exit(main())
