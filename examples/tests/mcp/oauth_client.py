"""`toolctl serve --http` as an OAuth resource server, driven by the official Python MCP client
(mcp 2.3) and by plain HTTP for the refusals, with tokens from `oauth_keys.py`.

Usage: oauth_client.py URL TOKENS_JSON ISSUER AUDIENCE

The server must validate tokens for AUDIENCE from ISSUER, require the scope `tools:read`, and
offer `delete_note`, a tool that needs the scope `notes:write`.

Each passing check prints `ok <name>`; the first failure prints `FAIL <name>: <reason>` and
exits 1. Everything is bounded by timeouts, so the script never hangs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from checks import expect, run_checks

CHECK_TIMEOUT = 20.0
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "oauth-check", "version": "1"},
    },
}


def challenge(response: httpx2.Response) -> dict[str, str]:
    """The parameters of a `WWW-Authenticate: Bearer k="v", ...` answer (RFC 6750 section 3)."""
    header = response.headers.get("www-authenticate", "")
    expect(header.startswith("Bearer "), f"WWW-Authenticate is {header!r}")
    params: dict[str, str] = {}
    rest = header[len("Bearer ") :]
    while rest:
        key, _, rest = rest.lstrip(" ,").partition("=")
        expect(rest.startswith('"'), f"unquoted value for {key!r} in {header!r}")
        value, i = [], 1
        while i < len(rest) and rest[i] != '"':
            if rest[i] == "\\":
                i += 1
            value.append(rest[i])
            i += 1
        expect(i < len(rest), f"unterminated value for {key!r} in {header!r}")
        params[key.strip()] = "".join(value)
        rest = rest[i + 1 :].lstrip(" ,")
    return params


class Checks:
    def __init__(self, url: str, tokens: dict[str, str], issuer: str, audience: str) -> None:
        self.url, self.tokens, self.issuer, self.audience = url, tokens, issuer, audience
        parts = urlsplit(url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path

    async def post(self, body: dict, token: str | None) -> httpx2.Response:
        headers = dict(ACCEPT)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        async with httpx2.AsyncClient(timeout=10) as http:
            return await http.post(self.url, content=json.dumps(body), headers=headers)

    async def metadata(self) -> None:
        async with httpx2.AsyncClient(timeout=10) as http:
            response = await http.get(f"{self.origin}/.well-known/oauth-protected-resource{self.path}")
        expect(response.status_code == 200, f"metadata: {response.status_code} {response.text}")
        doc = response.json()
        expect(doc.get("resource") == self.audience, f"resource is {doc.get('resource')!r}")
        expect(doc.get("authorization_servers") == [self.issuer], f"authorization_servers: {doc}")
        expect("tools:read" in doc.get("scopes_supported", []), f"scopes_supported: {doc}")
        expect(doc.get("bearer_methods_supported") == ["header"], f"bearer_methods_supported: {doc}")

    async def no_token(self) -> None:
        response = await self.post(INITIALIZE, None)
        expect(response.status_code == 401, f"without a token: {response.status_code}")
        params = challenge(response)
        audience = urlsplit(self.audience)
        want = f"{audience.scheme}://{audience.netloc}/.well-known/oauth-protected-resource{audience.path}"
        expect(params.get("resource_metadata") == want, f"resource_metadata is {params}, want {want}")
        expect("error" not in params, f"a request without credentials gets no error code: {params}")

    async def malformed_header(self) -> None:
        async with httpx2.AsyncClient(timeout=10) as http:
            headers = dict(ACCEPT, Authorization="Bearer")
            response = await http.post(self.url, content=json.dumps(INITIALIZE), headers=headers)
        expect(response.status_code == 400, f"malformed header: {response.status_code}")
        expect(challenge(response).get("error") == "invalid_request", f"{response.headers}")

    async def flawed_tokens(self) -> None:
        for case in ("expired", "not_yet_valid", "wrong_audience", "wrong_issuer", "unknown_kid"):
            response = await self.post(INITIALIZE, self.tokens[case])
            expect(response.status_code == 401, f"{case}: {response.status_code} {response.text}")
            params = challenge(response)
            expect(params.get("error") == "invalid_token", f"{case}: {params}")
            expect("resource_metadata" in params, f"{case}: {params}")

    async def base_scope(self) -> None:
        response = await self.post(INITIALIZE, self.tokens["no_base_scope"])
        expect(response.status_code == 403, f"no base scope: {response.status_code}")
        params = challenge(response)
        expect(params.get("error") == "insufficient_scope", f"{params}")
        expect("tools:read" in params.get("scope", "").split(), f"{params}")

    async def session(self, token: str) -> list[str]:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http:
            async with streamable_http_client(self.url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    result = await session.call_tool("get_current_time", {"timezone": "UTC"})
                    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
                    expect(not result.is_error, f"get_current_time failed: {text}")
                    return [t.name for t in listed.tools]

    async def reader(self) -> None:
        for case in ("reader", "eddsa"):
            names = await self.session(self.tokens[case])
            expect("get_current_time" in names, f"{case}: get_current_time not listed: {names}")
            expect("delete_note" not in names, f"{case}: delete_note listed without its scope")

    async def writer(self) -> None:
        names = await self.session(self.tokens["writer"])
        expect("delete_note" in names, f"writer: delete_note not listed: {names}")

    async def scoped_call(self) -> None:
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "delete_note", "arguments": {"id": "n1"}}}
        response = await self.post(call, self.tokens["reader"])
        expect(response.status_code == 403, f"scoped call: {response.status_code} {response.text}")
        params = challenge(response)
        expect(params.get("error") == "insufficient_scope", f"{params}")
        expect("notes:write" in params.get("scope", "").split(), f"{params}")


async def run(url: str, tokens_file: str, issuer: str, audience: str) -> int:
    with open(tokens_file) as f:
        c = Checks(url, json.load(f), issuer, audience)
    checks: list[tuple[str, Callable[[], Awaitable[None]]]] = [
        ("metadata document", c.metadata),
        ("no token is 401 pointing to the metadata", c.no_token),
        ("malformed header is invalid_request", c.malformed_header),
        ("flawed tokens are 401 invalid_token", c.flawed_tokens),
        ("missing base scope is 403", c.base_scope),
        ("reader lists and calls, without the scoped tool", c.reader),
        ("writer sees the scoped tool", c.writer),
        ("scoped call without the scope is 403 naming it", c.scoped_call),
    ]
    return await run_checks(checks, CHECK_TIMEOUT)


def main() -> int:
    if len(sys.argv) != 5:
        print(f"usage: {sys.argv[0]} URL TOKENS_JSON ISSUER AUDIENCE", file=sys.stderr)
        return 2
    return anyio.run(run, *sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
