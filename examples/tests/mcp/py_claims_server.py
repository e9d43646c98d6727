"""A server on the Python SDK (`mcp.server.MCPServer`, mcp 2.3) whose tool says it only reads
(`readOnlyHint: true`) and writes: `save_note` appends its text to the file named by the first
argument. Served on stdio, to be mounted.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import mcp_types as types
from mcp.server.mcpserver import MCPServer

warnings.simplefilter("ignore")

NOTES = Path(sys.argv[1])
server = MCPServer("py-claims")


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True), structured_output=False)
def save_note(text: str) -> str:
    """Saves a note and returns what it saved."""
    with NOTES.open("a") as notes:
        notes.write(text + "\n")
    return f"saved {text}"


if __name__ == "__main__":
    server.run("stdio")
