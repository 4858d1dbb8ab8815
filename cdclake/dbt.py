"""Run dbt in this process, so that it uses the Spark session (and UDFs) created here."""
from __future__ import annotations

import os
from pathlib import Path

from cdclake.paths import PROFILES_DIR, PROJECT_DIR, target_dir

EMBEDDED_TARGET = "local"  # the profile output that runs on this process's Spark session


def with_project_defaults(args: list[str], project_dir: Path = PROJECT_DIR) -> list[str]:
    """Add ``--project-dir``/``--profiles-dir`` unless the user gave them, and
    ``--no-send-anonymous-usage-stats`` unless the user chose (flag or DBT_SEND_ANONYMOUS_USAGE_STATS):
    nothing is sent to dbt Labs, and the docs site built from the manifest loads no tracker."""
    args = list(args)
    chosen = "DBT_SEND_ANONYMOUS_USAGE_STATS" in os.environ or any("anonymous-usage-stats" in a for a in args)
    if args and not args[0].startswith("-") and not chosen:
        args.append("--no-send-anonymous-usage-stats")
    if "--project-dir" not in args:
        args += ["--project-dir", str(project_dir)]
    if "--profiles-dir" not in args:
        args += ["--profiles-dir", str(PROFILES_DIR)]
    return args


def target_name(args: list[str]) -> str:
    """The profile output a dbt command runs on: ``--target``/``-t``, else ``CDCLAKE_TARGET``."""
    return option_value(args, "--target") or option_value(args, "-t") or os.environ.get("CDCLAKE_TARGET", EMBEDDED_TARGET)


def option_value(args: list[str], name: str) -> str | None:
    """The value of dbt flag ``name`` (``--flag VALUE`` or ``--flag=VALUE``) in ``args``, if given."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def cli_vars(args: list[str]) -> dict:
    """The variables of ``--vars`` (YAML) in ``args``; empty when none."""
    import yaml

    text = option_value(args, "--vars")
    return (yaml.safe_load(text) or {}) if text else {}


def project_dir_of(args: list[str]) -> Path:
    """The dbt project a command runs on: ``--project-dir``, else cdclake's."""
    return Path(option_value(args, "--project-dir") or PROJECT_DIR)


def invoke(args: list[str], project_dir: Path = PROJECT_DIR, callbacks: list | None = None) -> bool:
    """Run one dbt command (e.g. ``["build", "--select", "marts"]``); True when it succeeded.
    ``callbacks`` receive dbt's events as they happen."""
    return bool(invoke_result(args, project_dir, callbacks).success)


def invoke_result(args: list[str], project_dir: Path = PROJECT_DIR, callbacks: list | None = None,
                  manifest=None):
    """``invoke``, returning dbt's own result (``dbtRunnerResult``: ``success``, and in
    ``result.results`` each node's status). A build on the embedded session leaves out the
    nodes whose inputs have not changed since the last one (cdclake/unchanged_inputs.py).
    ``manifest``: the project as ``dbt parse`` of it returned (its ``result``), so that dbt does
    not parse it again."""
    from dbt.cli.main import dbtRunner

    from cdclake import unchanged_inputs
    from cdclake.generated import point_dbt_at

    point_dbt_at(project_dir)     # the generated models and macros of that project's warehouse
    moved = os.environ.get("CDCLAKE_TARGET_DIR") and project_dir == PROJECT_DIR
    if moved:  # dbt's artifacts follow the target folder (env: `dbt debug` has no --target-path)
        os.environ.setdefault("DBT_TARGET_PATH", str(target_dir()))
    plan = unchanged_inputs.plan_build(embedded_session(args), args, project_dir)
    run_args = plan.args if plan else args
    result = dbtRunner(manifest=manifest, callbacks=callbacks or []).invoke(with_project_defaults(run_args, project_dir))
    if plan and result.success:
        unchanged_inputs.record_build(plan, project_dir)
    if result.exception is not None:
        raise result.exception
    return result


def embedded_session(args: list[str]):
    """The Spark session dbt runs ``args`` on in this process (the embedded target), or None."""
    if target_name(args) != EMBEDDED_TARGET:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()
