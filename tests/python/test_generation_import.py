"""Import of generations from cqlsh ``COPY ... TO`` CSV files (cdclake/generations/generation_import.py,
docs/scylla/math.md §4 "Storage order", §7.1-§7.2, §9.5).

The CSV files are made the way cqlsh writes them: the set<blob> goes through the real driver's
``SetType(BytesType)`` (a SortedSet, unsigned-bytes order), timestamps through the driver's
``datetime_from_timestamp`` and cqlsh's COPY TO format (milliseconds, ``+0000``), rows in any
order, csv dialect QUOTE '"', ESCAPE '\\', no doublequote."""
from __future__ import annotations

import csv
import io
import random
from datetime import timezone

import pytest
from cassandra.cqltypes import lookup_casstype
from cassandra.util import datetime_from_timestamp

from cdclake.generations.generation_import import (
    CsvOptions,
    GenerationImportError,
    entries_from_rows,
    import_cdc_generations_v3,
    import_streams_descriptions_v2,
    parse_blob,
    parse_blob_collection,
    parse_committed_cdc_generations,
    parse_cqlsh_timestamp,
    read_committed_cdc_generations,
    read_generation_timestamps,
    restore_shard_order,
    stream_columns,
    stream_rows,
)
from cdclake.generations.vnodes import (
    Entry,
    lookup_stream,
    make_generation,
    ring_tokens_by_node,
    sharding_info_by_owner,
)
from cdclake.load.inputs import GENERATION_STREAMS_COLUMNS
from python_udfs.stream_ids import DeterministicRandom38, decode_stream_id

T0 = 1_699_995_600_000                          # 2023-11-14 21:00:00 UTC
SET_OF_BLOBS = lookup_casstype("SetType(BytesType)")
GEN_IDS = ["8f2b6c3e-8312-11ee-8a1c-4b1f0e6d2a10", "0b7e1d22-8320-11ee-9d3b-6a0c5e4f3b21"]


# --------------------------------------------------------------------------------------------- cqlsh emulation

def cqlsh_timestamp(ms: int) -> str:
    """cqlsh COPY TO: driver datetime, '%Y-%m-%d %H:%M:%S.%f%z' in UTC, microseconds rounded to ms."""
    moment = datetime_from_timestamp(ms / 1000.0).replace(tzinfo=timezone.utc)
    text = moment.strftime("%Y-%m-%d %H:%M:%S.%f%z")
    head, fraction_and_zone = text.split(".")
    return f"{head}.{int(fraction_and_zone[:6]) // 1000:03d}{fraction_and_zone[6:]}"


def cqlsh_set(streams, order: str = "driver", rng: random.Random | None = None) -> str:
    if order == "driver":
        values = list(SET_OF_BLOBS.deserialize(SET_OF_BLOBS.serialize(streams, 4), 4))
        assert values == sorted(streams)
    else:
        values = list(streams)
        rng.shuffle(values)
    return "{" + ", ".join("0x" + v.hex() for v in values) + "}"


def write_csv(rows, header=None, rng=None, delimiter=",") -> io.StringIO:
    rows = list(rows)
    if rng is not None:
        rng.shuffle(rows)                                   # COPY TO exports token ranges in parallel
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, quotechar='"', escapechar="\\", doublequote=False)
    if header:
        writer.writerow(header)
    writer.writerows(rows)
    out.seek(0)
    return out


def descriptions_csv(generations, rng, order="driver", header=False):
    rows = [[cqlsh_timestamp(ts), str(e.token_range_end), cqlsh_set(e.streams, order, rng)]
            for ts, entries in generations for e in entries]
    return write_csv(rows, ["time", "range_end", "streams"] if header else None, rng)


def timestamps_csv(timestamps):
    return write_csv([["timestamps", cqlsh_timestamp(ts), ""] for ts in sorted(timestamps, reverse=True)])


def v3_csv(generations, ids, rng, old_shape=False):
    rows = []
    for (_, entries), gen_id in zip(generations, ids):
        for e in entries:
            streams = cqlsh_set(e.streams)
            rows.append([gen_id, str(e.token_range_end), str(e.ignore_msb), str(len(entries)), streams] if old_shape
                        else ["cdc_generations", gen_id, str(e.token_range_end), str(e.ignore_msb), streams])
    return write_csv(rows, rng=rng)


