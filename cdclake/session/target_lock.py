"""One cdclake process at a time per warehouse folder.

The embedded Derby metastore admits one JVM, and two builds writing the same tables would race.
So every command that opens the warehouse (build, run, seed, test, serve, check, report, replay)
first takes an exclusive lock on ``<folder>/.cdclake.lock`` and keeps it until it exits; the
operating system drops it when the process ends, even on SIGKILL. A second command finds it
taken and stops at once, saying which process holds the folder and how to use another one.
"""
from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path
from typing import IO

LOCK_FILE = ".cdclake.lock"
# left by a process whose command ended well; absent after one that was killed or failed (or
# while one runs), so that the next session tidies what it may have left half written
FINISHED_FILE = ".cdclake.finished"
_held: dict[Path, IO] = {}       # open lock files, kept for the life of the process


class TargetInUseError(RuntimeError):
    """Another process holds the folder."""


def _this_process() -> str:
    program = Path(sys.argv[0]).name
    command = " ".join(["cdclake" if program in ("cdclake", "cli.py") else program] + sys.argv[1:])
    return f"process {os.getpid()} ({command[:80]}, since {time.strftime('%H:%M:%S')})"


def hold(folder: Path) -> None:
    """Take the folder's lock for the rest of this process, or raise ``TargetInUseError``."""
    folder = Path(folder).resolve()
    path = folder / LOCK_FILE
    if path in _held:
        return
    folder.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise TargetInUseError(
            f"{folder} is in use by {holder}; wait for it to end, or give this command another "
            f"folder: CDCLAKE_TARGET_DIR=/some/other/folder"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(_this_process() + "\n")
    handle.flush()
    _held[path] = handle



def last_run_finished(folder: Path, forget: bool = True) -> bool:
    """Whether the last process that held ``folder`` (this one holds it now) said its command
    ended well. Forgotten as this process starts (``forget``): it says so again when it ends well
    (``finished``)."""
    marker = Path(folder).resolve() / FINISHED_FILE
    found = marker.exists()
    if forget:
        marker.unlink(missing_ok=True)
    return found


def finished() -> None:
    """This process's command ended well: the folders it holds are as a finished run leaves them."""
    for lock in _held:
        lock.with_name(FINISHED_FILE).touch()
