"""What a dbt command line says: its target, a flag's value, its variables, its project."""
from __future__ import annotations

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


def project_dir_of(args: list[str]) -> Path:
    """The dbt project a command runs on: ``--project-dir``, else cdclake's."""
    return Path(option_value(args, "--project-dir") or PROJECT_DIR)