# --------------------------------------------------------------------------------------------- fixtures

def build_generation(seed: int, msbs=(12, 12, 12), tiny=False) -> list[Entry]:
    rng = random.Random(seed)
    by_node = ring_tokens_by_node(3, 12, seed=f"import-{seed}")
    if tiny:                                                 # consecutive tokens: vnodes too small for all shards
        base = by_node[0][0]
        by_node[0] = sorted(set(by_node[0]) | {base + 1, base + 2, base + 3})
    tokens = sorted(t for node in by_node for t in node)
    sharding = [(rng.choice([1, 3, 8, 14]), msb) for msb in msbs]
    return make_generation(tokens, sharding_info_by_owner(by_node, sharding), DeterministicRandom38("import", seed))


def assert_restored(restored: list[Entry], original: list[Entry]):
    """Equal, except that streams sharing a token within a vnode may be permuted among themselves."""
    assert [(e.index, e.token_range_end, e.ignore_msb, len(e.streams)) for e in restored] == \
        [(e.index, e.token_range_end, e.ignore_msb, len(e.streams)) for e in original]
    for got, want in zip(restored, original):
        tokens = [decode_stream_id(s).token for s in want.streams]
        assert [decode_stream_id(s).token for s in got.streams] == tokens
        for shard, token in enumerate(tokens):
            if tokens.count(token) == 1:
                assert got.streams[shard] == want.streams[shard]
        assert sorted(got.streams) == sorted(want.streams)


# --------------------------------------------------------------------------------------------- descriptions_v2

@pytest.mark.parametrize("order", ["driver", "shuffled"])
@pytest.mark.parametrize("seed", range(4))
def test_import_streams_descriptions_v2_restores_shard_order(seed, order):
    rng = random.Random(seed)
    generations = [(T0, build_generation(seed)), (T0 + 65_123, build_generation(seed + 100))]
    imported = import_streams_descriptions_v2(descriptions_csv(generations, rng, order),
                                              timestamps_csv([T0, T0 + 65_123]))
    assert [ts for ts, _ in imported] == [T0, T0 + 65_123]
    for (_, restored), (_, original) in zip(imported, generations):
        assert restored == original                      # no ties: the exact shard order comes back


def test_ties_at_the_end_token_keep_input_order():
    original = build_generation(7, tiny=True)
    tied = [e for e in original if len({decode_stream_id(s).token for s in e.streams}) < len(e.streams)]
    assert tied, "the ring must have vnodes too small for all shards"
    ((_, restored),) = import_streams_descriptions_v2(descriptions_csv([(T0, original)], random.Random(1)))
    assert_restored(restored, original)
    rng = random.Random(2)                               # writes still go to the same streams (§4, §9.6)
    assert all(lookup_stream(restored, t) == lookup_stream(original, t)
               for t in [rng.randint(-2**63 + 1, 2**63 - 1) for _ in range(3000)])
    ambiguous = 0                                        # only a write with token == a tiny vnode's end can differ
    for entry in original:
        stream = lookup_stream(original, entry.token_range_end)
        tokens = [decode_stream_id(s).token for s in entry.streams]
        if tokens.count(decode_stream_id(stream).token) == 1:
            assert lookup_stream(restored, entry.token_range_end) == stream
        else:
            ambiguous += 1
    assert ambiguous < len(original) // 2
    for got in (restored[e.index] for e in tied):        # tied streams appear in driver (sorted) order
        tokens = [decode_stream_id(s).token for s in got.streams]
        for token in set(tokens):
            group = [s for s, t in zip(got.streams, tokens) if t == token]
            assert group == sorted(group)


