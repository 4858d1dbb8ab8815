"""Import of a cluster's ``system.cdc_streams`` (cdclake/generations/tablet_import.py,
docs/scylla/tablets.md §2, §7.1, §9) into rows of ``cdc_input.tablet_streams``.

The exports are printed by cqlsh's own formatter (scylla-cqlsh's ``cqlshlib.formatting``): for
``COPY … TO`` as ``copyutil.ExportProcess.format_value`` calls it (milliseconds, no colors) and
written with COPY's CSV dialect; for a ``SELECT`` as the shell's ``print_result`` /
``print_formatted_result`` (``_vertically`` with EXPAND ON) lay it out, with the shell's display
formats (microseconds, colors on a terminal, a header per page). The data is the worked example of
§9: two sets of ks.t, S0 (2 streams) and S1 (4), with the server's rows in the server's order."""
from __future__ import annotations

import csv
import io
import random
import re
from collections import defaultdict
from datetime import datetime, timedelta

import pytest
from cqlshlib.displaying import COLUMN_NAME_COLORS, NO_COLOR_MAP, RED
from cqlshlib.formatting import CqlType, DateTimeFormat, format_by_type, format_value

from cdclake.generations.generation_import import GenerationImportError
from cdclake.generations.tablet_import import CDC_STREAMS_COLUMNS, import_cdc_streams, is_select_output
from cdclake.generations.tablet_streams import TABLET_STREAMS_COLUMNS
from cdclake.load.table_export import CQLSH_DIALECT
from cqlsh_export import COPY_OPTIONS
from python_udfs.int64 import INT64_MAX, INT64_MIN
from python_udfs.stream_ids import RANDOM_SHIFT, decode_stream_id, stream_id_for

S0 = 1_768_046_400_000                          # 2026-01-10 12:00:00.000 UTC: ks.t created at 12:00:05 - 5 s
S1 = S0 + 31 * 60_000 + 5_000                   # 12:31:05.000: the split at 12:30 + 2 * 30 s + 5 s
TYPES = {"keyspace_name": "text", "table_name": "text", "timestamp": "timestamp", "stream_state": "tinyint",
         "stream_id": "blob"}


def doc_stream(token: int, low_word: str) -> bytes:
    """The §9 ID with this token and low word, built as ScyllaDB builds it: index 0, version 1,
    the word's top 38 bits as the random part."""
    return stream_id_for(token, 0, int(low_word, 16) >> RANDOM_SHIFT)


A = doc_stream(-1, "f14b9ad0e0000001")
B = doc_stream(INT64_MAX, "649a7834dc000001")
C = doc_stream(-4611686018427387905, "0e9a8e9140000001")
D = doc_stream(-1, "d04a2cbccc000001")
E = doc_stream(4611686018427387903, "1a24be40ac000001")
F = doc_stream(INT64_MAX, "95767727e0000001")

# system.cdc_streams for ks.t in the server's order (§9): (timestamp, stream_state, stream_id)
SERVER_ROWS = [(S0, 0, A), (S0, 0, B), (S0, 2, A), (S0, 2, B),
               (S1, 0, C), (S1, 0, D), (S1, 0, E), (S1, 0, F), (S1, 1, A), (S1, 1, B),
               (S1, 2, C), (S1, 2, D), (S1, 2, E), (S1, 2, F)]
EXPECTED = [("ks", "t", S0, -1, A.hex()), ("ks", "t", S0, INT64_MAX, B.hex()),
            ("ks", "t", S1, -4611686018427387905, C.hex()), ("ks", "t", S1, -1, D.hex()),
            ("ks", "t", S1, 4611686018427387903, E.hex()), ("ks", "t", S1, INT64_MAX, F.hex())]


def table_rows(keyspace="ks", table="t", rows=SERVER_ROWS) -> list[tuple]:
    return [(keyspace, table, ts, state, stream) for ts, state, stream in rows]


# --------------------------------------------------------------------------------------------- cqlsh emulation

def driver_value(value, column: str):
    """What the driver hands cqlsh: a timestamp as a naive UTC datetime, the rest as they are."""
    return datetime(1970, 1, 1) + timedelta(milliseconds=value) if column == "timestamp" else value


