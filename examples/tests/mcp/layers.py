"""The application's layers and the command line's transforms, seen by the official Python MCP
client (mcp 2.3) in each era the target serves.

Usage: layers.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (stateless: both eras,
each call on its own). The server is `task-server` with `--rename read_secret=fetch_secret
--hide fetch_secret.vault='"main"'`; its `read_secret` passes three layers of its own: the key
is trimmed and lowercased, a key under `forbidden` is refused, the secret is redacted. For each
target and era (`auto`: 2026-07-28; `legacy`: the session era):

- the server is itself: `serverInfo` names `task-server`, its title `Vault tasks` and the
  workspace's version (the binary's own identity, `tool_cli::identity!`);
- the listing offers `fetch_secret`, not `read_secret`, and its schema has no `vault`;
- a call with a key in capitals and spaces runs with the key rewritten and the hidden vault
  filled in, and returns the secret redacted, in the structured content and in the text;
- a call with a forbidden key (in capitals: the rewrite runs first) is refused with the layer's
  reason, as a tool error;
- the same layers stand around reads and prompts: a read of a `vault://` resource and the
  prompt `use_secret` come back with the secret redacted, and a read of a forbidden key is
  refused with the layer's reason (-32600).

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0
# task-server's version: the workspace's, which its crate takes.
VERSION = tomllib.loads((Path(__file__).parents[3] / "Cargo.toml").read_text())["workspace"]["package"]["version"]


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
    expect("fetch_secret" in tools, f"no fetch_secret in {sorted(tools)}")
    expect("read_secret" not in tools, "read_secret is listed under its old name too")
    properties = tools["fetch_secret"].input_schema.get("properties", {})
    expect("key" in properties and "vault" not in properties, f"properties: {sorted(properties)}")
    expect("vault" not in tools["fetch_secret"].input_schema.get("required", []), "vault is required")


async def rewritten_and_redacted(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("fetch_secret", {"key": "  Payroll "})
    expect(not result.is_error, f"error: {text(result)}")
    expect(
        result.structured_content == {"key": "payroll", "vault": "main", "value": "[redacted]"},
        f"structured content: {result.structured_content}",
    )
    expect("secret-" not in text(result), f"the text shows the secret: {text(result)}")
    expect(json.loads(text(result))["key"] == "payroll", f"text: {text(result)}")


async def refused(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("fetch_secret", {"key": "FORBIDDEN-keys"})
    expect(result.is_error is True, f"not refused: {result}")
    expect("not read here" in text(result), f"the layer's reason is missing: {text(result)}")
    expect("secret-" not in text(result), f"the tool ran: {text(result)}")


async def reads_and_prompts(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        read = (await client.read_resource("vault://main/payroll")).contents[0]
        prompt = await client.get_prompt("use_secret", {"key": "payroll"})
        try:
            await client.read_resource("vault://main/forbidden-keys")
            refused = None
        except MCPError as e:
            refused = e.error
    expect(isinstance(read, types.TextResourceContents), f"read: {read}")
    expect(read.text == "main/payroll: [redacted]", f"the read shows: {read.text}")
    said = [m.content.text for m in prompt.messages if isinstance(m.content, types.TextContent)]
    expect(said == ["Log in with [redacted]"], f"the prompt says: {said}")
    expect(refused is not None and refused.code == -32600, f"forbidden read: {refused}")
    expect("not read here" in refused.message, f"the layer's reason is missing: {refused.message}")


async def named(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        await client.list_tools()
        info = client.server_info
    expect(info is not None, "the server did not say who it is")
    expect(info.name == "task-server", f"name: {info.name}")
    expect(info.title == "Vault tasks", f"title: {info.title}")
    expect(info.version == VERSION, f"version: {info.version}")


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

            checks.append((f"{label} {era} its own name", bound(named)))
            checks.append((f"{label} {era} listing", bound(listed)))
            checks.append((f"{label} {era} rewritten and redacted", bound(rewritten_and_redacted)))
            checks.append((f"{label} {era} refused", bound(refused)))
            checks.append((f"{label} {era} reads and prompts", bound(reads_and_prompts)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
