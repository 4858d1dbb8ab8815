"""Shared bench helpers: the embedded session in a scratch warehouse, timing, the report."""
from __future__ import annotations

import time
from contextlib import contextmanager

from cdclake.settings import target_dir

BENCH_DIR = target_dir() / "bench"


def bench_session():
    from cdclake.session.spark import create_session

    return create_session(BENCH_DIR / "warehouse", app_name="cdclake-bench")


@contextmanager
def timed(results: dict, name: str, windows: dict | None = None):
    """``results[name]``: the seconds the block took; ``windows[name]``: its (start, end) in
    seconds since the epoch, when given."""
    start, wall_start = time.perf_counter(), time.time()
    yield
    results[name] = time.perf_counter() - start
    if windows is not None:
        windows[name] = (wall_start, time.time())


def machine() -> str:
    import os
    import platform

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(title: str, lines: list[str]) -> None:
    print(f"\n== {title} ({machine()})")
    for line in lines:
        print("  " + line)

