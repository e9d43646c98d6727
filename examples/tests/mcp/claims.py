"""What a mounted server says of its tools is a claim: the official Python MCP client (mcp 2.3)
calls, through `toolctl --approval write --mount py=...`, a tool of a Python SDK server
(`py_claims_server.py`) that says it only reads (`readOnlyHint: true`) and writes.

Usage: claims.py NOTES UNTRUSTED TRUSTED

NOTES is the file the tool appends to. UNTRUSTED and TRUSTED are `COMMAND ARGS...` started as
`COMMAND serve --stdio ARGS...`: toolctl mounting the server, and the same with `--trust-mount
py`. In each era (`auto`: 2026-07-28; `legacy`: the session era):

- the listing shows the server's claim as it made it (`readOnlyHint: true`);
- untrusted, a client that cannot be asked gets a refusal that names approval, and the tool
  does not run; a client that can is asked once, and the tool runs once;
- trusted (the application vouches for the mount), the tool runs unasked.

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

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

CHECK_TIMEOUT = 60.0
TOOL = "py__save_note"


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_of(target: str) -> StdioServerParameters:
    argv = shlex.split(target)
    return StdioServerParameters(command=argv[0], args=["serve", "--stdio", *argv[1:]])


def saved(notes: Path, key: str) -> int:
    return notes.read_text().splitlines().count(key) if notes.exists() else 0


async def call(server: StdioServerParameters, mode: str, key: str, answer: bool) -> tuple[types.CallToolResult, list[str]]:
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    callback = on_elicit if answer else None
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        expect(TOOL in listed, f"no {TOOL} in {sorted(listed)}")
        claim = listed[TOOL].annotations
        expect(claim is not None and claim.read_only_hint is True, f"the claim as listed: {claim}")
        result = await client.call_tool(TOOL, {"text": key})
    return result, asked


def main() -> int:
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} NOTES UNTRUSTED TRUSTED", file=sys.stderr)
        return 2
    notes = Path(sys.argv[1])
    untrusted, trusted = server_of(sys.argv[2]), server_of(sys.argv[3])
    checks = []
    for mode in ["auto", "legacy"]:
        era = "2026-07-28" if mode == "auto" else "session"

        async def refused(mode: str = mode) -> None:
            key = f"refused-{uuid.uuid4().hex[:8]}"
            result, _ = await call(untrusted, mode, key, answer=False)
            expect(result.is_error is True, f"ran unasked: {text(result)}")
            expect("approval" in text(result), f"the refusal does not name approval: {text(result)}")
            expect(saved(notes, key) == 0, "the tool wrote although no one could be asked")

        async def asked(mode: str = mode) -> None:
            key = f"asked-{uuid.uuid4().hex[:8]}"
            result, questions = await call(untrusted, mode, key, answer=True)
            expect(not result.is_error, f"approved, yet: {text(result)}")
            expect(len(questions) == 1, f"asked {len(questions)} times: {questions}")
            expect(saved(notes, key) == 1, f"the tool wrote {saved(notes, key)} times")

        async def vouched(mode: str = mode) -> None:
            key = f"vouched-{uuid.uuid4().hex[:8]}"
            result, _ = await call(trusted, mode, key, answer=False)
            expect(not result.is_error, f"refused although the mount is trusted: {text(result)}")
            expect(text(result) == f"saved {key}", f"result: {text(result)}")
            expect(saved(notes, key) == 1, f"the tool wrote {saved(notes, key)} times")

        checks.append((f"{era} a claim of reading does not spare the question", refused))
        checks.append((f"{era} asked once, then run", asked))
        checks.append((f"{era} run unasked when the application vouches", vouched))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
