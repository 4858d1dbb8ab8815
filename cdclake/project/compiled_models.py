"""A model's SQL as dbt compiles it for a build, with its inputs pointed elsewhere.

Tests and benchmarks run the project's own compiled SQL on small or synthetic inputs: each
``schema.model`` reference is replaced by the name of a view holding that input.
"""
from __future__ import annotations

import contextlib
import re
import sys

from cdclake.project import dbt
from cdclake.settings import target_dir


def compiled_model_sql(model: str, variables: str | None = None) -> str:
    """Compile one model (in the Spark session of this process) and return its SQL."""
    args = ["compile", "--select", model, "--log-level", "warn"]
    if variables:
        args += ["--vars", variables]
    with contextlib.redirect_stdout(sys.stderr):      # dbt prints the compiled SQL
        ok = dbt.invoke(args)
    if not ok:
        raise RuntimeError(f"dbt compile of {model} failed")
    (path,) = (target_dir() / "compiled").rglob(f"{model}.sql")
    return path.read_text()


def compiled_inline_sql(sql: str, variables: str | None = None) -> str:
    """Compile a query that calls the project's macros (``dbt compile --inline``) and return it."""
    from dbt.cli.main import dbtRunner

    args = ["compile", "--inline", sql, "--log-level", "warn"]
    if variables:
        args += ["--vars", variables]
    with contextlib.redirect_stdout(sys.stderr):      # dbt prints the compiled SQL
        result = dbtRunner().invoke(dbt.with_project_defaults(args))
    if not result.success:
        raise RuntimeError(f"dbt compile --inline failed: {result.exception}")
    return result.result.results[0].node.compiled_code


def point_inputs(sql: str, views: dict[str, str]) -> str:
    """Replace each ``schema.model`` reference to the given models by the given view names."""
    for relation, view in views.items():
        sql, count = re.subn(rf"`?\w+`?\.`?{relation}`?\b", view, sql)
        if not count:
            raise ValueError(f"{relation} is not an input of the compiled model")
    return sql
