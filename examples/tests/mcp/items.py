"""Resources, templates, prompts and completion of conformance-server, through the official
Python MCP client (mcp 2.3) in each era the target serves.

Usage: items.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND ARGS... serve --stdio`), a URL (a
Streamable HTTP server with sessions: both eras), `stateless:URL` (2026-07-28 only), or
`mounted:COMMAND ARGS...`: a server over stdio that mounts conformance-server as `conf`, whose
resources keep their URIs and whose prompts are `conf__*` (listings, reads and a prompt only:
completion and questions are not passed through a mount). For
each, in its eras (`Client` in `auto` mode, protocol 2026-07-28, and in `legacy` mode):

- the listings: a resource with its MIME type, a template, a prompt with its arguments;
- reads: text, bytes (a PNG), a template's read with its variable, and an unknown URI
  answered -32602 with the URI in `data`;
- prompts: arguments quoted back, an embedded resource, an image, and a prompt that asks its
  user (elicitation: an `InputRequiredResult` in 2026-07-28, a request in a session);
- completion of a prompt argument and of a template variable;
- a tool whose input is one `#[input]` struct refuses a key its schema does not list, with a
  did-you-mean, as a tool error;
- where the target keeps a connection (not stateless), an update of a watched resource
  arrives: on a `subscriptions/listen` stream in 2026-07-28, after `resources/subscribe` in
  a session.

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import base64
import json
import shlex
import sys
import uuid
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0
WATCHED = "test://watched-resource"


def server_of(target: str) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=[*argv[1:], "serve", "--stdio"])
    return target.removeprefix("stateless:")


def texts(messages: list[types.PromptMessage]) -> list[str]:
    return [m.content.text for m in messages if isinstance(m.content, types.TextContent)]


async def listings(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        prompts = (await client.list_prompts()).prompts
    by_uri = {r.uri: r for r in resources}
    expect("test://static-text" in by_uri, f"resources: {sorted(by_uri)}")
    expect(by_uri["test://static-text"].mime_type == "text/plain", f"{by_uri['test://static-text']}")
    expect(by_uri["test://static-text"].description, "the resource has no description")
    expect(
        [t.uri_template for t in templates] == ["test://template/{id}/data"],
        f"templates: {[t.uri_template for t in templates]}",
    )
    with_args = next((p for p in prompts if p.name == "test_prompt_with_arguments"), None)
    expect(with_args is not None, f"prompts: {[p.name for p in prompts]}")
    args = [(a.name, a.required) for a in with_args.arguments or []]
    expect(args == [("arg1", True), ("arg2", True)], f"arguments: {args}")


async def reads(server: Any, mode: str) -> None:
    record = uuid.uuid4().hex[:8]
    async with Client(server, mode=mode) as client:
        text = (await client.read_resource("test://static-text")).contents[0]
        blob = (await client.read_resource("test://static-binary")).contents[0]
        data = (await client.read_resource(f"test://template/{record}/data")).contents[0]
        try:
            await client.read_resource("test://no-such-resource")
            missing = None
        except MCPError as e:
            missing = e.error
    expect(isinstance(text, types.TextResourceContents), f"text: {text}")
    expect(text.text == "This is the content of the static text resource.", f"text: {text.text}")
    expect(isinstance(blob, types.BlobResourceContents) and blob.mime_type == "image/png", f"blob: {blob}")
    expect(base64.b64decode(blob.blob).startswith(b"\x89PNG"), "the blob is not a PNG")
    expect(data.uri == f"test://template/{record}/data", f"uri: {data.uri}")
    expect(data.mime_type == "application/json", f"mime: {data.mime_type}")
    expect(json.loads(data.text)["id"] == record, f"data: {data.text}")
    expect(missing is not None and missing.code == -32602, f"unknown URI: {missing}")
    expect((missing.data or {}).get("uri") == "test://no-such-resource", f"data: {missing.data}")


async def prompts(server: Any, mode: str) -> None:
    word = uuid.uuid4().hex[:8]
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"context": word})

    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        quoted = await client.get_prompt("test_prompt_with_arguments", {"arg1": word, "arg2": "b"})
        embedded = await client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": f"test://{word}"})
        image = await client.get_prompt("test_prompt_with_image")
        asking = await client.get_prompt("test_input_required_result_prompt")
        try:
            await client.get_prompt("test_prompt_with_arguments", {"arg1": word})
            refused = None
        except MCPError as e:
            refused = e.error
    expect(texts(quoted.messages) == [f"Prompt with arguments: arg1='{word}', arg2='b'"], f"{quoted}")
    first = embedded.messages[0].content
    expect(isinstance(first, types.EmbeddedResource), f"embedded: {first}")
    expect(first.resource.uri == f"test://{word}", f"embedded uri: {first.resource.uri}")
    expect(first.resource.text == "Embedded resource content for testing.", f"{first.resource}")
    picture = image.messages[0].content
    expect(isinstance(picture, types.ImageContent) and picture.mime_type == "image/png", f"{picture}")
    expect(base64.b64decode(picture.data).startswith(b"\x89PNG"), "the image is not a PNG")
    expect(asked == ["What context should the prompt use?"], f"asked: {asked}")
    expect(any(word in t for t in texts(asking.messages)), f"asking: {asking}")
    expect(refused is not None and refused.code == -32602, f"a missing argument: {refused}")
    expect("arg2" in refused.message, f"the error does not name the argument: {refused.message}")


async def completions(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        places = await client.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "par"},
        )
        ids = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"),
            {"name": "id", "value": "12"},
        )
    expect(places.completion.values == ["paris", "park", "party"], f"arg1: {places.completion}")
    expect(places.completion.total == 3 and not places.completion.has_more, f"{places.completion}")
    expect(ids.completion.values == ["123", "124"], f"id: {ids.completion}")


async def watched(server: Any, mode: str) -> None:
    if mode == "auto":
        async with Client(server, mode=mode) as client:
            async with client.listen(resource_subscriptions=[WATCHED]) as sub:
                await client.call_tool("test_update_resource", {})
                event = await sub.__anext__()
        expect(getattr(event, "uri", None) == WATCHED, f"event: {event}")
        return
    updated = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            seen.append(str(root.params.uri))
            updated.set()

    async with Client(server, mode=mode, message_handler=on_message) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.subscribe_resource(WATCHED)
        await client.call_tool("test_update_resource", {})
        await updated.wait()
    expect(seen == [WATCHED], f"updates: {seen}")


async def mounted(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        prompts = (await client.list_prompts()).prompts
        text = (await client.read_resource("test://static-text")).contents[0]
        data = (await client.read_resource("test://template/7/data")).contents[0]
        quoted = await client.get_prompt("conf__test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
    names = {r.uri: r.name for r in resources}
    expect(names.get("test://static-text") == "conf__static_text", f"resources: {names}")
    expect("test://template/{id}/data" in [t.uri_template for t in templates], f"{templates}")
    expect("conf__test_prompt_with_arguments" in [p.name for p in prompts], f"{[p.name for p in prompts]}")
    expect(text.text == "This is the content of the static text resource.", f"text: {text}")
    expect(json.loads(data.text)["id"] == "7", f"data: {data.text}")
    expect(texts(quoted.messages) == ["Prompt with arguments: arg1='a', arg2='b'"], f"{quoted}")


async def unknown_key(server: Any, mode: str) -> None:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool(
            "json_schema_2020_12_tool", {"name": "Ada", "emial": "ada@example.com"}
        )
    said = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
    expect(result.is_error is True, f"an unknown key was taken: {said}")
    expect("unknown parameter `emial` (did you mean `email`?)" in said, f"the error: {said}")


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(f"usage: {sys.argv[0]} TARGET [TARGET...]", file=sys.stderr)
        return 2
    checks = []
    for target in args:
        if target.startswith("mounted:"):
            server = server_of("stdio:" + target.removeprefix("mounted:"))
            for mode in ["auto", "legacy"]:
                era = "2026-07-28" if mode == "auto" else "session"
                checks.append((f"mounted {era} resources and prompts", lambda s=server, m=mode: mounted(s, m)))
            continue
        server = server_of(target)
        stateless = target.startswith("stateless:")
        modes = ["auto"] if stateless else ["auto", "legacy"]
        for mode in modes:
            era = "2026-07-28" if mode == "auto" else "session"
            label = target.partition(":")[0] if not target.startswith("http") else "sessions"

            def check(fn: Any, server: Any = server, mode: str = mode) -> Any:
                return lambda: fn(server, mode)

            checks.append((f"{label} {era} listings", check(listings)))
            checks.append((f"{label} {era} reads", check(reads)))
            checks.append((f"{label} {era} prompts", check(prompts)))
            checks.append((f"{label} {era} completions", check(completions)))
            checks.append((f"{label} {era} an unknown key", check(unknown_key)))
            if not stateless:
                checks.append((f"{label} {era} a watched resource's update", check(watched)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
