#!/usr/bin/env python3
"""Instructions per sequential `tools/call` of an MCP stdio server, under callgrind.

Usage: call-instructions.py SERVER [ARG ...]
  e.g. call-instructions.py target/release/tc-1 serve --stdio
       call-instructions.py target/release/rmcp-1 --best

Runs the server twice under `valgrind --tool=callgrind`, driving it through `initialize`,
`notifications/initialized` and then 1,000 (then 3,000) `add_numbers` calls, each sent only
once the answer to the one before has arrived (sequential, as the benchmark's sequential
phase). Start-up, the handshake and exit cost the same in both runs, so the difference of the
two totals over 2,000 is the cost of one call. Counts are the server's user-space instructions
(callgrind's Ir), which repeat from run to run where wall time does not.
"""

import json
import re
import subprocess
import sys
import tempfile

SHORT, LONG = 1000, 3000


def drive(server, calls, out_file):
    """Total instructions of one callgrind run of `server` answering `calls` calls."""
    log = tempfile.NamedTemporaryFile(suffix=".log")
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_file}",
        f"--log-file={log.name}",
        *server,
    ]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def send(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())

    def answer(expected_id):
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"{server[0]}: no answer to request {expected_id}")
        got = json.loads(line)
        if got.get("id") != expected_id or "error" in got:
            sys.exit(f"{server[0]}: unexpected answer to request {expected_id}: {line!r}")
        return got

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "call-instructions", "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(1, calls + 1):
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "add_numbers", "arguments": {"a": i, "b": 2}}})
        result = answer(i)["result"]
        if result.get("structuredContent", {}).get("result") != i + 2:
            sys.exit(f"{server[0]}: wrong sum for call {i}: {result}")
    proc.stdin.close()
    proc.wait()
    with open(log.name) as f:
        found = re.search(r"Collected : (\d+)", f.read())
    if not found:
        sys.exit(f"{server[0]}: no instruction count in valgrind's log")
    return int(found.group(1))


def main():
    server = sys.argv[1:]
    if not server:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        short = drive(server, SHORT, f"{tmp}/short.out")
        long = drive(server, LONG, f"{tmp}/long.out")
    per_call = (long - short) / (LONG - SHORT)
    print(f"{' '.join(server)}: {per_call:,.0f} instructions per call "
          f"({short:,} for {SHORT} calls, {long:,} for {LONG})")


if __name__ == "__main__":
    main()
