"""``cdclake sql``: Spark SQL over the warehouse, printed as a grid or as JSON lines.

    cdclake sql "select ..."                 one query
    cdclake sql KEYSPACE.TABLE               a table; a log table in ScyllaDB's order (stream, time, batch sequence)
    cdclake sql                              a shell on a terminal (statements end with ';'), else statements from stdin
    [--format table|jsonl] [--limit N]       (default: table, 1000 rows; --limit 0: every row)

The session is the build's (its warehouse, its SQL functions): ``cdc_time_us(`cdc$time`)`` gives
a log row's time in microseconds, the order ``cdc$time`` (a timeuuid, held as text) does not have.
"""
from __future__ import annotations

import datetime as dt
import decimal
import re
import sys

from cdclake import output

LOG_SUFFIX = "_scylla_cdc_log"
TABLE_NAME = re.compile(r"^`?[\w$]+`?\.`?[\w$]+`?$")
# ScyllaDB's order of a log table's rows: its clustering key within each stream (partition)
LOG_ORDER = "`cdc$stream_id`, cdc_time_us(`cdc$time`), `cdc$time`, `cdc$batch_seq_no`"
DEFAULT_LIMIT = 1000


def configure(parser) -> None:
    parser.description = __doc__.split("\n\n")[0]
    parser.add_argument("query", nargs="?", help="a query, or KEYSPACE.TABLE (default: a shell, or stdin)")
    parser.add_argument("--format", choices=["table", "jsonl"], default="table")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="rows printed per query (0: all)")


def run(args) -> int:

    from cdclake.session.spark import create_session
    from cdclake.settings import target_dir

    spark = create_session(target_dir())
    if args.query is not None:
        return run_statement(spark, args.query, args.format, args.limit)
    if sys.stdin.isatty():
        return shell(spark, args.format, args.limit)
    status = 0
    for statement in statements(sys.stdin.read()):
        status = max(status, run_statement(spark, statement, args.format, args.limit))
    return status


def query_of(text: str) -> str:
    """The SQL of a command: a bare table name selects the table, a log table in ScyllaDB's order."""
    text = text.strip().rstrip(";").strip()
    if not TABLE_NAME.match(text):
        return text
    order = f" order by {LOG_ORDER}" if text.strip("`").endswith(LOG_SUFFIX) else ""
    return f"select * from {text}{order}"


def run_statement(spark, text: str, out_format: str, limit: int) -> int:
    """Run one statement and print its rows; 1 (and the error's first line) when it fails."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    query = query_of(text)
    try:
        frame = spark.sql(query)
        types = [field.dataType for field in frame.schema.fields]
        ordered = with_ordered_maps(frame)
        rows = ordered.limit(limit + 1).collect() if limit else ordered.collect()
    except (PySparkException, Py4JJavaError) as error:
        print(f"error: {first_line(error)}", file=sys.stderr)
        return 1
    more = bool(limit) and len(rows) > limit
    records = [{name: plain(restored(value, data_type)) for name, value, data_type in zip(frame.columns, row, types)}
               for row in rows[:limit or None]]
    if out_format == "jsonl":
        for line in output.jsonl_lines(records):
            print(line)
    else:
        print(output.table_text(" ".join(query.split())[:80], frame.columns, records).rstrip("\n"))
    if more:
        print(f"(the first {limit} rows: --limit N for more, 0 for all)", file=sys.stderr)
    return 0


def shell(spark, out_format: str, limit: int) -> int:
    """Statements typed at a prompt, each ended by ';'; ``exit``, ``quit`` or end of input stops."""
    import readline  # noqa: F401 - line editing and history for input()

    print("cdclake sql: statements end with ';' (a bare KEYSPACE.TABLE shows a table); exit with 'exit' or Ctrl-D")
    pending = ""
    while True:
        try:
            line = input("cdclake> " if not pending else "     ...> ")
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            pending = ""
            continue
        if not pending and line.strip().rstrip(";").lower() in ("exit", "quit"):
            return 0
        pending += line + "\n"
        done = statements(pending, complete_only=True)
        for statement in done:
            run_statement(spark, statement, out_format, limit)
        if done:
            pending = pending[pending.rindex(";") + 1:] if ";" in pending else ""
            pending = pending if pending.strip() else ""


def statements(text: str, complete_only: bool = False) -> list[str]:
    """The statements of ``text``, split at the semicolons outside quotes, backticks and comments;
    ``complete_only``: without a last one that has no semicolon yet."""
    found, current, quote, i = [], [], None, 0
    while i < len(text):
        char = text[i]
        if quote:
            current.append(char)
            quote = None if char == quote else quote
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif char in "'\"`":
            quote = char
            current.append(char)
        elif char == ";":
            found.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    if not complete_only:
        found.append("".join(current))
    return [s.strip() for s in found if s.strip()]


def plain(value):
    """A Spark value as JSON can print it: binary as 0x-hex, times in ISO 8601, rows as objects."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if hasattr(value, "asDict"):
        return {k: plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return [[plain(k), plain(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def with_ordered_maps(frame):
    """``frame`` with each map (at any depth) as its entries' array: PySpark collects a map into
    a hash map, which loses the order the table holds its entries in (CQL's); ``restored`` turns
    the entries back into a map, in that order. A frame without maps is returned as it is."""
    from pyspark.sql import functions as F

    columns = [F.col(f"`{field.name}`") for field in frame.schema.fields]
    if not any(_has_map(field.dataType) for field in frame.schema.fields):
        return frame
    return frame.select(*(_entries(column, field.dataType).alias(field.name)
                          for column, field in zip(columns, frame.schema.fields)))


def _has_map(data_type) -> bool:
    from pyspark.sql import types as T

    if isinstance(data_type, T.MapType):
        return True
    if isinstance(data_type, T.ArrayType):
        return _has_map(data_type.elementType)
    if isinstance(data_type, T.StructType):
        return any(_has_map(field.dataType) for field in data_type.fields)
    return False


def _entries(column, data_type):
    """The column expression of ``with_ordered_maps`` for a value of ``data_type``."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if not _has_map(data_type):
        return column
    if isinstance(data_type, T.MapType):
        return F.transform(F.map_entries(column), lambda entry: F.struct(
            _entries(entry["key"], data_type.keyType).alias("key"),
            _entries(entry["value"], data_type.valueType).alias("value")))
    if isinstance(data_type, T.ArrayType):
        return F.transform(column, lambda element: _entries(element, data_type.elementType))
    return F.when(column.isNull(), F.lit(None)).otherwise(F.struct(
        *(_entries(column[field.name], field.dataType).alias(field.name) for field in data_type.fields)))


def restored(value, data_type):
    """A value collected from ``with_ordered_maps``'s frame as the original column's: each map an
    ordered dict of its entries."""
    from pyspark.sql import types as T

    if value is None or not _has_map(data_type):
        return value
    if isinstance(data_type, T.MapType):
        return {restored(entry["key"], data_type.keyType): restored(entry["value"], data_type.valueType)
                for entry in value}
    if isinstance(data_type, T.ArrayType):
        return [restored(element, data_type.elementType) for element in value]
    from pyspark.sql import Row

    return Row(**{field.name: restored(value[field.name], field.dataType) for field in data_type.fields})


def first_line(error: Exception) -> str:
    text = getattr(error, "getMessage", None)
    message = text() if callable(text) else str(error)
    return (message.strip().splitlines() or [type(error).__name__])[0]
