"""The report's six pictures and its summary table, as HTML fragments (inline SVG)."""
from __future__ import annotations

import math
from datetime import datetime, timezone
from html import escape

from cdclake.report.data import Generation, ReportData, StreamRows, TableRows, TabletSet, TimeBin, Vnode
from cdclake.report.svg import annular_sector, attrs, line, rect, svg, text

TOKEN_SPAN = 2**64
MAX_RING_STREAMS = 8192  # above this, the ring shows vnodes only (the page stays small)
TOP_STREAMS = 20
SHARD_COLORS = ["#9ecae1", "#c6dbef", "#a1d99b", "#c7e9c0", "#fdd0a2", "#dadaeb", "#d9d9d9", "#fcbba1"]
REASON_COLORS = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
ACCEPTED, REJECTED, HOT = "#4c78a8", "#d62728", "#e4572e"
GENERATION_BANDS = ["#eef3fb", "#dfe9f6"]


def utc(ms: float, span_ms: float | None = None) -> str:
    """A UTC time, as precise as the span it is read against needs."""
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    if span_ms is None:
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    if span_ms > 2 * 86_400_000:
        return moment.strftime("%Y-%m-%d")
    if span_ms > 600_000:
        return moment.strftime("%H:%M")
    if span_ms > 10_000:
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%H:%M:%S.") + f"{int(ms) % 1000:03d}"


def figure(figure_id: str, heading: str, caption: str, picture: str) -> str:
    return (f'<figure {attrs(id=f"figure-{figure_id}", cls="card")}><h2>{escape(heading)}</h2>{picture}'
            f"<figcaption>{caption}</figcaption></figure>")


def summary_table(data: ReportData) -> str:
    s = data.summary
    rows = [
        ("input_writes", "input writes", s["input_writes"]),
        ("accepted_writes", "accepted", s["accepted_writes"]),
        ("rejected_writes", "rejected", s["rejected_writes"]),
        ("log_rows", "log rows", s["log_rows"]),
        ("generations", "generations", s["generations"]),
        ("hot_streams", "streams with log rows", len(data.hot_streams)),
    ]
    head = "".join(f'<th scope="col">{label}</th>' for _, label, _ in rows)
    values = "".join(f'<td {attrs(data_key=key)}>{value:,}</td>' for key, _, value in rows)
    return (f'<section class="card"><table id="summary"><caption>Summary</caption>'
            f"<tr>{head}</tr><tr>{values}</tr></table></section>")


# --- 1. generations on a time line -------------------------------------------------------------

def _time_axis(x0: float, x1: float, y: float, t0: float, t1: float, ticks: int = 6) -> list[str]:
    parts = [line(x0, y, x1, y, cls="axis")]
    for i in range(ticks + 1):
        x = x0 + (x1 - x0) * i / ticks
        anchor = "start" if i == 0 else "end" if i == ticks else "middle"  # the ends stay inside
        parts += [line(x, y, x, y + 5, cls="axis"),
                  text(x, y + 18, utc(t0 + (t1 - t0) * i / ticks, t1 - t0), cls="tick", text_anchor=anchor)]
    return parts


def _generation_bands(gens: list[Generation], t0: float, t1: float, scale, y: float, h: float,
                      strip: str) -> list[str]:
    parts = []
    for i, gen in enumerate(gens):
        end = gens[i + 1].ts_ms if i + 1 < len(gens) else math.inf
        start, stop = max(gen.ts_ms, t0), min(end, t1)
        if start >= stop:
            continue
        parts.append(rect(scale(start), y, scale(stop) - scale(start), h,
                          f"generation {i + 1} from {utc(gen.ts_ms)}: {gen.vnodes} vnodes, {gen.streams} streams",
                          fill=GENERATION_BANDS[i % 2]))
        if gen.ts_ms >= t0:
            x = scale(gen.ts_ms)
            parts += [line(x, y - 6, x, y + h, cls="generation-start", data_strip=strip, data_ts_ms=gen.ts_ms),
                      text(x + 4, y + 12, f"gen {i + 1}", cls="label")]
    return parts


