"""Run dbt in this process, so that it uses the Spark session (and UDFs) created here."""
from __future__ import annotations

import os
from pathlib import Path

from cdclake import settings
from cdclake.project.dbt_args import cli_vars, option_value, project_dir_of, target_name, with_batch_exclusion  # noqa: F401
from cdclake.settings import EMBEDDED_TARGET, PROFILES_DIR, PROJECT_DIR, target_dir


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


def invoke(args: list[str], project_dir: Path = PROJECT_DIR, callbacks: list | None = None) -> bool:
    """Run one dbt command (e.g. ``["build", "--select", "marts"]``); True when it succeeded.
    ``callbacks`` receive dbt's events as they happen."""
    return bool(invoke_result(args, project_dir, callbacks).success)


def invoke_result(args: list[str], project_dir: Path = PROJECT_DIR, callbacks: list | None = None,
                  manifest=None):
    """``invoke``, returning dbt's own result (``dbtRunnerResult``: ``success``, and in
    ``result.results`` each node's status). ``manifest``: the project as ``dbt parse`` of it
    returned (its ``result``), so that dbt does not parse it again."""
    from dbt.cli.main import dbtRunner

    prepare_environment(project_dir)
    if manifest is None:
        parse_state_for_vars(args, project_dir)
    result = dbtRunner(manifest=manifest, callbacks=callbacks or []).invoke(with_project_defaults(args, project_dir))
    if result.exception is not None:
        raise result.exception
    return result


PARSE_STATE = "partial_parse.msgpack"
PARSE_STATES_SUBDIR = "parse_states"


def parse_state_for_vars(args: list[str], project_dir: Path = PROJECT_DIR) -> None:
    """dbt's partial-parse state for the variables of ``args``: dbt keeps one, and parses the
    project in full whenever a command's ``--vars`` differ from the last one's (``cdclake load
    example`` seeds with ``{cdc_example: true}``, a build runs without: 3-6 s each time). One
    state is kept per set of variables under ``target/parse_states/``, and the one for these
    variables put in place. dbt checks a state against the project anyway: a stale one costs a
    full parse, never correctness."""
    import hashlib
    import json
    import shutil

    from cdclake.project.dbt_args import dbt_target_path

    target = dbt_target_path(project_dir)
    key = hashlib.sha256(json.dumps(cli_vars(args), sort_keys=True, default=str).encode()).hexdigest()[:16]
    state, marker = target / PARSE_STATE, target / f"{PARSE_STATE}.vars"
    current = marker.read_text().strip() if marker.exists() else None
    if current == key:
        return
    kept = target / PARSE_STATES_SUBDIR
    if current and state.exists():
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(state, kept / f"{current}.msgpack")
    saved = kept / f"{key}.msgpack"
    if saved.exists():
        shutil.copyfile(saved, state)
    target.mkdir(parents=True, exist_ok=True)
    marker.write_text(key)


def prepare_environment(project_dir: Path = PROJECT_DIR) -> None:
    """What dbt reads from the environment for ``project_dir``: its generated folder
    (cdclake/project/generated.py) and, for cdclake's project in a moved target folder, where its
    artifacts go (``DBT_TARGET_PATH``: `dbt debug` has no --target-path)."""
    from cdclake.project.generated import point_dbt_at

    point_dbt_at(project_dir)
    if settings.current().target_dir_override and project_dir == PROJECT_DIR:
        os.environ.setdefault("DBT_TARGET_PATH", str(target_dir()))


def embedded_session(args: list[str]):
    """The Spark session dbt runs ``args`` on in this process (the embedded target), or None."""
    if target_name(args) != EMBEDDED_TARGET:
        return None
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()
