"""Reads JSON-RPC lines on stdin and checks each with the official Python MCP SDK's envelope
model (`mcp_types.jsonrpc.jsonrpc_message_adapter`), the model its clients decode every line
with. Prints `ok N` when every line passes; otherwise each failure, and exits 1."""

import sys

from mcp_types.jsonrpc import jsonrpc_message_adapter
from pydantic import ValidationError

failures = 0
count = 0
for number, line in enumerate(sys.stdin, start=1):
    if not line.strip():
        continue
    count += 1
    try:
        jsonrpc_message_adapter.validate_json(line)
    except ValidationError as error:
        failures += 1
        print(f"line {number}: {line.strip()}\n  {error}")
if failures:
    print(f"{failures} of {count} lines are not JSON-RPC messages the SDK accepts")
    sys.exit(1)
print(f"ok {count}")
