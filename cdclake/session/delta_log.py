"""A Delta table read from its files, without Spark: its version, id and newest commit from
``_delta_log/``, its rows' count from the Parquet footers of its live files, and its rows (some
columns) with pyarrow. What a command asks of a local warehouse before (or instead of) starting a
session: a cold JVM pays a Spark job per first read of each Delta table (its protocol and
metadata), where this takes milliseconds.

The log is replayed as Delta's protocol says (PROTOCOL.md, "Action Reconciliation"): the newest
classic checkpoint named by ``_last_checkpoint`` (one file or parts), then the JSON commits after
it; a file is live when added and not removed since. Tables this reader cannot read as Delta would
(deletion vectors on a live file, column mapping, partition columns, V2 checkpoints) raise
``UnreadableTable`` for the rows (their version and id are still read): the caller asks Spark.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

LOG_DIR = "_delta_log"
_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10}))?\.parquet$")


class UnreadableTable(Exception):
    """A Delta table whose rows this reader does not read (the message says why)."""


@dataclass
class DeltaSnapshot:
    folder: Path
    version: int
    table_id: str
    configuration: dict
    partition_columns: list
    reader_features: set
    files: dict = field(default_factory=dict)       # path -> add action, the live files
    newest_commit_ms: int | None = None             # the newest commit file's modification time

    @property
    def key(self) -> str:
        """``"<table id>:<version>"``: what changes with every commit and every new table."""
        return f"{self.table_id}:{self.version}"

    def _file_path(self, add: dict) -> Path:
        path = unquote(add["path"])
        if "://" in path or path.startswith("file:"):
            return Path(urlparse(path).path)
        return self.folder / path

    def readable(self) -> None:
        """Raise ``UnreadableTable`` unless the rows can be read from the files as they are."""
        if self.partition_columns:
            raise UnreadableTable(f"{self.folder}: partitioned by {', '.join(self.partition_columns)}")
        if self.configuration.get("delta.columnMapping.mode", "none") != "none":
            raise UnreadableTable(f"{self.folder}: column mapping")
        if any(add.get("deletionVector") for add in self.files.values()):
            raise UnreadableTable(f"{self.folder}: deletion vectors")

    def row_count(self) -> int:
        """The table's rows: its live files' row counts (Parquet footers), less the rows their
        deletion vectors remove."""
        import pyarrow.parquet as pq

        total = 0
        for add in self.files.values():
            stats = json.loads(add["stats"]) if add.get("stats") else {}
            rows = stats.get("numRecords")
            total += rows if rows is not None else pq.ParquetFile(self._file_path(add)).metadata.num_rows
            total -= (add.get("deletionVector") or {}).get("cardinality") or 0
        return total

    def column_max(self, column: str):
        """The largest value of ``column`` in the live files (None without a value), from each
        file's Parquet statistics where it keeps them, else from the column itself. Rows a
        deletion vector removes may still count: an upper bound, exact without them."""
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        found = None
        for add in self.files.values():
            path = self._file_path(add)
            metadata = pq.ParquetFile(path).metadata
            names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
            if column not in names:
                continue
            index = names.index(column)
            groups = [metadata.row_group(g) for g in range(metadata.num_row_groups)]
            stats = [group.column(index).statistics for group in groups]
            if all(s is not None and (s.has_min_max or s.null_count == g.num_rows) for s, g in zip(stats, groups)):
                values = [s.max for s in stats if s.has_min_max]        # a group of nulls alone has none
            else:
                values = [pc.max(pq.read_table(path, columns=[column]).column(column)).as_py()]
            for value in values:
                if value is not None and (found is None or value > found):
                    found = value
        return found

    def read(self, columns: list[str] | None = None):
        """The table's rows as a pyarrow Table (``columns`` only, when given); None when it has no
        live file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.readable()
        parts = [pq.read_table(self._file_path(add), columns=columns) for add in self.files.values()]
        if not parts:
            return None
        return pa.concat_tables(parts, promote_options="default")


def snapshot(folder: Path) -> DeltaSnapshot | None:
    """The newest snapshot of the Delta table in ``folder``, or None when it holds none."""
    log = Path(folder) / LOG_DIR
    try:
        names = [entry.name for entry in log.iterdir()]
    except (FileNotFoundError, NotADirectoryError):
        return None
    commits = sorted(int(m.group(1)) for m in map(_COMMIT.match, names) if m)
    if not commits:
        return None
    checkpoint = _last_checkpoint(log, names)
    protocol, metadata, files = {}, {}, {}
    start = 0
    if checkpoint is not None:
        version, parts = checkpoint
        for path in parts:
            for action in _checkpoint_actions(path):
                protocol, metadata = _apply(action, protocol, metadata, files)
        start = version + 1
    newest = commits[-1]
    for version in range(start, newest + 1):
        path = log / f"{version:020d}.json"
        with path.open() as commit:
            for line in commit:
                if line.strip():
                    protocol, metadata = _apply(json.loads(line), protocol, metadata, files)
    return DeltaSnapshot(Path(folder), newest, metadata.get("id", ""), metadata.get("configuration") or {},
                         list(metadata.get("partitionColumns") or []), set(protocol.get("readerFeatures") or []),
                         files, int((log / f"{newest:020d}.json").stat().st_mtime * 1000))


