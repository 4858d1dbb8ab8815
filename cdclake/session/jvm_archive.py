"""The class archive of cdclake's JVMs (JDK 17's dynamic class-data sharing).

A cdclake command's JVM loads and verifies some 24,000 classes, most of them Spark's, and a
command such as ``cdclake status``, ``cdclake load`` or ``cdclake replay`` is short: that
loading is a good part of its start. The first command on a machine (per java binary and class
path, see ``fingerprint``) has its JVM write the classes it loaded to an archive as it exits
(``-XX:ArchiveClassesAtExit``, some 160-190 MB, 10-25 s once); later commands map that archive
(``-XX:SharedArchiveFile``) and skip loading and verifying the 15,000 classes it holds. The JVM
checks an archive against its own version and class path and ignores one that does not match.
The archive depends on the machine, not on the project or target folder: it lives in the user's
cache (``archive_folder``).

The archive is written under a name of its own (``.partial-<pid>``) and renamed when the JVM
exited cleanly, so a JVM never maps a half-written one; a partial archive whose process is
gone (a killed command) is deleted by the next command.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cdclake import settings

WAIT_FOR_DUMP_S = 300
# the JVM's CDS warnings (classes it cannot archive) go to its stdout, the replay's output
QUIET = "-Xlog:cds*=off"


def archive_folder() -> Path:
    """Where the archives live: ``CDCLAKE_JVM_ARCHIVE_DIR``, else ``cdclake/jvm`` in the user's
    cache (``XDG_CACHE_HOME``, else ``~/.cache``). Deleting it is always safe."""
    override = settings.current().jvm_archive_dir
    if override:
        return override
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "cdclake" / "jvm"


def fingerprint(classpath: list[Path]) -> str:
    """What an archive is made for: the java binary and the jars on the JVM's class path."""
    java_home = os.environ.get("JAVA_HOME")
    java = shutil.which("java", path=os.path.join(java_home, "bin") if java_home else None) or "java"
    parts = [os.path.realpath(java)] + sorted(str(Path(jar).resolve()) for jar in classpath)
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:12]


def archive_options(folder: Path, classpath: list[Path]) -> str:
    """The JVM options that map this machine's archive in ``folder``, or, without one, write it
    when the JVM exits (``finish_archive`` at this process's exit waits for that and renames it)."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"classes-{fingerprint(classpath)}.jsa"
    remove_orphaned_partials(folder)
    if archive.exists():
        return f"-XX:SharedArchiveFile={archive} {QUIET}"
    partial = archive.with_name(f"{archive.name}.partial-{os.getpid()}")
    atexit.register(finish_archive, partial, archive)
    return f"-XX:ArchiveClassesAtExit={partial} {QUIET}"


def remove_orphaned_partials(folder: Path) -> None:
    """Delete the partial archives of processes that are gone (killed while their JVM wrote)."""
    for partial in folder.glob("*.jsa.partial-*"):
        pid = int(partial.name.rsplit("-", 1)[1])
        if pid != os.getpid() and not process_alive(pid):
            partial.unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def finish_archive(partial: Path, archive: Path) -> None:
    """Stop the session, let the JVM exit (it writes ``partial`` then) and rename the archive."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    gateway = SparkContext._gateway
    process = getattr(gateway, "proc", None)
    if process is None:
        return
    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()
    print("cdclake: writing the JVM's class archive (once per machine; later commands start faster)",
          file=sys.stderr)
    process.stdin.close()      # the JVM exits when its stdin closes (PythonGatewayServer)
    try:
        process.wait(timeout=WAIT_FOR_DUMP_S)
    except subprocess.TimeoutExpired:     # a stuck dump: no archive this time
        process.kill()
        partial.unlink(missing_ok=True)
        return
    if process.returncode == 0 and partial.exists() and partial.stat().st_size > 0:
        os.replace(partial, archive)
    else:
        partial.unlink(missing_ok=True)
