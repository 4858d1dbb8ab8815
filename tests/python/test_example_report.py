"""`cdclake report` on the example build, opened in headless Chromium: the six pictures show
the build's own numbers, and the page loads nothing but itself.

Artifact: target/test-artifacts/report.png (the whole page).
"""
from __future__ import annotations

import pytest
from browser import artifact_path, chromium_page

# What the page shows, read back from its SVG elements' data attributes.
READ_PAGE_JS = """() => {
  const all = (selector) => Array.from(document.querySelectorAll(selector));
  const data = (selector, name) => all(selector).map(e => e.getAttribute('data-' + name));
  return {
    vnodes: all('#ring path.vnode').map(e => [e.dataset.rangeStart, e.dataset.rangeEnd]),
    ring_streams: data('#ring path.stream', 'stream-id'),
    ring_hot_streams: data('#ring path.stream.hot', 'stream-id'),
    generation_starts: data('#timeline .generation-start[data-strip=history]', 'ts-ms').map(Number),
    write_bins: all('#timeline rect.write-bin').map(e => [e.dataset.status, Number(e.dataset.count)]),
    stream_bars: all('#hot-streams rect.stream-bar').map(e => [e.dataset.streamId, Number(e.dataset.rows)]),
    rejected_bins: all('#rejected rect.rejected-bin').map(e => [e.dataset.reason, Number(e.dataset.count)]),
    table_bins: all('#table-rows rect.table-bin').map(e => [e.dataset.table, Number(e.dataset.live), Number(e.dataset.versions)]),
    tablet_sets: all('#tablet-sets rect.tablet-set').map(e => [e.dataset.table, Number(e.dataset.tsMs), Number(e.dataset.streams)]),
    summary: Object.fromEntries(all('#summary td').map(e => [e.dataset.key, Number(e.textContent.replace(/,/g, ''))])),
    figures: all('figure svg').map(svg => {
      const box = svg.getBoundingClientRect();
      const [title, desc] = svg.getAttribute('aria-labelledby').split(' ').map(id => document.getElementById(id));
      return {id: svg.id, role: svg.getAttribute('role'), title: title?.textContent, desc: desc?.textContent,
              width: box.width, height: box.height};
    }),
  };
}"""


def totals(pairs) -> dict:
    out: dict = {}
    for key, n in pairs:
        out[key] = out.get(key, 0) + n
    return out


@pytest.fixture(scope="module")
def report(example_build):
    """The page, rendered from the example build, and what Chromium read off it."""
    from cdclake.report import build_report

    out = build_report(example_build, artifact_path("report") / "index.html")
    with chromium_page(1100, 900) as (page, log):
        page.goto(out.as_uri())
        shown = page.evaluate(READ_PAGE_JS)
        page.screenshot(path=artifact_path("report.png"), full_page=True)
    return shown, log


def test_the_page_is_self_contained_and_error_free(report):
    shown, log = report
    assert log.page_errors == [] and log.console_errors == []
    assert log.requests_outside("file") == []  # no script, style sheet or font from anywhere
    assert [f["id"] for f in shown["figures"]] == ["timeline", "ring", "hot-streams", "rejected", "table-rows",
                                                   "tablet-sets"]
    for fig in shown["figures"]:
        assert fig["role"] == "img" and fig["title"] and fig["desc"], fig
        assert fig["width"] > 100 and fig["height"] > 100, fig


def test_the_summary_accounts_for_every_write(report, example_build):
    shown, _ = report
    audit = example_build.table("cdc_lake.cdc_write_audit").collect()[0]
    assert shown["summary"]["input_writes"] == audit.input_writes == audit.accepted_writes + audit.rejected_writes
    assert shown["summary"]["rejected_writes"] == audit.rejected_writes
    assert shown["summary"]["log_rows"] == audit.log_rows
    # the write histogram under the time line holds every write once
    assert totals(shown["write_bins"]) == {"accepted": audit.accepted_writes, "rejected": audit.rejected_writes}


def test_the_time_line_marks_every_generation(report, example_build):
    shown, _ = report
    generations = [r.ts_ms for r in example_build.sql(
        "select generation_ts_ms as ts_ms from cdc_input.cdc_generations order by 1").collect()]
    assert len(generations) >= 2
    assert shown["generation_starts"] == generations


