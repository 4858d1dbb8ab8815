"""The files of cdclake's dbt project (a scratch project copies them) and a digest of what dbt
checks a parse of them against."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cdclake.settings import GENERATED_DIR_ENV, PROFILES_DIR

PROJECT_PARTS = ["dbt_project.yml", "selectors.yml", "models", "macros", "seeds", "tests/dbt"]


def state_key(project: Path, parts: list[str]) -> str:
    """A digest of what dbt checks a partial-parse state against: the dbt version, the project's
    files, the profile and the environment variables cdclake and dbt read."""
    from dbt.version import __version__ as dbt_version

    digest = hashlib.sha256(dbt_version.encode())
    files = [project / part for part in parts]
    for path in sorted(p for f in files for p in ([f] if f.is_file() else f.rglob("*")) if p.is_file()):
        digest.update(str(path.relative_to(project)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update((PROFILES_DIR / "profiles.yml").read_bytes())
    # not the generated folder's name: it follows the project's folder (cdclake/project/generated.py)
    for name in sorted(n for n in os.environ if n.startswith(("CDCLAKE_", "DBT_")) and n != GENERATED_DIR_ENV):
        digest.update(f"{name}={os.environ[name]}\0".encode())
    return digest.hexdigest()[:24]
