"""Where the dbt project, its profiles and its working folders live."""
from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(os.environ.get("CDCLAKE_PROJECT_DIR", Path(__file__).resolve().parents[1]))
PROFILES_DIR = PROJECT_DIR / "profiles"


def target_dir(project_dir: Path = PROJECT_DIR) -> Path:
    """The project's target folder; the embedded warehouse and metastore live inside it."""
    return project_dir / "target"