def commit_infos(folder: Path):
    """The commit information (``commitInfo``: operation, its parameters, ``userMetadata``) of the
    Delta table in ``folder``, newest commit first, as far back as its log's JSON commits go (what
    ``DESCRIBE HISTORY`` shows); nothing when the folder holds no Delta table."""
    log = Path(folder) / LOG_DIR
    try:
        names = [entry.name for entry in log.iterdir()]
    except (FileNotFoundError, NotADirectoryError):
        return
    for version in sorted((int(m.group(1)) for m in map(_COMMIT.match, names) if m), reverse=True):
        with (log / f"{version:020d}.json").open() as commit:
            info = next((action["commitInfo"] for action in map(json.loads, filter(str.strip, commit))
                         if "commitInfo" in action), {})
        yield {"version": version, **info}


def _apply(action: dict, protocol: dict, metadata: dict, files: dict) -> tuple[dict, dict]:
    if action.get("protocol"):
        protocol = action["protocol"]
    if action.get("metaData"):
        metadata = action["metaData"]
    if action.get("add"):
        add = action["add"]
        files[_file_key(add)] = add
    if action.get("remove"):
        files.pop(_file_key(action["remove"]), None)
    return protocol, metadata


def _file_key(action: dict) -> tuple:
    vector = action.get("deletionVector") or {}
    return unquote(action["path"]), vector.get("storageType"), vector.get("pathOrInlineDv"), vector.get("offset")


def _last_checkpoint(log: Path, names: list[str]) -> tuple[int, list[Path]] | None:
    """(version, part files) of the checkpoint ``_last_checkpoint`` names, when it is a classic
    one whose parts are all there."""
    try:
        version = json.loads((log / "_last_checkpoint").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    parts = sorted(log / name for name in names if (m := _CHECKPOINT.match(name)) and int(m.group(1)) == version)
    if not parts:
        if any(name.startswith(f"{version:020d}.checkpoint.") for name in names):
            raise UnreadableTable(f"{log.parent}: a V2 checkpoint")
        return None
    return version, parts


def _checkpoint_actions(path: Path):
    import pyarrow.parquet as pq

    kinds = [name for name in ("protocol", "metaData", "add", "remove") if name in pq.read_schema(path).names]
    for row in pq.read_table(path, columns=kinds).to_pylist():
        yield {kind: value for kind, value in row.items() if value is not None}


def table_folder(warehouse: Path, relation: str) -> Path:
    """Where a managed table ``schema.name`` of a local warehouse keeps its files."""
    schema, _, name = relation.partition(".")
    return Path(warehouse) / f"{schema.lower()}.db" / name.lower()


def local_warehouse(spark) -> Path | None:
    """The folder of the session's managed tables, when it is on this machine (None for a
    warehouse elsewhere: ``CDCLAKE_WAREHOUSE_DIR`` on a cluster's storage)."""
    location = spark.conf.get("spark.sql.warehouse.dir", None)
    if not location:
        return None
    parsed = urlparse(location)
    if parsed.scheme not in ("", "file"):
        return None
    return Path(unquote(parsed.path if parsed.scheme else location))


def table_snapshot(spark, relation: str) -> DeltaSnapshot | None:
    """The newest snapshot of the managed Delta table ``schema.name`` of the session's local
    warehouse; None when its folder holds no Delta table (absent, Parquet, a view) or the
    warehouse is not local."""
    warehouse = local_warehouse(spark)
    return None if warehouse is None else snapshot(table_folder(warehouse, relation))


def data_changed(folder: Path, before: str, now: str) -> bool:
    """Whether the Delta table in ``folder`` holds other rows at version key ``now`` than at
    ``before`` (``DeltaSnapshot.key`` each): another table (id), or a commit in between that
    added or removed a file. Commits of metadata alone (``ALTER TABLE ... SET TBLPROPERTIES``,
    an append of no rows) change no rows. Unreadable commits count as changes."""
    if before == now:
        return False
    before_id, _, before_version = before.rpartition(":")
    now_id, _, now_version = now.rpartition(":")
    if before_id != now_id or not before_version.isdigit() or not now_version.isdigit() \
            or int(now_version) < int(before_version):
        return True
    log = Path(folder) / LOG_DIR
    try:
        for version in range(int(before_version) + 1, int(now_version) + 1):
            with (log / f"{version:020d}.json").open() as commit:
                for line in commit:
                    action = json.loads(line) if line.strip() else {}
                    if action.get("add") or action.get("remove"):
                        return True
    except (OSError, ValueError):
        return True
    return False


def folder_row_count(folder: Path) -> int | None:
    """The rows of the table in ``folder`` counted from its files: a Delta table's live files, a
    Parquet table's files (their footers); 0 without the folder, None when they cannot be counted."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    if not folder.is_dir():
        return 0
    try:
        found = snapshot(folder)
        if found is not None:
            return found.row_count()
        return sum(pq.ParquetFile(path).metadata.num_rows for path in folder.glob("*.parquet")
                   if not path.name.startswith((".", "_")))
    except (OSError, ValueError, UnreadableTable):
        return None
