"""``cdclake report``: one static HTML page (inline SVG and CSS, nothing fetched) about a build:
its generations on a time line, the latest generation's token ring, the hot streams, the
rejected writes over time, each table's rows and the stream sets of tablets tables."""
from __future__ import annotations

from html import escape
from pathlib import Path

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; background: #f4f6f9;
       margin: 0; padding: 24px; }
main { max-width: 1060px; margin: 0 auto; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 0 0 10px; }
.sub { color: #666; margin: 0 0 18px; }
.card { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); padding: 16px 20px;
        margin: 0 0 20px; }
figure { margin: 0 0 20px; } figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #555; font-size: 13px; margin-top: 8px; }
table#summary { border-collapse: collapse; }
table#summary caption { text-align: left; font-weight: 600; font-size: 17px; padding-bottom: 8px; }
table#summary th { font-weight: normal; color: #666; font-size: 12px; text-align: left; padding: 0 32px 2px 0; }
table#summary td { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; padding: 0 32px 0 0; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; vertical-align: baseline; }
svg text { font-family: system-ui, sans-serif; fill: #333; }
svg .tick { font-size: 11px; fill: #666; } svg .label { font-size: 12px; }
svg .strip-title { font-size: 12px; font-weight: 600; fill: #444; }
svg .mono { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; }
svg .axis { stroke: #888; } svg .grid { stroke: #e6e6e6; }
svg .generation-start { stroke: #1f3b73; stroke-width: 2; }
svg .ring-title { font-size: 15px; font-weight: 600; } svg .ring-caption { font-size: 12px; fill: #555; }
svg .vnode, svg .stream { stroke: #fff; stroke-width: 0.5; }
svg path:hover, svg rect:hover { opacity: .75; }
"""


def render_page(data) -> str:
    from cdclake.report import figures

    parts = [figures.summary_table(data), figures.timeline_figure(data), figures.ring_figure(data),
             figures.hot_streams_figure(data), figures.rejected_figure(data), figures.table_rows_figure(data),
             figures.tablet_sets_figure(data)]
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>CDC lake report</title><style>{STYLE}</style></head><body><main>"
        "<h1>CDC lake report</h1>"
        f"<p class='sub'>{escape(_subtitle(data))}</p>" + "".join(parts) + "</main></body></html>"
    )


def _subtitle(data) -> str:
    s = data.summary
    return (f"{s['input_writes']:,} writes ({s['accepted_writes']:,} accepted, {s['rejected_writes']:,} rejected), "
            f"{s['log_rows']:,} log rows, {s['generations']} CDC generations")


def build_report(spark, out: Path) -> Path:
    """Read the build's tables with ``spark`` and write the page to ``out``."""
    from cdclake.report.data import read_report_data

    page = render_page(read_report_data(spark))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out
