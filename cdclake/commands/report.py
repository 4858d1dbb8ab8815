"""``cdclake report``: one static HTML page about the last build (cdclake/report/)."""
from __future__ import annotations

import sys
from pathlib import Path

from cdclake.settings import target_dir


def configure(parser) -> None:
    parser.description = "One static HTML page (inline SVG and CSS, nothing fetched) about the last build."
    parser.add_argument("--out", type=Path, default=target_dir() / "report" / "index.html",
                        help="where to write the page (default: target/report/index.html)")


def run(args) -> int:
    from cdclake.report import build_report
    from cdclake.report.data import MissingTablesError
    from cdclake.session.spark import create_session

    spark = create_session(target_dir())
    try:
        out = build_report(spark, args.out)
    except MissingTablesError as e:
        print(f"cdclake report: {e}", file=sys.stderr)
        return 2
    print(f"report written to {out}")
    return 0