def test_the_ring_has_one_arc_per_vnode_of_the_latest_generation(report, example_build):
    shown, _ = report
    streams = example_build.sql(
        "select vnode_index, stream_id from cdc_input.cdc_generation_streams "
        "where generation_ts_ms = (select max(generation_ts_ms) from cdc_input.cdc_generations)").collect()
    assert len(shown["vnodes"]) == len({r.vnode_index for r in streams})
    assert sorted(shown["ring_streams"]) == sorted(r.stream_id for r in streams)
    # the arcs tile the whole ring: their token ranges (start, end] add up to 2^64 tokens
    assert sum((int(end) - int(start)) % 2**64 for start, end in shown["vnodes"]) == 2**64
    # the streams marked hot are exactly the latest generation's streams with log rows
    bars = dict(shown["stream_bars"])
    assert set(shown["ring_hot_streams"]) == {r.stream_id for r in streams} & set(bars)
    assert shown["ring_hot_streams"], "the example writes into the latest generation"


def test_hot_streams_are_ordered_and_add_up_to_the_log_rows(report, example_build):
    shown, _ = report
    rows = [n for _, n in shown["stream_bars"]]
    assert rows == sorted(rows, reverse=True) and rows[0] > 1
    used = example_build.sql("select count(distinct `cdc$stream_id`) as n from cdc_lake.cdc_log").collect()[0].n
    assert len(rows) == used  # the example has fewer streams than the chart's top 20
    assert sum(rows) == example_build.table("cdc_lake.cdc_write_audit").collect()[0].log_rows


def test_rejected_writes_are_counted_by_reason(report, example_build):
    shown, _ = report
    expected = {r.reason: r.n for r in example_build.sql(
        "select reason, count(*) as n from cdc_lake.cdc_rejected_writes group by reason").collect()}
    assert len(expected) >= 2
    assert totals(shown["rejected_bins"]) == expected


def test_report_without_a_build_says_what_to_do(spark, monkeypatch, capsys, tmp_path):
    from cdclake import cli
    from cdclake.report import data

    monkeypatch.setattr(data, "REQUIRED_TABLES", ("cdc_lake.cdc_log", "cdc_lake.not_built_yet"))
    assert cli.main(["report", "--out", str(tmp_path / "index.html")]) == 2
    err = capsys.readouterr().err
    assert "cdc_lake.not_built_yet" in err and "cdclake build" in err
    assert not (tmp_path / "index.html").exists()


def test_each_table_shows_its_rows_and_versions_over_time(report, example_build):
    """One strip per table with a history: at the end the rows its state table holds, and every
    version of its history that started within the writes' time span."""
    shown, _ = report
    by_table: dict = {}
    for table, live, versions in shown["table_bins"]:
        by_table.setdefault(table, []).append((live, versions))
    tables = ["metrics.readings", "shop.inventory", "shop.orders", "shop.sessions"]
    assert sorted(by_table) == tables
    for table in tables:
        bins = by_table[table]
        assert bins[-1][0] == example_build.table(f"{table}_state").count(), table
        history = example_build.sql(f"select `cdc$valid_from_us` from {table}_history").collect()
        assert sum(v for _, v in bins) == len([r for r in history if r[0] <= max_written_us(example_build)]), table


def max_written_us(spark) -> int:
    """The end of the report's time span: the last write by the coordinator's clock."""
    return spark.sql("select max(coordinator_now_us) as t from cdc_input.base_mutations").collect()[0].t


def test_each_tablets_table_shows_its_stream_sets(report, example_build):
    """metrics.readings: its two stream sets (4 tablets, then 8 after the split), as
    cdc_lake.cdc_streams lists their current streams."""
    shown, _ = report
    expected = [("metrics.readings", r.ts_ms, r.n) for r in example_build.sql(
        "select unix_millis(`timestamp`) as ts_ms, count(*) as n from cdc_lake.cdc_streams "
        "where stream_state = 0 group by 1 order by 1").collect()]
    assert [tuple(s) for s in shown["tablet_sets"]] == expected
    assert [n for _, _, n in expected] == [4, 8]
