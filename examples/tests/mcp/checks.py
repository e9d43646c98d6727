"""What the client scripts here share: a failed check, and running named checks in order.

Each passing check prints `ok <name>`; the first failure prints `FAIL <name>: <reason>` and
ends the run with 1; after them all, `all N checks passed` (the Rust side looks for that line,
so a script that exits 0 without running its checks proves nothing).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Awaitable, Callable

import anyio


class CheckFailed(Exception):
    pass


def expect(cond: bool, reason: str) -> None:
    if not cond:
        raise CheckFailed(reason)


async def run_checks(checks: list[tuple[str, Callable[[], Awaitable[None]]]], timeout: float) -> int:
    """Runs `checks` one after the other, each within `timeout` seconds; the exit status."""
    for name, check in checks:
        try:
            with anyio.fail_after(timeout):
                await check()
        except TimeoutError:
            print(f"FAIL {name}: no outcome within {timeout:.0f} s", file=sys.stderr)
            return 1
        except CheckFailed as e:
            print(f"FAIL {name}: {e}", file=sys.stderr)
            return 1
        except Exception as e:
            print(f"FAIL {name}: {''.join(traceback.format_exception(e)).rstrip()}", file=sys.stderr)
            return 1
        print(f"ok {name}", flush=True)
    print(f"all {len(checks)} checks passed", flush=True)
    return 0
