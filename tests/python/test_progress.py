"""The build progress callback: one line per finished table model, with its rows and time."""
from __future__ import annotations

import io
from types import SimpleNamespace as Obj

from cdclake.progress import ModelRowCounts


def finished(name: str, materialized: str = "table", status: str = "success", resource: str = "model"):
    node = Obj(node_name=name, resource_type=resource, materialized=materialized, node_status=status,
               node_relation=Obj(relation_name=f"cdc_intermediate.{name}"))
    return Obj(info=Obj(name="NodeFinished"), data=Obj(node_info=node, run_result=Obj(execution_time=1.25)))


def test_finished_tables_report_their_rows_and_the_time():
    stream, asked = io.StringIO(), []
    progress = ModelRowCounts(lambda relation: asked.append(relation) or 1234, stream)
    progress(finished("int_log_rows"))
    progress(finished("stg_cdc_input__base_tables", materialized="view"))     # views: not counted
    progress(finished("int_token_ranges", status="error"))                    # failed: not counted
    progress(finished("assert_x", resource="test"))
    progress(Obj(info=Obj(name="NodeStart"), data=None))
    assert asked == ["cdc_intermediate.int_log_rows"]
    assert progress.counts == {"int_log_rows": 1234}
    line = stream.getvalue()
    assert line.startswith("cdclake: int_log_rows: 1,234 rows (1.2 s; ") and line.endswith(" s so far)\n")