def timeline_figure(data: ReportData) -> str:
    gens, bins = data.generations, data.write_bins
    width, x0, x1 = 1000, 20, 980
    w0, w1 = (bins[0].start_ms, bins[-1].end_ms) if bins else (None, None)
    first = min([g.ts_ms for g in gens] + ([w0] if bins else []))
    last = max([g.ts_ms for g in gens] + ([w1] if bins else []))
    t0, t1 = first, last + max(last - first, 600_000) * 0.05

    def history_x(t: float) -> float:
        return x0 + (x1 - x0) * (t - t0) / (t1 - t0)

    body = [text(x0, 16, "The cluster's history", cls="strip-title")]
    body += _generation_bands(gens, t0, t1, history_x, 30, 50, "history")
    if bins:
        wx = history_x(w0)
        body += [rect(wx, 84, max(history_x(w1) - wx, 3), 8, "the writes' time span", fill=ACCEPTED),
                 text(min(wx, x1 - 120), 106, f"writes ({data.summary['input_writes']:,})", cls="label")]
    body += _time_axis(x0, x1, 118, t0, t1)
    height = 150
    if bins:
        pad = (w1 - w0) * 0.03

        def writes_x(t: float) -> float:
            return x0 + (x1 - x0) * (t - (w0 - pad)) / (w1 - w0 + 2 * pad)

        top, h = 190, 110
        peak = max(b.accepted + sum(b.rejected.values()) for b in bins) or 1
        body += [text(x0, top - 14, "The writes' time span (coordinator clock): writes per interval", cls="strip-title")]
        body += _generation_bands(gens, w0 - pad, w1 + pad, writes_x, top, h, "writes")
        for b in bins:
            bx, bw = writes_x(b.start_ms) + 1, writes_x(b.end_ms) - writes_x(b.start_ms) - 2
            rejected = sum(b.rejected.values())
            ya = top + h - h * b.accepted / peak
            yr = ya - h * rejected / peak
            span = f"{utc(b.start_ms)} to {utc(b.end_ms)}"
            body += [rect(bx, ya, bw, top + h - ya, f"{b.accepted} accepted, {span}", fill=ACCEPTED,
                          cls="write-bin", data_status="accepted", data_count=b.accepted),
                     rect(bx, yr, bw, ya - yr, f"{rejected} rejected, {span}", fill=REJECTED,
                          cls="write-bin", data_status="rejected", data_count=rejected)]
        body += _time_axis(x0, x1, top + h, w0 - pad, w1 + pad)
        height = top + h + 30
    desc = (f"{len(gens)} generations, from {utc(gens[0].ts_ms)} to {utc(gens[-1].ts_ms)}; "
            f"{data.summary['input_writes']} writes" if gens else "no generations")
    picture = svg("timeline", width, height, "CDC generations on a time line", desc, body)
    caption = ("Each band is a generation, operating from its timestamp until the next one. "
               f"Below: the writes by the coordinator's clock, <span class='swatch' style='background:{ACCEPTED}'></span>"
               f" accepted and <span class='swatch' style='background:{REJECTED}'></span> rejected.")
    return figure("timeline", "Generations", caption, picture)


# --- 2. the token ring of the latest generation ------------------------------------------------

def _angle(token: int) -> float:
    return 2 * math.pi * (token + 2**63) / TOKEN_SPAN