def copy_csv(rows, *, header: bool, columns=CDC_STREAMS_COLUMNS) -> str:
    """``COPY system.cdc_streams [(columns)] TO … [WITH HEADER=true]``: copyutil.ExportProcess.format_value."""
    out = io.StringIO()
    writer = csv.writer(out, **CQLSH_DIALECT)
    if header:
        writer.writerow(columns)
    for row in rows:
        values = dict(zip(CDC_STREAMS_COLUMNS, row))
        writer.writerow([str(format_value(driver_value(values[c], c), cqltype=CqlType(TYPES[c]), encoding="utf-8",
                                          colormap=NO_COLOR_MAP, quote=False, float_precision=5, **COPY_OPTIONS))
                         for c in columns])
    return out.getvalue()


def _shown(value, cqltype, color: bool, colormap=None):
    """cqlsh's Shell.myformat_value with the default display options."""
    return format_by_type(value, cqltype=cqltype, encoding="utf-8", addcolor=color, colormap=colormap,
                          date_time_format=DateTimeFormat(), float_precision=5)


def _column_name(name: str, color: bool):
    """Shell.myformat_colname: partition key columns red, clustering columns cyan."""
    colors = COLUMN_NAME_COLORS.copy()
    colors.default_factory = (lambda: RED) if name in ("keyspace_name", "table_name") else (lambda: "\033[0;1;36m")
    return _shown(name, None, color, colors)


def select_output(rows, *, page_size: int = 5000, tty: bool = False, expand: bool = False,
                  columns=CDC_STREAMS_COLUMNS) -> str:
    """``SELECT <columns> FROM system.cdc_streams`` as cqlsh prints it: Shell.print_result (pages,
    ``---MORE---`` on a terminal, ``(N rows)``), print_formatted_result[_vertically]."""
    out = [""]
    names = [_column_name(c, tty) for c in columns]
    pages = [rows[i:i + page_size] for i in range(0, len(rows), page_size)] or [[]]
    count = 0
    for number, page in enumerate(pages):
        values = [[_shown(driver_value(dict(zip(CDC_STREAMS_COLUMNS, row))[c], c), CqlType(TYPES[c]), tty)
                   for c in columns] for row in page]
        if expand:
            name_width = max(n.displaywidth for n in names)
            value_width = max(v.displaywidth for row in values for v in row)
            for i, row in enumerate(values):
                out.append("@ Row %d" % (count + i + 1))
                out.append("-%s-" % "-+-".join(["-" * name_width, "-" * value_width]))
                for name, value in zip(names, row):
                    out.append(" " + " | ".join([name.ljust(name_width, color=tty),
                                                 value.ljust(value.displaywidth, color=tty)]))
                out.append("")
        else:
            widths = [max([n.displaywidth] + [row[k].displaywidth for row in values]) for k, n in enumerate(names)]
            if number == 0 or tty:
                out.append(" " + " | ".join(n.ljust(w, color=tty) for n, w in zip(names, widths)).rstrip())
                out.append("-%s-" % "-+-".join("-" * w for w in widths))
            out += [" " + " | ".join(v.rjust(w, color=tty) for v, w in zip(row, widths)) for row in values]
            if tty:
                out.append("")
        count += len(page)
        if number + 1 < len(pages) and tty:
            out.append("---MORE---")
    if not tty:
        out.append("")
    out.append("(%d rows)" % count)
    return "\n".join(out) + "\n"


# what cqlsh -e "SELECT * FROM system.cdc_streams WHERE keyspace_name='ks' AND table_name='t'" prints
# for S0 alone: the values right-aligned under their names, timestamps in microseconds on screen
S0_PRINTED = """
 keyspace_name | table_name | timestamp                       | stream_state | stream_id
---------------+------------+---------------------------------+--------------+------------------------------------
            ks |          t | 2026-01-10 12:00:00.000000+0000 |            0 | 0xfffffffffffffffff14b9ad0e0000001
            ks |          t | 2026-01-10 12:00:00.000000+0000 |            0 | 0x7fffffffffffffff649a7834dc000001
            ks |          t | 2026-01-10 12:00:00.000000+0000 |            2 | 0xfffffffffffffffff14b9ad0e0000001
            ks |          t | 2026-01-10 12:00:00.000000+0000 |            2 | 0x7fffffffffffffff649a7834dc000001

(4 rows)
"""


