"""Building and loading a realistic generation: 100 nodes x 256 vnodes x 64 shards
(25,600 token ranges, 1,638,400 streams), then the pipeline's range models over it.

Baseline in the same run: the scalar, per-stream builder (make_generation_scalar, the oracle)
on a 4-node slice of the same shape, extrapolated per stream.
"""
from __future__ import annotations

import os

from _common import bench_session, report, timed

from cdclake.project.compiled_models import compiled_model_sql as compiled_model
from cdclake.project.compiled_models import point_inputs

NODES = int(os.environ.get("BENCH_GENERATION_NODES", 100))
VNODES, SHARDS, IGNORE_MSB = 256, 64, 12
GENERATION_MS = 1_700_000_000_000


def build(nodes: int, scalar: bool = False):
    from cdclake.generations import vnodes as g

    by_node = g.ring_tokens_by_node(nodes, VNODES, "bench ring")
    ring = sorted(t for node in by_node for t in node)
    make = g.make_generation_scalar if scalar else g.make_generation
    return make(ring, g.sharding_info_by_owner(by_node, [(SHARDS, IGNORE_MSB)] * nodes),
                g.deterministic_random_source(GENERATION_MS))


def main() -> None:
    from cdclake.generations import generation_tables
    from cdclake.generations.generation_tables import GenerationTables

    seconds: dict[str, float] = {}
    with timed(seconds, "scalar slice"):
        slice_entries = build(4, scalar=True)
    scalar_per_stream = seconds["scalar slice"] / sum(len(e.streams) for e in slice_entries)

    with timed(seconds, "build"):
        entries = build(NODES)
        tables = GenerationTables.from_entries([(GENERATION_MS, entries)])
    streams = tables.stream_count

    spark = bench_session()
    with timed(seconds, "load"):
        generation_tables.load(spark, tables, os.environ.get("CDCLAKE_TABLE_FORMAT", "parquet"))

    ranges_sql = point_inputs(compiled_model("int_token_ranges"), {
        "stg_cdc_input__generation_streams": "bench_streams"})
    spark.sql("select generation_ts_ms, vnode_index, token_range_end, ignore_msb, shard, "
              "unhex(stream_id) as stream_id from cdc_input.cdc_generation_streams") \
        .createOrReplaceTempView("bench_streams")
    with timed(seconds, "int_token_ranges"):
        spark.sql(ranges_sql).write.mode("overwrite").saveAsTable("bench_token_ranges")
    ranges = spark.table("bench_token_ranges").count()
    with timed(seconds, "stream check"):
        # the core of the streams_match_their_range test, over every stream
        bad = spark.sql("""
            select count(*) from bench_token_ranges lateral view posexplode(streams) s as shard, stream_id
            where cdc_stream_id_vnode_index(stream_id) != range_position
               or cdc_stream_id_token(stream_id) != cdc_find_first_token_for_shard(
                      range_start, range_end, cast(shard_count as int), ignore_msb, shard)
        """).collect()[0][0]
    if bad:
        raise SystemExit(f"{bad} streams do not match their range")
    report("generation build and load", [
        f"{NODES} nodes x {VNODES} vnodes x {SHARDS} shards: {ranges:,} ranges, {streams:,} streams",
        f"build (vectorized)     : {seconds['build']:.1f} s",
        f"build (scalar, est.)   : {scalar_per_stream * streams:.1f} s "
        f"(measured {seconds['scalar slice']:.1f} s on a 4-node slice) -> "
        f"{scalar_per_stream * streams / seconds['build']:.1f}x slower",
        f"load into Spark tables : {seconds['load']:.1f} s",
        f"int_token_ranges model : {seconds['int_token_ranges']:.1f} s",
        f"check every stream (4 UDFs/stream): {seconds['stream check']:.1f} s",
        f"total                  : {seconds['build'] + seconds['load'] + seconds['int_token_ranges']:.1f} s "
        "to build, load and index",
    ])


if __name__ == "__main__":
    main()