def ring_figure(data: ReportData) -> str:
    vnodes: list[Vnode] = data.ring
    hot = {s.stream_id: s.rows for s in data.hot_streams}
    size, cx, cy = 560, 280, 280
    total_streams = sum(len(v.streams) for v in vnodes)
    draw_streams = total_streams <= MAX_RING_STREAMS
    body = []
    for v in vnodes:
        a0, a1 = _angle(v.range_start), _angle(v.range_end)
        if a1 <= a0:  # the wrap-around range
            a1 += 2 * math.pi
        body.append(annular_sector(
            cx, cy, 236, 262, a0, a1, f"vnode {v.index}: tokens ({v.range_start}, {v.range_end}], {len(v.streams)} shards",
            cls="vnode", fill=["#3b6ea5", "#7aa6d6"][v.index % 2], data_vnode_index=v.index,
            data_range_start=v.range_start, data_range_end=v.range_end, data_shards=len(v.streams)))
        if not draw_streams:
            continue
        band = (228 - 110) / len(v.streams)
        for shard, stream in enumerate(v.streams):
            rows = hot.get(stream, 0)
            r_in = 110 + shard * band
            body.append(annular_sector(
                cx, cy, r_in, r_in + band - 0.6, a0, a1,
                f"stream {stream}: vnode {v.index}, shard {shard}, {rows} log rows",
                cls="stream" + (" hot" if rows else ""), fill=HOT if rows else SHARD_COLORS[shard % len(SHARD_COLORS)],
                data_stream_id=stream, data_shard=shard, data_log_rows=rows))
    max_shards = max((len(v.streams) for v in vnodes), default=0)
    legend = [("#3b6ea5", "vnodes: token ranges, alternating shades")]
    legend += [(SHARD_COLORS[k % len(SHARD_COLORS)], f"stream of shard {k}") for k in range(min(max_shards, 8))]
    legend += [(HOT, "stream with log rows")]
    for i, (color, label) in enumerate(legend):
        body += [rect(size + 20, 40 + i * 24, 14, 14, fill=color), text(size + 42, 52 + i * 24, label, cls="label")]
    latest = data.generations[-1] if data.generations else None
    shards = sorted({len(v.streams) for v in vnodes})
    used = sum(1 for v in vnodes for s in v.streams if s in hot)
    body += [text(cx, cy - 34, "latest generation", cls="ring-caption", text_anchor="middle"),
             text(cx, cy - 12, utc(latest.ts_ms) if latest else "none", cls="ring-title", text_anchor="middle"),
             text(cx, cy + 12, f"{len(vnodes)} vnodes · {total_streams} streams", cls="ring-caption", text_anchor="middle"),
             text(cx, cy + 32, f"{used} streams with log rows", cls="ring-caption", text_anchor="middle"),
             text(cx, 12, "token −2⁶³ | 2⁶³−1", cls="tick", text_anchor="middle"),
             text(cx, size - 2, "token 0", cls="tick", text_anchor="middle")]
    desc = (f"{len(vnodes)} vnodes (token ranges) in the outer ring; inside, each vnode's "
            f"{'/'.join(map(str, shards))} shard streams, from shard 0 inwards; {used} streams have log rows")
    if not draw_streams:
        desc += f"; the {total_streams} streams are too many to draw, so only vnodes are shown"
    picture = svg("ring", size + 220, size, "Token ring of the latest generation", desc, body)
    caption = ("The outer ring: one arc per vnode, its token range <code>(previous end, end]</code>, "
               "clockwise from the smallest token. Inner bands: the vnode's streams, one per shard "
               f"(shard 0 innermost); <span class='swatch' style='background:{HOT}'></span> streams that "
               "carry log rows. Hover an arc for its tokens or stream ID.")
    return figure("ring", "Token ring", caption, picture)


# --- 3. log rows per stream --------------------------------------------------------------------

def hot_streams_figure(data: ReportData, top: int = TOP_STREAMS) -> str:
    streams: list[StreamRows] = data.hot_streams[:top]
    generation_number = {g.ts_ms: i + 1 for i, g in enumerate(data.generations)}
    row_h, label_w, width = 24, 360, 1000
    peak = max((s.rows for s in streams), default=1)
    body = []
    for i, s in enumerate(streams):
        y = 8 + i * row_h
        w = (width - label_w - 60) * s.rows / peak
        gen = generation_number.get(s.generation_ts_ms)
        body += [text(0, y + 15, s.stream_id, cls="mono"),
                 text(label_w - 52, y + 15, f"gen {gen}" if gen else "", cls="label"),
                 rect(label_w, y + 3, w, row_h - 6, f"stream {s.stream_id}: {s.rows} log rows", fill=HOT,
                      cls="stream-bar", data_stream_id=s.stream_id, data_rows=s.rows),
                 text(label_w + w + 6, y + 16, str(s.rows), cls="label")]
    if not streams:
        body.append(text(0, 20, "no log rows", cls="label"))
    height = 16 + max(len(streams), 1) * row_h
    shown = f"the top {len(streams)}" if len(data.hot_streams) > len(streams) else f"all {len(streams)}"
    desc = f"{len(data.hot_streams)} streams have log rows; {shown} by log rows, most first"
    picture = svg("hot-streams", width, height, "Log rows per stream", desc, body)
    caption = (f"Log rows (all tables) per stream ID, hottest first; {escape(desc)}. "
               "A hot stream is a partition of the log tables that gets many writes.")
    return figure("hot-streams", "Hot streams", caption, picture)


