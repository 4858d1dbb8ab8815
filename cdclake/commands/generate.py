"""``cdclake generate``: the project's generated folder (cdclake/project/generated.py) for the
warehouse's schemas: the UDF macros, and the log and consumer table models. ``cdclake build``,
``load`` and ``docs`` make it themselves; plain ``dbt`` users run this first."""
from __future__ import annotations


def configure(parser) -> None:
    parser.description = __doc__.split("\n\n")[0]


def run(args) -> int:
    from cdclake.project.generated import point_dbt_at
    from cdclake.project.log_models import write_log_models_for_inputs
    from cdclake.session.spark import create_session
    from cdclake.settings import PROJECT_DIR, target_dir

    folder = point_dbt_at()
    spark = create_session(target_dir())
    tables = write_log_models_for_inputs(spark, PROJECT_DIR, example=False)
    print(f"{folder}: the UDF macros" + (f" and the models of {len(tables)} log tables" if tables else
                                         " (no schemas loaded: no log table models)"))
    return 0
