"""`execute_code` whose script calls a tool that needs a person's yes, called by the official
Python MCP client (mcp 2.3) in each era the target serves.

Usage: code_approvals.py RUN_LOG TARGET [TARGET...]

RUN_LOG is the file the server (`task-server --code-mode`) appends a line to each time a tool
runs (`TASK_RUN_LOG`). A TARGET is `stdio:COMMAND ARGS...`, a URL (Streamable HTTP with
sessions) or `stateless:URL`. The script sends a message (a tool that must never run twice),
then deletes a record (a tool that needs approval), then returns both results. For each target
and era the client's user accepts the question: the script resumes where it paused, the record
is deleted once, and the message before the pause was sent once. In 2026-07-28 the same script
also runs as a task (the client declares the tasks extension; the server makes every call of a
`task` tool a task at once): the task asks with `input_required`, the client answers with
`tasks/update`, and the task's next run resumes the script the same way.

Prints `ok <name>` per check and `all N checks passed`; the first failure prints
`FAIL <name>: <reason>` and exits 1.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from approvals import server_of
from checks import expect, run_checks
from tasks_client import (
    CreateTaskResult,
    DetailedTask,
    GetTaskRequest,
    TaskFailed,
    TaskRequestParams,
    TasksExtension,
    UpdateTaskParams,
    UpdateTaskRequest,
)

CHECK_TIMEOUT = 60.0


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def runs(log: Path, tool: str, key: str) -> int:
    if not log.exists():
        return 0
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return sum(1 for line in lines if line["tool"] == tool and line["key"] == key)


class AnsweringTasks(TasksExtension):
    """Follows a task as `TasksExtension` does, and accepts each question it asks with
    `tasks/update`, as the client's user would."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def follow(self, created: CreateTaskResult, ctx: Any) -> types.CallToolResult:
        self.followed.append(created.task_id)
        params = TaskRequestParams(task_id=created.task_id)
        while True:
            await anyio.sleep(0.05)
            task = await ctx.session.send_request(GetTaskRequest(params=params), DetailedTask)
            self.statuses.append(task.status)
            if task.status == "completed":
                return types.CallToolResult.model_validate(task.result or {})
            if task.status in ("failed", "cancelled"):
                raise TaskFailed(f"task {task.task_id}: {task.status} {task.error}")
            if task.status == "input_required":
                answers = {}
                for key in task.input_requests or {}:
                    self.asked.append(key)
                    answers[key] = {"action": "accept", "content": {}}
                update = UpdateTaskParams(task_id=created.task_id, input_responses=answers)
                await ctx.session.send_request(UpdateTaskRequest(params=update), types.EmptyResult)


def script_for(key: str) -> str:
    return (
        f'sent = await send_message(key="{key}", seconds=0)\n'
        f'deleted = await delete_record(key="{key}")\n'
        '[sent["key"], deleted["key"]]'
    )


async def as_a_task(server: Any, mode: str, log: Path) -> None:
    key = f"task-{uuid.uuid4().hex[:8]}"
    tasks = AnsweringTasks()

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("a task's question comes with input_required, not as a request")

    # The callback declares the `elicitation` capability; a task's questions come through it.
    async with Client(server, extensions=[tasks], elicitation_callback=never) as client:
        result = await client.call_tool("execute_code", {"code": script_for(key)})
    expect(len(tasks.followed) == 1, f"not a task: {tasks.statuses}")
    expect("input_required" in tasks.statuses, f"statuses: {tasks.statuses}; {text(result)}")
    expect(not result.is_error, f"error: {text(result)}")
    data = result.structured_content or {}
    expect(data.get("result") == [key, key], f"result: {data} / {text(result)}")
    expect(runs(log, "delete_record", key) == 1, "the record was not deleted once")
    expect(runs(log, "send_message", key) == 1, f"the message was sent {runs(log, 'send_message', key)} times")


async def paused_and_resumed(server: Any, mode: str, log: Path) -> None:
    key = f"code-{uuid.uuid4().hex[:8]}"
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={})

    script = script_for(key)
    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        result = await client.call_tool("execute_code", {"code": script})
    expect(not result.is_error, f"error: {text(result)}")
    data = result.structured_content or {}
    expect(data.get("result") == [key, key], f"result: {data} / {text(result)}")
    expect(len(asked) == 1, f"asked {len(asked)} times")
    expect(runs(log, "delete_record", key) == 1, "the record was not deleted once")
    expect(runs(log, "send_message", key) == 1, f"the message was sent {runs(log, 'send_message', key)} times")


def main() -> int:
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} RUN_LOG TARGET [TARGET...]", file=sys.stderr)
        return 2
    log = Path(sys.argv[1])
    checks = []
    for target in sys.argv[2:]:
        server = server_of(target, log)
        label = target.partition(":")[0] if not target.startswith("http") else "sessions"
        modes = ["auto"] if target.startswith("stateless:") else ["auto", "legacy"]
        for mode in modes:
            era = "2026-07-28" if mode == "auto" else "session"

            def bound(fn: Any, server: Any = server, mode: str = mode) -> Any:
                async def run() -> None:
                    await fn(server, mode, log)

                return run

            checks.append((f"{label} {era} paused and resumed", bound(paused_and_resumed)))
            if mode == "auto":
                checks.append((f"{label} {era} as a task", bound(as_a_task)))
    return anyio.run(run_checks, checks, CHECK_TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
