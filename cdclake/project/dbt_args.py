"""What a dbt command line says: its target, a flag's value, its variables, its project."""
from __future__ import annotations

import os
from pathlib import Path

from cdclake import settings
from cdclake.settings import PROJECT_DIR


def target_name(args: list[str]) -> str:
    """The profile output a dbt command runs on: ``--target``/``-t``, else ``CDCLAKE_TARGET``."""
    return option_value(args, "--target") or option_value(args, "-t") or settings.current().dbt_target


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


def dbt_target_path(project_dir: Path) -> Path:
    """Where dbt writes the project's artifacts (``DBT_TARGET_PATH``, else its ``target``)."""
    return Path(os.environ.get("DBT_TARGET_PATH") or Path(project_dir) / "target")


def project_dir_of(args: list[str]) -> Path:
    """The dbt project a command runs on: ``--project-dir``, else cdclake's."""
    return Path(option_value(args, "--project-dir") or PROJECT_DIR)


# what the project's default selector (selectors.yml) leaves out of the commands that select nodes
WHOLE_TABLE_CHECKS = "tag:whole_table"
SELECTING_COMMANDS = ("build", "run", "test", "ls", "list")
USER_SELECTION_FLAGS = ("--select", "-s", "--models", "-m", "--exclude")


def with_batch_exclusion(args: list[str]) -> list[str]:
    """``args`` with the default selector's exclusion of the whole-table checks added to a
    selection of the user's: dbt applies no default selector to a command given ``--select`` or
    ``--exclude``, so without it ``cdclake build --exclude X`` would run them. Unchanged for a
    ``--selector``, or a selection that names the checks (``cdclake test --select tag:whole_table``)."""
    if not args or args[0] not in SELECTING_COMMANDS or option_value(args, "--selector") is not None:
        return list(args)
    if not any(arg in USER_SELECTION_FLAGS or arg.split("=", 1)[0] in USER_SELECTION_FLAGS for arg in args):
        return list(args)
    if any(WHOLE_TABLE_CHECKS.split(":", 1)[1] in arg for arg in args):
        return list(args)
    return [*args, "--exclude", WHOLE_TABLE_CHECKS]
