"""The dbt project's variables (``vars:`` of dbt_project.yml), for the commands that need one
before or without dbt (a load's warnings)."""
from __future__ import annotations

from pathlib import Path

from cdclake.settings import PROJECT_DIR


def project_var(name: str, project_dir: Path = PROJECT_DIR):
    """The default value of the project variable ``name``."""
    import yaml

    return yaml.safe_load((Path(project_dir) / "dbt_project.yml").read_text(encoding="utf-8"))["vars"][name]
