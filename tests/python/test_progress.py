"""The build progress callback: one line per finished table model, with its rows and time,
counted on a thread of its own so that no node waits for a count."""
from __future__ import annotations

import io
import threading
from types import SimpleNamespace as Obj

from cdclake.project.progress import ModelRowCounts


def finished(name: str, materialized: str = "table", status: str = "success", resource: str = "model"):
    node = Obj(node_name=name, resource_type=resource, materialized=materialized, node_status=status,
               node_relation=Obj(relation_name=f"cdc_intermediate.{name}"))
    return Obj(info=Obj(name="NodeFinished"), data=Obj(node_info=node, run_result=Obj(execution_time=1.25)))


def test_finished_tables_report_their_rows_and_the_time():
    stream, asked = io.StringIO(), []
    with ModelRowCounts(lambda relation: asked.append(relation) or 1234, stream) as progress:
        progress(finished("int_log_rows"))
        progress(finished("stg_cdc_input__base_tables", materialized="view"))     # views: not counted
        progress(finished("int_token_ranges", status="error"))                    # failed: not counted
        progress(finished("assert_x", resource="test"))
        progress(Obj(info=Obj(name="NodeStart"), data=None))
    assert asked == ["cdc_intermediate.int_log_rows"]
    assert progress.counts == {"int_log_rows": 1234}
    line = stream.getvalue()
    assert line.startswith("cdclake: int_log_rows: 1,234 rows (1.2 s; ") and line.endswith(" s so far)\n")


def test_the_callback_returns_before_the_count_and_a_failed_count_is_reported():
    """dbt releases a model's dependents only after its callbacks return: they must not wait for
    the count's Spark job. A count that fails says so; the next ones go on, in finishing order."""
    stream, release = io.StringIO(), threading.Event()

    def count(relation: str) -> int:
        assert release.wait(timeout=30)
        if relation.endswith("int_a"):
            raise RuntimeError("[TABLE_OR_VIEW_NOT_FOUND] int_a\nstack trace")
        return 7

    with ModelRowCounts(count, stream) as progress:
        progress(finished("int_a"))
        progress(finished("int_b"))
        assert stream.getvalue() == ""          # both callbacks returned, nothing counted yet
        release.set()
    assert stream.getvalue().splitlines()[0] == "cdclake: int_a: rows not counted: [TABLE_OR_VIEW_NOT_FOUND] int_a"
    assert stream.getvalue().splitlines()[1].startswith("cdclake: int_b: 7 rows (1.2 s; ")
    assert progress.counts == {"int_b": 7}


def test_an_interrupted_build_counts_no_more_rows():
    """Ctrl-C during a build: the count under way ends, the queued ones start no Spark job."""
    asked, counting, release = [], threading.Event(), threading.Event()

    def count(relation: str) -> int:
        asked.append(relation)
        counting.set()
        assert release.wait(timeout=30)
        return 1

    timer = threading.Timer(1.0, release.set)
    try:
        with ModelRowCounts(count, io.StringIO()) as progress:
            progress(finished("int_a"))
            progress(finished("int_b"))
            assert counting.wait(timeout=30)
            timer.start()               # int_a's count ends after the interrupt
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert asked == ["cdc_intermediate.int_a"]
