"""Long calls as MCP tasks, followed by the official Python MCP client (mcp 2.3), whose only
hook for them is its extension interface: `TasksExtension` below declares
`io.modelcontextprotocol/tasks` and claims the `resultType: "task"` answer of `tools/call`,
then follows the task with `tasks/get` (at the interval the server asks) to the result the
call would have given, answering a task's questions with `tasks/update`, and cancelling it
with `tasks/cancel` when the call is cancelled.

Usage: tasks_client.py TARGET [TARGET...]

A TARGET is `stdio:COMMAND ARGS...` (started as `COMMAND serve --stdio ARGS...`), a URL (a
Streamable HTTP server with sessions) or `stateless:URL`. The server must make every call of
a tool marked `task` a task at once (`--task-after 0`). For each target and mode:

- `auto` (protocol 2026-07-28) with the extension: `wait_duration` is answered with a task,
  followed to the same result a plain call gives; a bad input is the task's own error result.
- `auto` without the extension, and `legacy` (the `initialize` handshake) with it: a plain
  result, no task (a server must not answer a client that did not declare the extension with
  one, and the extension is not defined before 2026-07-28).

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any, ClassVar, Literal

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.stdio import StdioServerParameters
from pydantic import ConfigDict

from checks import expect, run_checks

CHECK_TIMEOUT = 30.0
EXTENSION = "io.modelcontextprotocol/tasks"


class CreateTaskResult(types.Result):
    """The extension's answer to `tools/call`: a task to follow (SEP-2663)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None


class TaskRequestParams(types.RequestParams):
    task_id: str


class GetTaskRequest(types.Request[TaskRequestParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class CancelTaskRequest(types.Request[TaskRequestParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTaskParams(types.RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTaskRequest(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class DetailedTask(types.Result):
    """`tasks/get`'s answer: the task, and by its status its questions, result or error."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskFailed(Exception):
    pass


class TasksExtension(ClientExtension):
    """Follows the tasks a server answers `tools/call` with, so `call_tool` returns the result."""

    identifier = EXTENSION

    def __init__(self) -> None:
        self.followed: list[str] = []
        self.statuses: list[str] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.follow)]

    async def follow(self, created: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
        self.followed.append(created.task_id)
        interval = (created.poll_interval_ms or 1000) / 1000
        params = TaskRequestParams(task_id=created.task_id)
        try:
            while True:
                await anyio.sleep(min(interval, 1.0))
                task = await ctx.session.send_request(GetTaskRequest(params=params), DetailedTask)
                self.statuses.append(task.status)
                interval = (task.poll_interval_ms or 1000) / 1000
                if task.status == "completed":
                    return types.CallToolResult.model_validate(task.result or {})
                if task.status == "failed":
                    raise TaskFailed(f"task {task.task_id} failed: {task.error}")
                if task.status == "cancelled":
                    raise TaskFailed(f"task {task.task_id} was cancelled")
                if task.status == "input_required":
                    raise TaskFailed(f"task {task.task_id} asks: {task.input_requests}")
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await ctx.session.send_request(CancelTaskRequest(params=params), types.EmptyResult)
            raise


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def server_of(target: str) -> Any:
    if target.startswith("stdio:"):
        argv = shlex.split(target.removeprefix("stdio:"))
        return StdioServerParameters(command=argv[0], args=["serve", "--stdio", *argv[1:]])
    return target.removeprefix("stateless:")


async def followed_to_its_result(server: Any) -> None:
    tasks = TasksExtension()
    async with Client(server, extensions=[tasks]) as client:
        expect(client.protocol_version == "2026-07-28", f"spoke {client.protocol_version}")
        result = await client.call_tool("wait_duration", {"seconds": 0.3})
        expect(not result.is_error, f"the call failed: {text(result)}")
        expect(result.structured_content == {"seconds": 0.3}, f"result: {result}")
        expect(len(tasks.followed) == 1, f"tasks followed: {tasks.followed}")
        expect(tasks.statuses[-1:] == ["completed"], f"statuses seen: {tasks.statuses}")
        # The tool's own error: the task completes with the error result.
        failed = await client.call_tool("wait_duration", {"seconds": 9999})
        expect(failed.is_error is True, f"result: {failed}")
        expect("600" in text(failed), f"the error says why: {text(failed)}")
        expect(len(tasks.followed) == 2, f"tasks followed: {tasks.followed}")


async def plain_without_the_extension(server: Any) -> None:
    async with Client(server) as client:
        expect(client.protocol_version == "2026-07-28", f"spoke {client.protocol_version}")
        result = await client.call_tool("wait_duration", {"seconds": 0.2})
    expect(not result.is_error, f"the call failed: {text(result)}")
    expect(result.structured_content == {"seconds": 0.2}, f"result: {result}")


async def plain_in_a_session(server: Any) -> None:
    tasks = TasksExtension()
    async with Client(server, mode="legacy", extensions=[tasks]) as client:
        expect(client.protocol_version != "2026-07-28", f"spoke {client.protocol_version}")
        result = await client.call_tool("wait_duration", {"seconds": 0.2})
    expect(not result.is_error, f"the call failed: {text(result)}")
    expect(result.structured_content == {"seconds": 0.2}, f"result: {result}")
    expect(tasks.followed == [], f"a session was answered with tasks: {tasks.followed}")


def main() -> int:
    targets = sys.argv[1:]
    if not targets:
        print(f"usage: {sys.argv[0]} TARGET [TARGET...]", file=sys.stderr)
        return 2
    checks = []
    for target in targets:
        server = server_of(target)
        label = target.partition(":")[0] if not target.startswith("http") else "sessions"

        def bound(fn: Any, server: Any = server) -> Any:
            async def run() -> None:
                await fn(server)

            return run

        checks.append((f"{label} 2026-07-28 task followed", bound(followed_to_its_result)))
        checks.append((f"{label} 2026-07-28 no extension", bound(plain_without_the_extension)))
        if not target.startswith("stateless:"):
            checks.append((f"{label} session", bound(plain_in_a_session)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
