"""Automatic charts: a Vega-Lite spec chosen from a result's columns and the catalog's semantic types.

time × metric → line, dimension × metric → bar, two metrics → scatter, one value → big number, anything else →
no chart (the table says it best). `render_chart` writes the same spec as PNG/SVG (vl-convert) or HTML (the
vendored vega-embed, no CDN).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from groundsql.catalog.types import DIMENSION, IDENTIFIER, METRIC, OTHER, TIME
from groundsql.db.result import Result, json_safe
from groundsql.errors import ConfigError
from groundsql.sql.explain import Explanation

VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
VENDOR_SCRIPTS = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")
_ID_SUFFIXES = ("_id", "id", "_key", "_code")


class ChartOptions(BaseModel):
    """How charts are chosen and sized."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_bars: int = Field(60, description="More categories than this and a bar chart is not drawn.")
    max_points: int = Field(5000, description="Rows embedded in a spec at most.")
    width: int = Field(560, description="Chart width in pixels.")
    height: int = Field(300, description="Chart height in pixels.")


def column_roles(result: Result, *, explanation: Explanation | None = None, catalog: Any = None) -> list[str]:
    """The semantic role of each result column: metric, time, dimension, identifier or other.

    An aggregate is a metric; a column read straight from one source column takes that column's semantic type
    from the catalog; everything else is judged from its values.
    """
    explained = {c.name: c for c in explanation.columns} if explanation is not None else {}
    roles: list[str] = []
    for index, name in enumerate(result.columns):
        values = [row[index] for row in result.rows if row[index] is not None]
        column = explained.get(name)
        role = None
        if column is not None and column.aggregate and _numeric(values):
            role = METRIC
        elif column is not None and len(column.sources) == 1 and catalog is not None:
            table, _, source = column.sources[0].rpartition(".")
            profile = catalog.column(table, source)
            if profile is not None and profile.semantic_type != OTHER:
                role = profile.semantic_type
                if role == METRIC and not _numeric(values):
                    role = None
        roles.append(role or _role_from_values(name, values))
    return roles


def choose_chart(result: Result, roles: list[str], options: ChartOptions | None = None) -> dict[str, Any] | None:
    """A Vega-Lite spec (data inlined) for the result, or None when a chart would not help."""
    options = options or ChartOptions()
    columns = list(result.columns)
    if not columns or not result.rows:
        return None
    times = [c for c, r in zip(columns, roles) if r == TIME]
    metrics = [c for c, r in zip(columns, roles) if r == METRIC]
    dimensions = [c for c, r in zip(columns, roles) if r in (DIMENSION, OTHER, IDENTIFIER)]
    values = [dict(zip(columns, (json_safe(v) for v in row))) for row in result.rows[: options.max_points]]
    base: dict[str, Any] = {"$schema": VEGA_LITE_SCHEMA, "data": {"values": values},
                            "width": options.width, "height": options.height}
    if len(columns) == 1 and len(result.rows) == 1:
        return _big_number(base, columns[0], values[0][columns[0]])
    if len(times) == 1 and metrics and len(dimensions) <= 1 and len(metrics) + len(dimensions) == len(columns) - 1:
        x = {"field": _field(times[0]), "type": _time_type(values, times[0]), "title": times[0]}
        return _with_metrics(base, "line", x, metrics, dimensions, {"point": True, "tooltip": True})
    if len(dimensions) == 1 and metrics and not times and len(metrics) + 1 == len(columns):
        if len(result.rows) > options.max_bars:
            return None
        x = {"field": _field(dimensions[0]), "type": "nominal", "title": dimensions[0],
             "sort": None if len(metrics) > 1 else "-y"}
        labels = [str(v[dimensions[0]]) for v in values]
        if len(labels) <= 12 and max(map(len, labels)) <= 12:
            x["axis"] = {"labelAngle": 0}
        return _with_metrics(base, "bar", x, metrics, [], {"tooltip": True})
    if len(metrics) == 2 and not times and len(dimensions) <= 1 and len(columns) == 2 + len(dimensions):
        encoding: dict[str, Any] = {
            "x": {"field": _field(metrics[0]), "type": "quantitative", "title": metrics[0]},
            "y": {"field": _field(metrics[1]), "type": "quantitative", "title": metrics[1]},
            "tooltip": [{"field": _field(c), "title": c} for c in columns],
        }
        return {**base, "mark": {"type": "point", "filled": True}, "encoding": encoding}
    return None