# --- 4. rejected writes over time ------------------------------------------------------------

def rejected_figure(data: ReportData) -> str:
    bins: list[TimeBin] = data.write_bins
    colors = {reason: REASON_COLORS[i % len(REASON_COLORS)] for i, reason in enumerate(data.reasons)}
    width, x0, x1, top, h = 1000, 40, 980, 40, 170
    body = []
    totals = {reason: sum(b.rejected.get(reason, 0) for b in bins) for reason in data.reasons}
    x = x0
    for reason, total in totals.items():  # legend
        body += [rect(x, 6, 12, 12, fill=colors[reason]), text(x + 17, 17, f"{reason} ({total})", cls="label")]
        x += 30 + 8 * len(f"{reason} ({total})")
    if bins and any(totals.values()):
        peak = max(sum(b.rejected.values()) for b in bins)
        w0, w1 = bins[0].start_ms, bins[-1].end_ms
        for k in range(peak + 1):  # integer ticks on the count axis
            if peak <= 10 or k % math.ceil(peak / 5) == 0:
                y = top + h - h * k / peak
                body += [line(x0, y, x1, y, cls="grid"), text(x0 - 6, y + 4, str(k), cls="tick", text_anchor="end")]
        for b in bins:
            bx = x0 + (x1 - x0) * (b.start_ms - w0) / (w1 - w0) + 1
            bw = (x1 - x0) * (b.end_ms - b.start_ms) / (w1 - w0) - 2
            y = top + h
            for reason in data.reasons:
                n = b.rejected.get(reason, 0)
                if n:
                    y -= h * n / peak
                    body.append(rect(bx, y, bw, h * n / peak, f"{n} rejected ({reason}), {utc(b.start_ms)} to {utc(b.end_ms)}",
                                     fill=colors[reason], cls="rejected-bin", data_reason=reason, data_count=n))
        body += _time_axis(x0, x1, top + h, w0, w1)
        height = top + h + 30
    else:
        body.append(text(x0, 20, "no rejected writes", cls="label"))
        height = 30
    desc = ", ".join(f"{n} {reason}" for reason, n in totals.items()) or "no rejected writes"
    picture = svg("rejected", width, height, "Rejected writes over time, by reason", desc, body)
    caption = ("Writes ScyllaDB would have refused, or that could not be processed "
               "(<code>cdc_lake.cdc_rejected_writes</code>), by the coordinator's clock and reason.")
    return figure("rejected", "Rejected writes", caption, picture)


# --- 5. each table's rows over time ------------------------------------------------------------