def write(tmp_path, text: str, name: str = "streams.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


# --------------------------------------------------------------------------------------------- the worked example

def test_the_worked_example_ids_are_the_published_ones():
    """§9's IDs, rebuilt from their tokens: the token is bytes 0-7, index 0, version 1 (§2)."""
    assert ["0x" + s.hex() for s in (A, B, C, D, E, F)] == [
        "0xfffffffffffffffff14b9ad0e0000001", "0x7fffffffffffffff649a7834dc000001",
        "0xbfffffffffffffff0e9a8e9140000001", "0xffffffffffffffffd04a2cbccc000001",
        "0x3fffffffffffffff1a24be40ac000001", "0x7fffffffffffffff95767727e0000001"]
    assert all(decode_stream_id(s).index == 0 and decode_stream_id(s).version == 1 for s in (A, B, C, D, E, F))
    assert S0_PRINTED == select_output(table_rows(rows=SERVER_ROWS[:4]))
    assert len(EXPECTED[0]) == len(TABLET_STREAMS_COLUMNS)


def test_copy_export_with_header(tmp_path):
    rows = table_rows()
    random.Random(1).shuffle(rows)                       # COPY TO exports token ranges in parallel
    text = copy_csv(rows, header=True)
    assert text.startswith("keyspace_name,table_name,timestamp,stream_state,stream_id\r\n")
    assert "ks,t,2026-01-10 12:31:05.000+0000,1,0xfffffffffffffffff14b9ad0e0000001\r\n" in text
    assert import_cdc_streams(write(tmp_path, text)) == EXPECTED
    assert import_cdc_streams(write(tmp_path, text), header=True) == EXPECTED


def test_copy_export_without_header(tmp_path):
    text = copy_csv(table_rows(), header=False)
    assert text.startswith("ks,t,2026-01-10 12:00:00.000+0000,0,0xfffffffffffffffff14b9ad0e0000001\r\n")
    assert import_cdc_streams(write(tmp_path, text)) == EXPECTED
    assert import_cdc_streams(io.StringIO(text)) == EXPECTED
    assert import_cdc_streams(str(write(tmp_path, text)), header=False) == EXPECTED


def test_copy_export_of_chosen_columns_with_header_and_in_parts(tmp_path):
    """``COPY system.cdc_streams (stream_id, …) TO 'streams.csv' WITH HEADER=true AND MAXOUTPUTSIZE=5``:
    the header names the columns; the later parts (``.1``, ``.2``) have no header and its columns."""
    columns = ("stream_id", "stream_state", "timestamp", "table_name", "keyspace_name")
    rows = table_rows()
    first = write(tmp_path, copy_csv(rows[:5], header=True, columns=columns))
    parts = [write(tmp_path, copy_csv(rows[5:10], header=False, columns=columns), "streams.csv.1"),
             write(tmp_path, copy_csv(rows[10:], header=False, columns=columns), "streams.csv.2")]
    assert import_cdc_streams([first] + parts) == EXPECTED
    with pytest.raises(GenerationImportError, match=r"streams\.csv\.1: header \['0xffff.* lacks column"):
        import_cdc_streams([first] + parts, header=True)  # header=True: every file starts with one
    with pytest.raises(GenerationImportError, match=r"streams\.csv\.1, line 1: column 'stream_state': not an int"):
        import_cdc_streams(parts)                        # without its first part: in the table's order


def test_select_output(tmp_path):
    text = select_output(table_rows())
    assert is_select_output(text) and not is_select_output(copy_csv(table_rows(), header=True))
    assert "(14 rows)" in text and " | 2026-01-10 12:31:05.000000+0000 | " in text
    assert import_cdc_streams(write(tmp_path, text, "streams.txt")) == EXPECTED


def test_select_output_pasted_from_a_terminal(tmp_path):
    """A terminal session: the prompt and statement, colors, a header on every page and
    ``---MORE---`` between pages, a warning after the table."""
    text = ("cqlsh> SELECT * FROM system.cdc_streams WHERE keyspace_name = 'ks' AND table_name = 't';\n"
            + select_output(table_rows(), page_size=4, tty=True)
            + "\nWarnings :\nsomething the server said\n\ncqlsh> \n")
    assert "\033[" in text and text.count("---MORE---") == 3 and text.count("stream_state") == 4
    assert import_cdc_streams(write(tmp_path, text, "session.txt")) == EXPECTED
    cut = text[:text.index("---MORE---")] + "(14 rows)\n"
    with pytest.raises(GenerationImportError, match=r"session\.txt, line 10: cqlsh printed \(14 rows\) but 4 were"):
        import_cdc_streams(write(tmp_path, cut, "session.txt"))


def test_select_output_with_expand_on(tmp_path):
    text = select_output(table_rows(), page_size=6, expand=True)
    assert "@ Row 14\n" in text and " stream_state  | 1\n" in text
    assert import_cdc_streams(write(tmp_path, text, "streams.txt")) == EXPECTED
    assert import_cdc_streams(write(tmp_path, select_output(table_rows(), tty=True, expand=True))) == EXPECTED
    current = select_output(table_rows(rows=SERVER_ROWS[:8]), expand=True)      # the last row: F of S1
    cut = current[:current.rindex(" stream_id     | ") + len(" stream_id     | ") + 34]
    assert cut.endswith(F.hex()) and import_cdc_streams(io.StringIO(cut)) == EXPECTED   # no blank, no footer


def test_several_tables_are_sorted_and_tokens_come_from_the_ids(tmp_path):
    """Tokens are the IDs' (a layout that is not a power of two, §5), never recomputed; rows by
    keyspace, table, set, token; an ID appearing in two exports once."""
    odd = [(S1 + 7, 0, stream_id_for(token, 0, 99 + k)) for k, token in enumerate([INT64_MAX, -5, INT64_MIN + 1])]
    rows = table_rows("ks", "u", odd) + table_rows("a", "t", SERVER_ROWS[:4]) + table_rows()
    imported = import_cdc_streams([write(tmp_path, copy_csv(rows, header=False)),
                                   io.StringIO(select_output(table_rows("a", "t", SERVER_ROWS[:4])))])
    assert imported == ([("a", "t", S0, -1, A.hex()), ("a", "t", S0, INT64_MAX, B.hex())] + EXPECTED
                        + [("ks", "u", S1 + 7, token, stream_id_for(token, 0, 99 + k).hex())
                           for k, token in sorted(enumerate([INT64_MAX, -5, INT64_MIN + 1]), key=lambda p: p[1])])
    assert import_cdc_streams(io.StringIO(copy_csv(table_rows(rows=SERVER_ROWS[2:4]), header=False))) == []


def test_each_set_has_the_current_rows_only():
    """A set's streams are its state-0 rows: the closed (1) and opened (2) rows are not added, even
    when they disagree with them (that is the pipeline's check, not the importer's)."""
    stray = stream_id_for(0, 0, 12345)
    rows = SERVER_ROWS + [(S1, 2, stray), (S1, 1, C), (S0 + 1, 2, stray)]
    by_set = defaultdict(list)
    for _, _, ts, token, stream in import_cdc_streams(io.StringIO(select_output(table_rows(rows=rows)))):
        by_set[ts].append((token, stream))
    assert by_set == {S0: [(-1, A.hex()), (INT64_MAX, B.hex())],
                      S1: [(-4611686018427387905, C.hex()), (-1, D.hex()), (4611686018427387903, E.hex()),
                           (INT64_MAX, F.hex())]}


# --------------------------------------------------------------------------------------------- errors

GOOD = "ks,t,2026-01-10 12:00:00.000+0000,0,0x" + A.hex()
ID = "0x" + B.hex()


@pytest.mark.parametrize("line,message", [
    (f"ks,t,2026-01-10 12:00:00.000+0000,3,{ID}", "column 'stream_state': 3 is not a stream state"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,-1,{ID}", "column 'stream_state': -1 is not a stream state"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,128,{ID}", "column 'stream_state': tinyint out of range: 128"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,open,{ID}", "column 'stream_state': not an integer: 'open'"),
    ("ks,t,2026-01-10 12:00:00.000+0000,1,0x0102", "column 'stream_id': 0x0102 is not a 16-byte stream id (2 bytes)"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,2,{ID}00", f"column 'stream_id': {ID}00 is not a 16-byte stream id (17"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,0,{B.hex()}", f"column 'stream_id': not a blob literal: '{B.hex()}'"),
    ("ks,t,2026-01-10 12:00:00.000+0000,0,", "column 'stream_id' is null"),
    (f"ks,t,yesterday,0,{ID}", "column 'timestamp': not a timestamp: 'yesterday'"),
    (f"ks,t,2026-02-30 12:00:00.000+0000,0,{ID}", "column 'timestamp': not a timestamp: '2026-02-30"),
    (f"ks,t,2026-01-10 12:00:00.000001+0000,0,{ID}", "column 'timestamp': '2026-01-10 12:00:00.000001"),
    (f",t,2026-01-10 12:00:00.000+0000,0,{ID}", "column 'keyspace_name' is null"),
    (f"ks,t,2026-01-10 12:00:00.000+0000,0,{ID},x", "6 fields, expected 5"),
])
def test_copy_export_errors_name_file_line_column_and_value(tmp_path, line, message):
    path = write(tmp_path, f"{GOOD}\r\n{line}\r\n")
    with pytest.raises(GenerationImportError) as error:
        import_cdc_streams(path)
    assert str(error.value).startswith(f"{path}, line 2: ") and message in str(error.value)


@pytest.mark.parametrize("column,value,message", [
    ("stream_state", "7", "column 'stream_state': 7 is not a stream state"),
    ("stream_id", "0xffff", "column 'stream_id': 0xffff is not a 16-byte stream id (2 bytes)"),
    ("timestamp", "2026-01-10 25:00:00.000000+0000", "column 'timestamp': not a timestamp: '2026-01-10 25:00"),
])
@pytest.mark.parametrize("expand", [False, True])
def test_select_output_errors_name_file_line_column_and_value(tmp_path, column, value, message, expand):
    """The bad value is in the 10th row (a closed stream's: those rows are checked too)."""
    text = select_output(table_rows(), expand=expand)
    lines = text.split("\n")
    if expand:
        number = lines.index("@ Row 10") + 3 + CDC_STREAMS_COLUMNS.index(column)
        lines[number - 1] = lines[number - 1].split("|")[0] + "| " + value
    else:
        number = 4 + 9
        values = lines[number - 1].split(" | ")
        values[CDC_STREAMS_COLUMNS.index(column)] = value
        lines[number - 1] = " | ".join(values)
    path = write(tmp_path, "\n".join(lines), "streams.txt")
    with pytest.raises(GenerationImportError) as error:
        import_cdc_streams(path)
    assert str(error.value).startswith(f"{path}, line {number}: ") and message in str(error.value)


def test_header_errors():
    text = copy_csv(table_rows(), header=True)
    with pytest.raises(GenerationImportError, match="read it with header=True"):
        import_cdc_streams(io.StringIO(text), header=False)
    partial = copy_csv(table_rows(), header=True, columns=("keyspace_name", "table_name", "timestamp", "stream_id"))
    with pytest.raises(GenerationImportError, match=r"lacks column\(s\) \['stream_state'\]"):
        import_cdc_streams(io.StringIO(partial))
    narrow = select_output(table_rows(), columns=("keyspace_name", "table_name", "stream_id"))
    with pytest.raises(GenerationImportError, match=r"<stream>, line 2: header .* lacks column\(s\) \['timestamp', "):
        import_cdc_streams(io.StringIO(narrow))
    assert import_cdc_streams(io.StringIO("")) == [] and import_cdc_streams(io.StringIO(select_output([]))) == []


def test_select_output_structure_errors():
    lines = select_output(table_rows()).split("\n")
    short = lines[:5] + [lines[5].rsplit(" | ", 1)[0]] + lines[6:]
    with pytest.raises(GenerationImportError, match=r"<stream>, line 6: 4 fields, expected 5 \(keyspace_name, "):
        import_cdc_streams(io.StringIO("\n".join(short)))
    expanded = select_output(table_rows(), expand=True).split("\n")
    missing = [line for line in expanded if not line.startswith(" stream_state ")]
    with pytest.raises(GenerationImportError, match=r"<stream>, line 4: the row lacks column\(s\) \['stream_state'\]"):
        import_cdc_streams(io.StringIO("\n".join(missing)))
    for at, message in ((5, "expected 'column | value', got 'stray words'"), (9, "expected '@ Row N' (EXPAND ON)")):
        stray = expanded[:at] + ["stray words"] + expanded[at:]
        with pytest.raises(GenerationImportError, match=re.escape(f"<stream>, line {at + 1}: {message}")):
            import_cdc_streams(io.StringIO("\n".join(stray)))