def test_header_and_column_order_from_header():
    generation = build_generation(3)
    rows = [[cqlsh_set(e.streams), cqlsh_timestamp(T0), str(e.token_range_end)] for e in generation]
    data = write_csv(rows, header=["streams", "time", "range_end"], rng=random.Random(2))
    ((ts, restored),) = import_streams_descriptions_v2(data, options=CsvOptions(header=True))
    assert ts == T0 and restored == generation
    with_header = descriptions_csv([(T0, generation)], random.Random(3), header=True)
    assert import_streams_descriptions_v2(with_header, options=CsvOptions(header=True)) == [(T0, generation)]
    with pytest.raises(GenerationImportError, match="read it with header=True"):
        import_streams_descriptions_v2(descriptions_csv([(T0, generation)], random.Random(3), header=True))


def test_files_on_disk_split_in_parts_and_other_dialects(tmp_path):
    generation = build_generation(4)
    first, second = tmp_path / "d.csv", tmp_path / "d.csv.1"
    rows = [[cqlsh_timestamp(T0), str(e.token_range_end), cqlsh_set(e.streams)] for e in generation]
    for path, part in ((first, rows[:10]), (second, rows[10:])):
        with open(path, "w", newline="") as handle:         # csv's default \r\n line ends, like cqlsh
            csv.writer(handle, quotechar='"', escapechar="\\", doublequote=False).writerows(part)
    assert import_streams_descriptions_v2([first, str(second)]) == [(T0, generation)]
    piped = write_csv(rows, delimiter="|")
    assert import_streams_descriptions_v2(piped, options=CsvOptions(delimiter="|")) == [(T0, generation)]


def test_unpublished_generations_are_dropped_and_missing_ones_reported():
    rng = random.Random(5)
    generation = build_generation(5)
    data = descriptions_csv([(T0, generation), (T0 + 70_000, generation)], rng).getvalue()
    assert [ts for ts, _ in import_streams_descriptions_v2(io.StringIO(data), timestamps_csv([T0]))] == [T0]
    assert [ts for ts, _ in import_streams_descriptions_v2(io.StringIO(data))] == [T0, T0 + 70_000]
    with pytest.raises(GenerationImportError, match=r"\[1700000000000\] are in cdc_generation_timestamps"):
        import_streams_descriptions_v2(io.StringIO(data), timestamps_csv([T0, 1_700_000_000_000]))
    kept = import_streams_descriptions_v2(io.StringIO(data), timestamps_csv([T0, 1_700_000_000_000]),
                                          skip_missing=True)
    assert [ts for ts, _ in kept] == [T0]


def test_wrong_ignore_msb_is_detected():
    generation = build_generation(6, msbs=(0, 0, 0))
    assert any(len(e.streams) > 1 for e in generation)
    data = descriptions_csv([(T0, generation)], random.Random(6)).getvalue()
    ((_, restored),) = import_streams_descriptions_v2(io.StringIO(data), ignore_msb=0)
    assert_restored(restored, generation)                # msb 0: most shards own nothing in a small vnode
    with pytest.raises(GenerationImportError, match="murmur3_partitioner_ignore_msb_bits different from 12"):
        import_streams_descriptions_v2(io.StringIO(data))
    with pytest.raises(ValueError):
        import_streams_descriptions_v2(io.StringIO(data), ignore_msb=64)


def test_stream_rows_layout():
    generation = build_generation(8)
    imported = import_streams_descriptions_v2(descriptions_csv([(T0, generation)], random.Random(8)))
    rows = list(stream_rows(imported))
    assert list(rows[0]) == GENERATION_STREAMS_COLUMNS
    assert len(rows) == sum(len(e.streams) for e in generation)
    assert [r["vnode_index"] for r in rows] == [e.index for e in generation for _ in e.streams]
    assert [r["stream_id"] for r in rows] == [s.hex() for e in generation for s in e.streams]
    columns = stream_columns(imported)
    assert columns["stream_id"] == [r["stream_id"] for r in rows]
    assert columns["shard"].tolist() == [r["shard"] for r in rows]


# --------------------------------------------------------------------------------------------- cdc_generations_v3

