"""Small SVG builders: each returns markup text; attribute values are escaped."""
from __future__ import annotations

import math
from html import escape


def attrs(**values) -> str:
    """``key="value"`` pairs; ``data_x`` becomes ``data-x``, ``cls`` becomes ``class``; None is left out."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = "class" if key == "cls" else key.replace("_", "-")
        if isinstance(value, float):
            value = f"{value:.2f}"
        parts.append(f'{name}="{escape(str(value))}"')
    return " ".join(parts)


def svg(figure_id: str, width: int, height: int, title: str, desc: str, body: list[str]) -> str:
    """An accessible picture: role img, labelled by its <title> and described by its <desc>."""
    return (
        f'<svg {attrs(id=figure_id, viewBox=f"0 0 {width} {height}", width=width, height=height, role="img")} '
        f'aria-labelledby="{figure_id}-title {figure_id}-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{figure_id}-title">{escape(title)}</title><desc id="{figure_id}-desc">{escape(desc)}</desc>'
        + "".join(body) + "</svg>"
    )


def rect(x: float, y: float, w: float, h: float, tooltip: str | None = None, **extra) -> str:
    inner = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return f"<rect {attrs(x=float(x), y=float(y), width=float(max(w, 0)), height=float(max(h, 0)), **extra)}>{inner}</rect>"


def line(x1: float, y1: float, x2: float, y2: float, **extra) -> str:
    return f"<line {attrs(x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **extra)}/>"


def text(x: float, y: float, content: str, **extra) -> str:
    return f"<text {attrs(x=float(x), y=float(y), **extra)}>{escape(content)}</text>"


def annular_sector(cx: float, cy: float, r_in: float, r_out: float, a0: float, a1: float,
                   tooltip: str | None = None, **extra) -> str:
    """The ring slice between radii r_in..r_out and angles a0..a1 (radians, clockwise from 12 o'clock)."""
    a1 = min(a1, a0 + 2 * math.pi - 1e-4)  # a full circle would have coinciding ends

    def point(r: float, a: float) -> str:
        return f"{cx + r * math.sin(a):.2f} {cy - r * math.cos(a):.2f}"

    large = 1 if a1 - a0 > math.pi else 0
    d = (f"M {point(r_out, a0)} A {r_out} {r_out} 0 {large} 1 {point(r_out, a1)} "
         f"L {point(r_in, a1)} A {r_in} {r_in} 0 {large} 0 {point(r_in, a0)} Z")
    inner = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return f"<path {attrs(d=d, **extra)}>{inner}</path>"
