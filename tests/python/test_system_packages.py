"""`make demo|test` install Java and chromium when missing (scripts/system_packages.sh), or, where
they cannot, say in one line what to run and fail."""
from __future__ import annotations

import os
import shutil
import subprocess

from conftest import REPO

SCRIPT = REPO / "scripts" / "system_packages.sh"


def shims(folder, **commands):
    """A PATH of only the given shell-script commands (plus what bash itself needs)."""
    folder.mkdir()
    for name, body in commands.items():
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    for needed in ("bash",):
        os.symlink(shutil.which(needed), folder / needed)
    return str(folder)


def run(path: str, *packages: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *packages], env={"PATH": path}, capture_output=True, text=True)


def test_present_packages_need_nothing(tmp_path):
    result = run(shims(tmp_path / "bin", java="exit 0", chromium="exit 0", id="echo 1000"), "java", "chromium")
    assert (result.returncode, result.stderr) == (0, "")


def test_without_the_right_to_install_it_says_what_to_run(tmp_path):
    result = run(shims(tmp_path / "bin", id="echo 1000", sudo="exit 1"), "java", "chromium")
    assert result.returncode == 3
    assert result.stderr.splitlines() == [
        "missing openjdk-17-jre-headless chromium: run  sudo apt-get install -y openjdk-17-jre-headless chromium"
        "  then run make again"]


def test_as_root_it_installs_with_apt_get(tmp_path):
    calls = tmp_path / "calls"
    result = run(shims(tmp_path / "bin", java="exit 0", id="echo 0", **{"apt-get": f'echo "$@" >> {calls}'}),
                 "java", "chromium")
    assert result.returncode == 0, result.stderr
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq chromium"]
