"""Views for MCP Apps hosts (`io.modelcontextprotocol/ui`) of views-server, through the official
Python MCP client (mcp 2.3), with and without the extension, in each era the target serves.

Usage: views.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions: both eras) or `stateless:URL` (2026-07-28 only); every
server is started with `--views`, so a tool without a view of its own shows the card. For each
target and era (`Client` in `auto` mode, protocol 2026-07-28, and in `legacy` mode):

- the listing of a client that does not declare the extension is the listing of one that does,
  less each tool's `_meta.ui` and less the tool for views only (`refresh_forecast`), field for
  field; the one that declares it names each view's `ui://` URI and who each tool is for;
- a view is read as `text/html;profile=mcp-app` with its CSP and permissions, by a client that
  declared the extension only: to another its URI is not found (-32602);
- a call's result is the same for both clients; the tool for views only is unknown (-32602) to
  a client without the extension, and for one with it runs once, after its approval was asked.

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import anyio
from mcp.client.client import Client
from mcp.client.extension import advertise
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
import mcp_types as types

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0
UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"


def server_of(target: str) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=["serve", "--stdio", *argv[1:]])
    return target.removeprefix("stateless:")


def client(server: Any, mode: str, views: bool, **kwargs: Any) -> Client:
    extensions = [advertise(UI, {"mimeTypes": [MIME]})] if views else None
    return Client(server, mode=mode, extensions=extensions, **kwargs)


def without_ui(tool: dict[str, Any]) -> dict[str, Any]:
    tool = dict(tool)
    meta = dict(tool.get("_meta") or {})
    meta.pop("ui", None)
    tool["_meta"] = meta
    return tool


async def listing(server: Any, mode: str) -> None:
    async with client(server, mode, views=False) as plain:
        before = [t.model_dump(by_alias=True, exclude_none=True) for t in (await plain.list_tools()).tools]
    async with client(server, mode, views=True) as ui:
        after = [t.model_dump(by_alias=True, exclude_none=True) for t in (await ui.list_tools()).tools]
    expect(all("ui" not in (t.get("_meta") or {}) for t in before), f"a plain listing has _meta.ui: {before}")
    by_name = {t["name"]: t for t in after}
    expect("refresh_forecast" in by_name, f"the tool for views only is not listed: {sorted(by_name)}")
    expect("refresh_forecast" not in {t["name"] for t in before}, "the tool for views only is listed to a plain client")
    model_side = [without_ui(t) for t in after if t["name"] != "refresh_forecast"]
    expect(model_side == before, f"the listings differ beyond views:\n{model_side}\n{before}")
    forecast = by_name["get_forecast"]["_meta"]["ui"]
    expect(forecast == {"resourceUri": "ui://tool/get_forecast", "visibility": ["model", "app"]}, f"{forecast}")
    expect(by_name["refresh_forecast"]["_meta"]["ui"] == {"visibility": ["app"]}, f"{by_name['refresh_forecast']}")
    expect(by_name["get_report"]["_meta"]["ui"]["resourceUri"] == "ui://tool/get_report", "no card for get_report")


async def reads(server: Any, mode: str) -> None:
    async with client(server, mode, views=True) as ui:
        own = (await ui.read_resource("ui://tool/get_forecast")).contents[0]
        card = (await ui.read_resource("ui://tool/get_report")).contents[0]
        listed = {r.uri: r for r in (await ui.list_resources()).resources}
    for view in (own, card):
        expect(isinstance(view, types.TextResourceContents) and view.mime_type == MIME, f"{view.uri}: {view.mime_type}")
        meta = (view.meta or {}).get("ui", {})
        expect(meta.get("csp", {}).get("connectDomains") == [], f"{view.uri}: csp {meta}")
        expect("permissions" in meta, f"{view.uri}: {meta}")
    expect("refresh_forecast" in own.text, "the view is not views/forecast.html")
    expect("class App" in card.text or "const App = " in card.text, "the card has no App")
    expect(set(listed) >= {"ui://tool/get_forecast", "ui://tool/get_report"}, f"resources: {sorted(listed)}")
    expect(listed["ui://tool/get_forecast"].mime_type == MIME, f"{listed['ui://tool/get_forecast']}")
    async with client(server, mode, views=False) as plain:
        try:
            await plain.read_resource("ui://tool/get_forecast")
            refused = None
        except MCPError as e:
            refused = e.error
        plain_listed = [r.uri for r in (await plain.list_resources()).resources]
    expect(refused is not None and refused.code == -32602, f"a plain client read a view: {refused}")
    expect(not any(u.startswith("ui://") for u in plain_listed), f"a plain client lists views: {plain_listed}")


async def calls(server: Any, mode: str) -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    async with client(server, mode, views=False) as plain:
        before = (await plain.call_tool("get_forecast", {"city": "Oslo"})).model_dump(exclude={"meta"})
        try:
            await plain.call_tool("refresh_forecast", {"city": "Oslo"})
            unknown = None
        except MCPError as e:
            unknown = e.error
    async with client(server, mode, views=True, elicitation_callback=on_elicit) as ui:
        after = (await ui.call_tool("get_forecast", {"city": "Oslo"})).model_dump(exclude={"meta"})
        refreshed = await ui.call_tool("refresh_forecast", {"city": "Oslo"})
    expect(before == after, f"the results differ:\n{before}\n{after}")
    expect(unknown is not None and unknown.code == -32602, f"a plain client called the tool for views only: {unknown}")
    expect("did you mean" not in unknown.message, f"the refusal suggests the hidden tool: {unknown.message}")
    expect(not refreshed.is_error, f"refresh failed: {refreshed}")
    expect(len(asked) == 1 and "Refresh the forecast for Oslo?" in asked[0], f"approval asked: {asked}")
    expect(refreshed.structured_content["city"] == "Oslo", f"{refreshed.structured_content}")


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(f"usage: {sys.argv[0]} TARGET [TARGET...]", file=sys.stderr)
        return 2
    checks = []
    for target in args:
        server = server_of(target)
        stateless = target.startswith("stateless:")
        for mode in ["auto"] if stateless else ["auto", "legacy"]:
            era = "2026-07-28" if mode == "auto" else "session"
            label = target.partition(":")[0] if not target.startswith("http") else "sessions"

            def check(fn: Any, server: Any = server, mode: str = mode) -> Any:
                return lambda: fn(server, mode)

            checks.append((f"{label} {era} listing", check(listing)))
            checks.append((f"{label} {era} reads", check(reads)))
            checks.append((f"{label} {era} calls", check(calls)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
