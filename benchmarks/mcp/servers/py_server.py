"""The Python SDK baseline of benchmarks/mcp: `add_numbers` (+ 199 fillers with --tools 200) on
`mcp` 2.x's MCPServer, over stdio, or with --http PORT over Streamable HTTP with sessions.

    target/py-venv/bin/python py_server.py [--tools 1|200] [--http PORT]
"""

import argparse
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("--tools", type=int, default=1)
parser.add_argument("--http", type=int)
args = parser.parse_args()

server = MCPServer("py-bench", log_level="WARNING")


@server.tool(description="Adds two numbers and returns their sum.")
def add_numbers(
    a: Annotated[float, Field(description="First number")],
    b: Annotated[float, Field(description="Second number")],
) -> float:
    return a + b


# The same fillers as build.rs: four shapes, distinct names, descriptions and parameters.
SHAPES = [
    ("get_record", "Returns record set {i} of the benchmark catalog by id. Use it to read one record.",
     [("id", "str", "Record id in set {i}, e.g. r-{i}"), ("limit", "int | None = None", "At most this many fields of set {i}")]),
    ("find_entry", "Searches index {i} for entries matching a query. Use it to look entries up.",
     [("query", "str", "Words to find in index {i}"), ("exact", "bool", "Match index {i} exactly")]),
    ("count_items", "Counts the items of range {i} between two bounds. Use it for totals.",
     [("start", "float", "Lower bound of range {i}"), ("end", "float", "Upper bound of range {i}"),
      ("step", "float | None = None", "Step within range {i}")]),
    ("list_tags", "Lists the tags of group {i}, optionally by prefix. Use it to browse tags.",
     [("max", "int", "At most this many tags of group {i}"), ("prefix", "str | None = None", "Only tags of group {i} with this prefix")]),
]

for i in range(1, args.tools):
    verb, description, params = SHAPES[i % 4]
    name = f"{verb}_{i:03d}"
    signature = []
    for pname, ptype, pdesc in params:
        ptype, _, default = ptype.partition(" = ")
        annotated = f"Annotated[{ptype}, Field(description={pdesc.format(i=i)!r})]"
        signature.append(f"{pname}: {annotated}" + (f" = {default}" if default else ""))
    scope = {"Annotated": Annotated, "Field": Field}
    exec(f"def {name}({', '.join(signature)}) -> str:\n    return 'ok'\n", scope)
    server.add_tool(scope[name], name=name, description=description.format(i=i))

if args.http is None:
    server.run()
else:
    server.run("streamable-http", host="127.0.0.1", port=args.http)
