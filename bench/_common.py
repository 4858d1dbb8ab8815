"""Shared bench helpers: the embedded session in a scratch warehouse, timing, compiled models."""
from __future__ import annotations

import re
import time
from contextlib import contextmanager
from pathlib import Path

from cdclake.paths import target_dir

BENCH_DIR = target_dir() / "bench"


def bench_session():
    from cdclake.spark import create_session

    return create_session(BENCH_DIR / "warehouse", app_name="cdclake-bench")


@contextmanager
def timed(results: dict, name: str):
    start = time.perf_counter()
    yield
    results[name] = time.perf_counter() - start


def compiled_model(model: str) -> str:
    """The model's SQL as dbt compiles it for a build (refs rendered as `schema.model`)."""
    import contextlib
    import sys

    from cdclake import dbt

    with contextlib.redirect_stdout(sys.stderr):      # dbt prints the compiled SQL
        ok = dbt.invoke(["compile", "--select", model, "--log-level", "warn"])
    assert ok, f"dbt compile {model} failed"
    (path,) = (target_dir() / "compiled").rglob(f"{model}.sql")
    return path.read_text()


def point_inputs(sql: str, views: dict[str, str]) -> str:
    for relation, view in views.items():
        sql, count = re.subn(rf"`?\w+`?\.`?{relation}`?\b", view, sql)
        assert count, f"{relation} is not an input of the compiled model"
    return sql


def machine() -> str:
    import os
    import platform

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(title: str, lines: list[str]) -> None:
    print(f"\n== {title} ({machine()})")
    for line in lines:
        print("  " + line)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