def chart_for(result: Result | None, *, explanation: Explanation | None = None, catalog: Any = None,
              options: ChartOptions | None = None) -> dict[str, Any] | None:
    """`choose_chart` after `column_roles`: the one call the CLI, the API and the UI make."""
    if result is None:
        return None
    return choose_chart(result, column_roles(result, explanation=explanation, catalog=catalog), options)


def render_chart(spec: dict[str, Any], path: Path) -> Path:
    """Write `spec` to `path`: .png or .svg through vl-convert (offline), .html with the vendored vega-embed.

    Raises:
        ConfigError: an unknown suffix, or vl-convert missing for PNG/SVG.
    """
    suffix = path.suffix.lower()
    if suffix == ".html":
        path.write_text(chart_html(spec), encoding="utf-8")
        return path
    if suffix not in {".png", ".svg"}:
        raise ConfigError(f"cannot write a chart as {suffix or 'a file without a suffix'}; use .png, .svg or .html")
    try:
        import vl_convert
    except ImportError:
        raise ConfigError("PNG/SVG charts need vl-convert: pip install 'groundsql[server]' (or write .html)") from None
    if suffix == ".png":
        path.write_bytes(vl_convert.vegalite_to_png(spec, scale=2))
    else:
        path.write_text(vl_convert.vegalite_to_svg(spec), encoding="utf-8")
    return path


def chart_html(spec: dict[str, Any], title: str = "groundsql chart") -> str:
    """A self-contained page drawing `spec` with the vendored vega, vega-lite and vega-embed (no network)."""
    vendor = resources.files("groundsql.server").joinpath("static", "vendor")
    scripts = "\n".join(f"<script>{vendor.joinpath(name).read_text(encoding='utf-8')}</script>"
                        for name in VENDOR_SCRIPTS)
    payload = json.dumps(spec, default=json_safe).replace("</", "<\\/")
    return (f"<!doctype html>\n<html><head><meta charset='utf-8'><title>{_escape(title)}</title>\n{scripts}\n"
            f"</head><body><div id='chart'></div><script>vegaEmbed('#chart', {payload}, "
            "{actions: false});</script></body></html>\n")


# -- helpers ------------------------------------------------------------------------------------------------


def _big_number(base: dict[str, Any], column: str, value: Any) -> dict[str, Any]:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    text: dict[str, Any] = {"field": _field(column), "type": "quantitative" if number else "nominal"}
    if number:
        text["format"] = ",.4~f"
    return {**base, "width": 320, "height": 120, "title": column, "mark": {
        "type": "text", "fontSize": 56, "fontWeight": "bold"}, "encoding": {"text": text}}


def _with_metrics(base: dict[str, Any], mark: str, x: dict[str, Any], metrics: list[str], dimensions: list[str],
                  mark_options: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {**base, "mark": {"type": mark, **mark_options}}
    if len(metrics) == 1:
        encoding: dict[str, Any] = {"x": x, "y": {"field": _field(metrics[0]), "type": "quantitative",
                                                   "title": metrics[0]}}
        if dimensions:
            encoding["color"] = {"field": _field(dimensions[0]), "type": "nominal", "title": dimensions[0]}
    else:  # several metrics: one series (or bar in each group) per metric
        spec["transform"] = [{"fold": metrics, "as": ["measure", "value"]}]
        encoding = {"x": x, "y": {"field": "value", "type": "quantitative"},
                    "color": {"field": "measure", "type": "nominal"}}
        if mark == "bar":
            encoding["xOffset"] = {"field": "measure"}
    spec["encoding"] = encoding
    return spec


def _field(name: str) -> str:
    """Vega-Lite reads dots and brackets in a field name as nested access; escape them."""
    return name.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def _numeric(values: list[Any]) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                for v in (json_safe(v) for v in values))


def _role_from_values(name: str, values: list[Any]) -> str:
    lowered = name.lower()
    if not values:
        return OTHER
    if all(isinstance(v, (dt.date, dt.datetime)) for v in values):
        return TIME
    if _numeric(values):
        if any(lowered.endswith(s) for s in _ID_SUFFIXES):
            return IDENTIFIER
        if lowered in {"year", "yr", "month"} or lowered.endswith("_year"):
            return TIME
        return METRIC
    if all(isinstance(v, str) and _iso_date(v) for v in values):
        return TIME
    return DIMENSION


def _iso_date(text: str) -> bool:
    text = text.strip()
    if len(text) == 7 and text[4] == "-":  # 2024-03
        text += "-01"
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _time_type(values: list[dict[str, Any]], column: str) -> str:
    present = [v[column] for v in values if v[column] is not None]
    if present and all(isinstance(v, str) and _iso_date(v) for v in present):
        return "temporal"
    return "ordinal"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
