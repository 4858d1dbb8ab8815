"""The token range join: ours (the binned equi-join of int_token_range_bins and
int_change_groups_streamed) against a naive BETWEEN join, at 256 and 65,536 ranges.

The same random tokens are joined to one generation's ranges at both sizes. The bins are built
by the project's own compiled models (int_token_ranges -> int_generations_described ->
int_token_range_bins); the join below is the one int_change_groups_streamed performs.
Ours should stay flat (within 1.3x) from 256 to 65,536 ranges; the naive join grows with them.
"""
from __future__ import annotations

import os
import random

from _common import bench_session, report, timed

from cdclake.project.compiled_models import compiled_model_sql as compiled_model
from cdclake.project.compiled_models import point_inputs

TOKENS = int(os.environ.get("BENCH_JOIN_TOKENS", 200_000))
RANGE_COUNTS = (256, 65_536)
GENERATION_MS = 1_700_000_000_000

BINNED_JOIN = """
select count(*) as matched, sum(hash(bins.vnode_index)) as checksum
from bench_tokens as writes
inner join bench_bins as bins
    on bins.generation_ts_ms = {generation}
    and bins.token_bin = shiftrightunsigned(writes.token ^ shiftleft(1L, 63), 64 - {bin_bits})
    and writes.token between bins.piece_lo and bins.piece_hi
"""

NAIVE_JOIN = """
select count(*) as matched, sum(hash(ranges.vnode_index)) as checksum
from bench_tokens as writes
inner join bench_ranges as ranges
    on (ranges.range_start < ranges.range_end
        and writes.token > ranges.range_start and writes.token <= ranges.range_end)
    or (ranges.range_start >= ranges.range_end
        and (writes.token > ranges.range_start or writes.token <= ranges.range_end))
"""


def stream_rows(range_count: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    ends: set[int] = set()
    while len(ends) < range_count:
        ends.add(rng.randrange(-(2**63) + 1, 2**63))
    ends = sorted(ends)
    return [(GENERATION_MS, i, end, 12, 0, f"{i:032x}") for i, end in enumerate(ends)]


def main() -> None:
    spark = bench_session()
    rng = random.Random(7)
    spark.createDataFrame([(rng.randrange(-(2**63) + 1, 2**63),) for _ in range(TOKENS)], "token bigint") \
        .repartition(spark.sparkContext.defaultParallelism).cache().createOrReplaceTempView("bench_tokens")
    spark.table("bench_tokens").count()
    ranges_sql = point_inputs(compiled_model("int_token_ranges"), {"stg_cdc_input__generation_streams": "bench_streams"})
    generations_sql = point_inputs(compiled_model("int_generations_described"), {
        "stg_cdc_input__generations": "bench_generations", "int_token_ranges": "bench_ranges",
    })
    bins_sql = point_inputs(compiled_model("int_token_range_bins"), {
        "int_token_ranges": "bench_ranges", "int_generations_described": "bench_generations_described",
    })
    spark.createDataFrame([(GENERATION_MS,)], "generation_ts_ms bigint").selectExpr(
        "generation_ts_ms", "generation_ts_ms * 1000 as generation_ts_us").createOrReplaceTempView("bench_generations")

    seconds, lines = {}, [f"{TOKENS:,} tokens joined to one generation's ranges"]
    for range_count in RANGE_COUNTS:
        spark.createDataFrame(
            stream_rows(range_count, range_count),
            "generation_ts_ms bigint, vnode_index int, token_range_end bigint, ignore_msb int, shard int, stream_id string",
        ).selectExpr("generation_ts_ms", "vnode_index", "token_range_end", "ignore_msb", "shard",
                     "unhex(stream_id) as stream_id").createOrReplaceTempView("bench_streams")
        spark.sql(ranges_sql).cache().createOrReplaceTempView("bench_ranges")
        spark.sql(generations_sql).cache().createOrReplaceTempView("bench_generations_described")
        spark.sql(bins_sql).cache().createOrReplaceTempView("bench_bins")
        (bin_bits,) = spark.sql("select bin_bits from bench_generations_described").collect()[0]
        spark.table("bench_bins").count()
        results = {}
        for name, sql in (("binned", BINNED_JOIN.format(generation=GENERATION_MS, bin_bits=bin_bits)),
                          ("naive", NAIVE_JOIN)):
            spark.sql(sql).collect()                     # warm-up (plans, broadcast, caches)
            with timed(seconds, (name, range_count)):
                results[name] = tuple(spark.sql(sql).collect()[0])
        if results["binned"] != results["naive"] or results["binned"][0] != TOKENS:
            raise SystemExit(f"the joins disagree at {range_count} ranges: {results}")
        lines.append(
            f"{range_count:>6,} ranges (bin_bits {bin_bits}): binned {seconds[('binned', range_count)]:.2f} s, "
            f"naive BETWEEN {seconds[('naive', range_count)]:.2f} s"
        )
    small, large = RANGE_COUNTS
    lines += [
        f"binned growth 256 -> 65,536 ranges: {seconds[('binned', large)] / seconds[('binned', small)]:.2f}x",
        f"naive growth  256 -> 65,536 ranges: {seconds[('naive', large)] / seconds[('naive', small)]:.2f}x",
        f"naive / binned at 65,536 ranges   : {seconds[('naive', large)] / seconds[('binned', large)]:.1f}x",
    ]
    report("token range join", lines)


if __name__ == "__main__":
    main()