@pytest.mark.parametrize("old_shape", [False, True])
def test_import_cdc_generations_v3(old_shape):
    rng = random.Random(9)
    generations = [(T0, build_generation(9, msbs=(12, 0, 4))), (T0 + 65_000, build_generation(10, msbs=(12, 12, 3)))]
    committed = "{" + ", ".join(f"('{cqlsh_timestamp(ts)}', {gen_id})"
                                for (ts, _), gen_id in zip(generations, GEN_IDS)) + "}"
    timestamps_by_id = parse_committed_cdc_generations(committed)
    assert timestamps_by_id == {GEN_IDS[0]: T0, GEN_IDS[1]: T0 + 65_000}
    imported = import_cdc_generations_v3(v3_csv(generations, GEN_IDS, rng, old_shape), timestamps_by_id)
    assert [ts for ts, _ in imported] == [ts for ts, _ in generations]
    for (_, restored), (_, original) in zip(imported, generations):
        assert_restored(restored, original)
    with pytest.raises(GenerationImportError, match="no timestamp in timestamps_by_id"):
        import_cdc_generations_v3(v3_csv(generations, GEN_IDS, rng, old_shape), {GEN_IDS[0]: T0})
    only_first = import_cdc_generations_v3(v3_csv(generations, GEN_IDS, rng, old_shape), {GEN_IDS[0].upper(): T0},
                                           skip_unknown_ids=True)
    assert [ts for ts, _ in only_first] == [T0]


def test_read_committed_cdc_generations_from_a_topology_export():
    value = f"{{('{cqlsh_timestamp(T0)}', {GEN_IDS[0]}), ('{cqlsh_timestamp(T0 + 1)}', {GEN_IDS[1]})}}"
    data = write_csv([["topology", "5e0b…host", value, ""], ["topology", "6a1c…host", value, ""]],
                     header=["key", "host_id", "committed_cdc_generations", "unpublished_cdc_generations"])
    assert read_committed_cdc_generations(data) == {GEN_IDS[0]: T0, GEN_IDS[1]: T0 + 1}
    single = write_csv([[value]])
    assert read_committed_cdc_generations(single, CsvOptions(header=False)) == {GEN_IDS[0]: T0, GEN_IDS[1]: T0 + 1}
    with pytest.raises(ValueError):
        parse_committed_cdc_generations("{('2023-11-14 21:00:00.000+0000', not-a-uuid)}")


# --------------------------------------------------------------------------------------------- parsing

@pytest.mark.parametrize("text,expected", [
    ("2023-11-14 21:00:00.000+0000", T0),
    ("2023-11-14 21:00:00.000000+0000", T0),
    ("2023-11-14 21:00:00+0000", T0),
    ("2023-11-14 21:00:00.007+0000", T0 + 7),
    ("2023-11-14 22:00:00.000+0100", T0),
    ("2023-11-14T21:00:00Z", T0),
    (str(T0), T0),
    ("-62135596800000", -62135596800000),
])
def test_parse_cqlsh_timestamp(text, expected):
    assert parse_cqlsh_timestamp(text) == expected


def test_cqlsh_timestamp_emulation_round_trips():
    for ms in [T0, T0 + 1, T0 + 999, 1_585_152_329_484, 0, 4_102_444_799_999]:
        assert parse_cqlsh_timestamp(cqlsh_timestamp(ms)) == ms


def test_parse_blobs():
    assert parse_blob("0x00ff") == b"\x00\xff"
    assert parse_blob(" 0XABcd ") == b"\xab\xcd"
    assert parse_blob("0x") == b""
    assert parse_blob_collection("{}") == [] and parse_blob_collection("[ ]") == []
    assert parse_blob_collection("{0x01,0x02}") == [b"\x01", b"\x02"]
    assert parse_blob_collection("[0x01, 0x02]") == [b"\x01", b"\x02"]
    for bad in ["0x0", "00ff", "0xzz", "'0x00'"]:
        with pytest.raises(ValueError):
            parse_blob(bad)
    for bad in ["0x01", "{0x01", "{0x01,}", "(0x01)"]:
        with pytest.raises(ValueError):
            parse_blob_collection(bad)


STREAM = "0x" + "ced00000000000009663c8dc500005a1"


