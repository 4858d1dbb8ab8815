"""The class archive of cdclake's JVMs (cdclake/session/jvm_archive.py): where it lives, which archive a
JVM maps, and the partial archives of killed processes. That a command writes one and the next
maps it: test_replay_cli, test_own_keyspace."""
from __future__ import annotations

import subprocess
import sys

from cdclake.session import jvm_archive
from cdclake.session.spark import classpath_jars


def test_the_archive_lives_in_the_users_cache_unless_told_otherwise(tmp_path, monkeypatch):
    monkeypatch.delenv("CDCLAKE_JVM_ARCHIVE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert jvm_archive.archive_folder() == tmp_path / "cache" / "cdclake" / "jvm"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert jvm_archive.archive_folder() == tmp_path / ".cache" / "cdclake" / "jvm"
    monkeypatch.setenv("CDCLAKE_JVM_ARCHIVE_DIR", str(tmp_path / "here"))
    assert jvm_archive.archive_folder() == tmp_path / "here"


def test_an_archive_is_named_after_the_java_binary_and_the_class_path(tmp_path):
    jars = classpath_jars()
    assert jvm_archive.fingerprint(jars) == jvm_archive.fingerprint(list(reversed(jars)))
    assert jvm_archive.fingerprint(jars) != jvm_archive.fingerprint(jars + [tmp_path / "another.jar"])


def test_an_existing_archive_is_mapped_with_the_jvms_archive_warnings_off(tmp_path):
    jars = classpath_jars()
    archive = tmp_path / f"classes-{jvm_archive.fingerprint(jars)}.jsa"
    archive.write_bytes(b"an archive")
    assert jvm_archive.archive_options(tmp_path, jars) == f"-XX:SharedArchiveFile={archive} -Xlog:cds*=off"


def test_partial_archives_of_processes_that_are_gone_are_deleted(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    orphan = tmp_path / f"classes-0.jsa.partial-{gone}"
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        writing = tmp_path / f"classes-0.jsa.partial-{running.pid}"
        for path in (orphan, writing):
            path.write_bytes(b"half an archive")
        jvm_archive.remove_orphaned_partials(tmp_path)
        assert not orphan.exists() and writing.exists()
    finally:
        running.kill()
        running.wait()
