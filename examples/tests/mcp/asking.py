"""A tool that asks its user (elicitation) or the client's model (sampling), called by the
official Python MCP client (mcp 2.3) in each era the target serves.

Usage: asking.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND ARGS... serve --stdio`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (stateless: 2026-07-28
only, the era in which a stateless server can ask). For each, in its eras:

- `Client` in its default mode (`auto`, protocol 2026-07-28: the call is answered with an
  `InputRequiredResult`, the client asks and calls again with the answer) and in `legacy`
  mode (a session: the server sends the client an `elicitation/create` request);
- `test_elicitation` gets the callback's answer, values unique to the call, which the result
  must quote; `test_sampling` gets the model's answer; `test_input_required_result_multiple_inputs`
  asks the user, the model and the client's roots (in 2026-07-28 all three in one
  `InputRequiredResult`, under the names the tool gives them). Each callback runs once a call.

With `--calls N`, each check is made N times (behind a load balancer, the retries of a
2026-07-28 call land on other instances). Prints `ok <name>` per check and `all N checks
passed`; the first failure prints `FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import shlex
import sys
import uuid
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_of(target: str) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=[*argv[1:], "serve", "--stdio"])
    return target.removeprefix("stateless:")


async def elicit_once(server: Any, mode: str) -> None:
    asked: list[str] = []
    name = f"user-{uuid.uuid4().hex[:8]}"

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"username": name, "email": f"{name}@example.org"})

    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        expected = "2026-07-28" if mode == "auto" else None
        if expected is not None:
            expect(client.protocol_version == expected, f"spoke {client.protocol_version}")
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    expect(not result.is_error, f"the call failed: {text(result)}")
    expect(asked == ["Who are you?"], f"the user was asked {asked}")
    expect("accept" in text(result) and name in text(result), f"result: {text(result)}")


async def sample_once(server: Any, mode: str) -> None:
    asked: list[Any] = []
    word = f"word-{uuid.uuid4().hex[:8]}"

    async def on_sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params.messages)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=word),
            model="scripted",
            stop_reason="endTurn",
        )

    async with Client(server, mode=mode, sampling_callback=on_sample) as client:
        result = await client.call_tool("test_sampling", {"prompt": "Say a word"})
    expect(not result.is_error, f"the call failed: {text(result)}")
    expect(len(asked) == 1, f"the model was asked {len(asked)} times")
    expect(text(result) == f"LLM response: {word}", f"result: {text(result)}")


async def ask_all_once(server: Any, mode: str) -> None:
    asked: list[str] = []
    name = f"user-{uuid.uuid4().hex[:8]}"
    word = f"hello-{uuid.uuid4().hex[:8]}"
    root = f"file:///work/{uuid.uuid4().hex[:8]}"

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append("elicitation")
        return types.ElicitResult(action="accept", content={"name": name})

    async def on_sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append("sampling")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=word),
            model="scripted",
            stop_reason="endTurn",
        )

    async def on_roots(context: Any) -> types.ListRootsResult:
        asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri=root, name="Work")])

    async with Client(
        server,
        mode=mode,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
    ) as client:
        result = await client.call_tool("test_input_required_result_multiple_inputs", {})
    expect(not result.is_error, f"the call failed: {text(result)}")
    expect(sorted(asked) == ["elicitation", "roots", "sampling"], f"asked: {asked}")
    for part in (name, word, root):
        expect(part in text(result), f"no {part} in the result: {text(result)}")


def main() -> int:
    args = sys.argv[1:]
    calls = 1
    if args[:1] == ["--calls"]:
        calls = int(args[1])
        args = args[2:]
    if not args:
        print(f"usage: {sys.argv[0]} [--calls N] TARGET [TARGET...]", file=sys.stderr)
        return 2
    checks = []
    for target in args:
        server = server_of(target)
        modes = ["auto"] if target.startswith("stateless:") else ["auto", "legacy"]
        for mode in modes:
            era = "2026-07-28" if mode == "auto" else "session"

            def check(fn: Any, server: Any = server, mode: str = mode) -> Any:
                async def run() -> None:
                    for _ in range(calls):
                        await fn(server, mode)

                return run

            label = target.partition(":")[0] if not target.startswith("http") else "sessions"
            checks.append((f"{label} {era} elicitation", check(elicit_once)))
            checks.append((f"{label} {era} sampling", check(sample_once)))
            checks.append((f"{label} {era} three questions", check(ask_all_once)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
