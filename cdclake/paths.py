"""Where the dbt project, its profiles and its working folders live."""
from __future__ import annotations

import os
from pathlib import Path

INSTALL_DIR = Path(__file__).resolve().parents[1]    # the checkout cdclake runs from (its jars/, scripts/)
PROJECT_DIR = Path(os.environ.get("CDCLAKE_PROJECT_DIR", INSTALL_DIR))
PROFILES_DIR = PROJECT_DIR / "profiles"


def target_dir(project_dir: Path = PROJECT_DIR) -> Path:
    """The target folder: dbt's artifacts and the embedded warehouse and metastore.
    ``CDCLAKE_TARGET_DIR`` moves it (e.g. a second workspace beside a running one)."""
    override = os.environ.get("CDCLAKE_TARGET_DIR")
    return Path(override).resolve() if override else project_dir / "target"
