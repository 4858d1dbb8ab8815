"""dbt's partial-parse state of a scratch project with no generated models, parsed once per
project version and kept under ``target/parsed_projects``.

A replay (and every build in a scratch project) starts from a fresh copy of the dbt project and
then adds its own log and consumer models. Parsing that copy in full takes dbt about 7.7 s of a
replay; given the state of the same copy without the generated models, dbt parses only the files
the replay added or changed (2.7 s, reading and writing the state included). The state of an earlier replay cannot serve: its
generated models would vanish, and dbt 1.11 fails on exposures whose models vanished. dbt itself
checks the state against the project (its version, the profile, the variables and environment
variables, each file's checksum) and parses in full when it does not fit, so a stale state costs
time, never correctness; the cache key (the files, the profile, the environment) only picks a
state that fits.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

from cdclake.project.project_files import state_key
from cdclake.settings import target_dir

CACHE_SUBDIR = "parsed_projects"
STATE_FILE = Path("target") / "partial_parse.msgpack"
MANIFEST_FILE = Path("target") / "manifest.json"
KEEP_STATES = 4


def restore_or_parse(project: Path, parts: list[str]) -> None:
    """Put the partial-parse state of ``project`` (its ``parts``, no generated models yet) in its
    target folder: the cached one, else parse it now with ``dbt parse`` and cache it. Its manifest
    comes along: a first build reads its sources from it (cdclake/project/unchanged_inputs.py)."""
    from cdclake.project import dbt

    saved = {project / STATE_FILE: ".msgpack", project / MANIFEST_FILE: ".manifest.json"}
    cached = target_dir() / CACHE_SUBDIR / state_key(project, parts)
    if all(cached.with_suffix(suffix).exists() for suffix in saved.values()):
        for path, suffix in saved.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached.with_suffix(suffix), path)
        return
    with contextlib.redirect_stdout(sys.stderr):
        parsed = dbt.invoke(["parse", "--log-level", "warn"], project_dir=project)
    if parsed and all(path.exists() for path in saved):
        cached.parent.mkdir(parents=True, exist_ok=True)
        kept = sorted(cached.parent.glob("*.msgpack"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP_STATES - 1:]:   # the newest few (e.g. one per table format) stay
            old.unlink()
            old.with_suffix(".manifest.json").unlink(missing_ok=True)
        for path, suffix in saved.items():
            partial = cached.with_suffix(".part")
            shutil.copyfile(path, partial)
            os.replace(partial, cached.with_suffix(suffix))
