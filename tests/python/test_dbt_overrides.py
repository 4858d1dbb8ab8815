"""The project's copy of dbt-spark's incremental materialization stays dbt-spark's.

macros/materializations/spark_incremental.sql replaces the installed dbt-spark's materialization
for the `spark` adapter to change one line (its temporary view's name) and to add one branch (an
append keeping the schema as one `insert into ... by name`). A dbt-spark release that
changes the rest would otherwise be shadowed by the old copy without a word: this test compares
the copy, header and changed line aside, with the dbt-spark installed.
"""
from __future__ import annotations

import re
from pathlib import Path

import dbt.include.spark

from conftest import REPO

OURS = REPO / "macros" / "materializations" / "spark_incremental.sql"
THEIRS = Path(dbt.include.spark.__file__).parent / "macros" / "materializations" / "incremental" / "incremental.sql"

HEADER = re.compile(r"\A\{#-.*?-#\}\n", re.S)
OUR_APPEND = re.compile(r"  \{#-- the second change: .*?\{#-- end of the second change --#\}\n", re.S)
DBT_SPARK_VIEW = """  {% set tmp_relation = this.incorporate(path = {"identifier": this.identifier ~ '__dbt_tmp'}) -%}\n"""
OUR_VIEW = (
    "  {#-- the one change: the schema in the view's name (dbt-spark: this.identifier ~ '__dbt_tmp') --#}\n"
    """  {% set tmp_relation = this.incorporate(path = {"identifier": this.schema ~ '__' ~ this.identifier"""
    """ ~ '__dbt_tmp'}) -%}\n"""
)


def test_the_incremental_materialization_is_dbt_sparks_but_for_the_views_name_and_the_append():
    ours = OURS.read_text()
    assert HEADER.match(ours), "the copy starts with its header comment"
    body = HEADER.sub("", ours, count=1)
    assert len(OUR_APPEND.findall(body)) == 1, "the copy's append branch is marked"
    body = OUR_APPEND.sub("", body)
    assert body.count(OUR_VIEW) == 1, "the copy names the view after schema and table"
    theirs = THEIRS.read_text()
    assert theirs.count(DBT_SPARK_VIEW) == 1, f"dbt-spark's view name changed: compare {THEIRS} with {OURS}"
    assert body.replace(OUR_VIEW, DBT_SPARK_VIEW) == theirs, \
        f"dbt-spark's incremental materialization changed: carry its changes into {OURS}"