@pytest.mark.parametrize("line,message", [
    (f'2023-11-14 21:00:00.000+0000,1,"{{{STREAM}}}",extra', "4 fields, expected 3"),
    (f'2023-11-14 21:00:00.000+0000,,"{{{STREAM}}}"', "column 'range_end' is null"),
    (f'2023-11-14 21:00:00.000+0000,abc,"{{{STREAM}}}"', "column 'range_end': not an integer"),
    (f'2023-11-14 21:00:00.000+0000,9223372036854775808,"{{{STREAM}}}"', "bigint out of range"),
    (f'2023-11-14 21:00:00.000+0000,-9223372036854775808,"{{{STREAM}}}"', "minimum-token sentinel"),
    ('2023-11-14 21:00:00.000+0000,1,{}', "column 'streams' is empty"),
    ('2023-11-14 21:00:00.000+0000,1,"{0x0102}"', "is not a 16-byte stream id"),
    (f'yesterday,1,"{{{STREAM}}}"', "column 'time': not a timestamp"),
    (f'2023-11-14 21:00:00.000+0000,1,"{{{STREAM}}}"\n2023-11-14 21:00:00.000+0000,1,"{{{STREAM}}}"',
     "range_end 1 appears twice"),
])
def test_descriptions_parse_errors(line, message):
    with pytest.raises(GenerationImportError, match=message.replace("(", r"\(").replace("[", r"\[")) as error:
        import_streams_descriptions_v2(io.StringIO(line + "\n"))
    assert "<stream>" in str(error.value) or "generation" in str(error.value)


def test_timestamps_table_parsing():
    data = io.StringIO("timestamps,2023-11-14 22:05:00.000+0000,\r\ntimestamps,2023-11-14 21:00:00.000+0000,\r\n")
    assert read_generation_timestamps(data) == [T0, T0 + 65 * 60_000]
    with pytest.raises(GenerationImportError, match="read it with header=True"):
        read_generation_timestamps(io.StringIO("key,time,expired\n"))
    assert read_generation_timestamps(io.StringIO("key,time,expired\n"), CsvOptions(header=True)) == []
    assert read_generation_timestamps(io.StringIO("")) == []
    header = io.StringIO("key,time,expired\ntimestamps,2023-11-14 21:00:00.000+0000,\n")
    assert read_generation_timestamps(header, CsvOptions(header=True)) == [T0]
    with pytest.raises(GenerationImportError, match="column 'key' is 'other'"):
        read_generation_timestamps(io.StringIO("other,2023-11-14 21:00:00.000+0000,\n"))
    with pytest.raises(GenerationImportError, match="lacks column"):
        read_generation_timestamps(io.StringIO("key,expired\ntimestamps,\n"), CsvOptions(header=True))
    null_marker = io.StringIO("timestamps,2023-11-14 21:00:00.000+0000,NULL\n")
    assert read_generation_timestamps(null_marker, CsvOptions(null="NULL")) == [T0]


def test_quote_equal_to_escape_means_doubled_quotes():
    stream = "0x" + "0000000000000006" + "0000000000000001"       # one shard: the first token after 5
    data = io.StringIO('"ti""me"|range_end|streams\n2023-11-14 21:00:00.000+0000|5|"{' + stream + '}"\n')
    options = CsvOptions(header=True, delimiter="|", quote='"', escape='"')
    with pytest.raises(GenerationImportError, match=r"header \['ti\"me'"):
        import_streams_descriptions_v2(data, options=options)
    data = io.StringIO('"time"|range_end|streams\n2023-11-14 21:00:00.000+0000|5|"{' + stream + '}"\n')
    ((ts, (entry,)),) = import_streams_descriptions_v2(data, options=options, ignore_msb=0)
    assert ts == T0 and entry.token_range_end == 5 and entry.streams == [bytes.fromhex(stream[2:])]


def test_restore_shard_order_scalar_equals_vectorized():
    generation = build_generation(11, tiny=True)
    shuffled = [(e.token_range_end, e.ignore_msb, sorted(e.streams)) for e in generation]
    vectorized = entries_from_rows(shuffled)
    for k, (end, msb, streams) in enumerate(shuffled):
        previous = shuffled[k - 1][0]
        assert restore_shard_order(previous, end, streams, msb) == vectorized[k].streams
    with pytest.raises(GenerationImportError, match="no stream has token"):
        restore_shard_order(0, 1 << 40, [bytes(16)], 12)
    with pytest.raises(GenerationImportError, match="no description rows"):
        entries_from_rows([])