def table_rows_figure(data: ReportData) -> str:
    tables: list[TableRows] = data.table_rows
    width, x0, x1, strip_h, gap = 1000, 40, 980, 70, 48
    body = []
    for number, table in enumerate(tables):
        top = 10 + number * (strip_h + gap)
        peak = max(max(table.live_rows), max(table.new_versions), 1)
        w0, w1 = table.bins[0].start_ms, table.bins[-1].end_ms
        body.append(text(x0, top + 2, f"{table.table}: {table.live_rows[-1]} live rows at the end, "
                                      f"{sum(table.new_versions)} versions", cls="strip-title"))
        base = top + 10 + strip_h * 0.65
        for b, live, started in zip(table.bins, table.live_rows, table.new_versions):
            bx = x0 + (x1 - x0) * (b.start_ms - w0) / (w1 - w0) + 1
            bw = (x1 - x0) * (b.end_ms - b.start_ms) / (w1 - w0) - 2
            tooltip = f"{table.table}: {live} live rows at {utc(b.end_ms)}, {started} new versions"
            body.append(rect(bx, base - strip_h * 0.6 * live / peak, bw, strip_h * 0.6 * live / peak, tooltip,
                             fill=ACCEPTED, cls="table-bin", data_table=table.table, data_live=live,
                             data_versions=started))
            if started:
                body.append(rect(bx, base + 2, bw, strip_h * 0.3 * started / peak, tooltip, fill=HOT))
        body += _time_axis(x0, x1, top + 12 + strip_h, w0, w1)
    if not tables:
        body.append(text(x0, 20, "no table with a history (build the consumer tables first)", cls="label"))
    height = 20 + max(len(tables), 1) * (strip_h + gap)
    desc = "; ".join(f"{t.table}: {t.live_rows[-1]} live rows, {sum(t.new_versions)} versions" for t in tables) \
        or "no table with a history"
    picture = svg("table-rows", width, height, "Rows live and versions over time, per table", desc, body)
    caption = ("Per table, the rows live at the end of each time bin (blue, above the line) and the row versions "
               "that started in it (orange, below), from the history the consumer tables are built from "
               "(<code>&lt;table&gt;_history</code>); static rows and versions outside the writes' time span "
               "(TTL expiries still ahead) are not counted.")
    return figure("table-rows", "Rows and versions per table", caption, picture)


# --- 6. the stream sets of tablets tables ------------------------------------------------------

def tablet_sets_figure(data: ReportData) -> str:
    sets: list[TabletSet] = data.tablet_sets
    tables = sorted({s.table for s in sets})
    width, x0, x1, strip_h, gap = 1000, 20, 980, 40, 48
    bins = data.write_bins
    times = [s.ts_ms for s in sets] + ([bins[0].start_ms, bins[-1].end_ms] if bins else [])
    body = []
    if sets:
        t0, t1 = min(times), max(times)
        t1 += max(t1 - t0, 60_000) * 0.08

        def x(t: float) -> float:
            return x0 + (x1 - x0) * (t - t0) / (t1 - t0)

        for number, table in enumerate(tables):
            top = 10 + number * (strip_h + gap)
            own = [s for s in sets if s.table == table]
            body.append(text(x0, top + 2, f"{table}: {len(own)} stream sets kept", cls="strip-title"))
            for k, stream_set in enumerate(own):
                end = own[k + 1].ts_ms if k + 1 < len(own) else t1
                tooltip = (f"{table}: stream set from {utc(stream_set.ts_ms)}, {stream_set.streams} streams "
                           "(one per tablet)")
                body += [rect(x(stream_set.ts_ms), top + 10, x(end) - x(stream_set.ts_ms), strip_h, tooltip,
                              fill=GENERATION_BANDS[k % 2], cls="tablet-set", data_table=table,
                              data_ts_ms=stream_set.ts_ms, data_streams=stream_set.streams),
                         line(x(stream_set.ts_ms), top + 4, x(stream_set.ts_ms), top + 10 + strip_h,
                              cls="generation-start"),
                         text(x(stream_set.ts_ms) + 6, top + 10 + strip_h / 2 + 4, f"{stream_set.streams} streams",
                              cls="label")]
            body += _time_axis(x0, x1, top + 12 + strip_h, t0, t1)
    else:
        body.append(text(x0, 20, "no table of a tablets keyspace", cls="label"))
    height = 20 + max(len(tables), 1) * (strip_h + gap)
    desc = "; ".join(f"{table}: {', '.join(str(s.streams) for s in sets if s.table == table)} streams"
                     for table in tables) or "no table of a tablets keyspace"
    picture = svg("tablet-sets", width, height, "Stream sets of the tables of tablets keyspaces", desc, body)
    caption = ("A table of a tablets keyspace has CDC streams of its own: one per tablet, all replaced when its "
               "tablets split or merge. Each band is a stream set still kept (<code>cdc_lake.cdc_streams</code>), "
               "in force from its timestamp until the next one.")
    return figure("tablet-sets", "Stream sets of tablets tables", caption, picture)
