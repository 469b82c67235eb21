"""Automatic charts: the spec follows the result's column roles; PNG/SVG/HTML render offline."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from groundsql.charts import ChartOptions, chart_for, choose_chart, column_roles, render_chart
from groundsql.db import Result
from groundsql.sql.explain import explain_sql

pytestmark = pytest.mark.unit


def test_dimension_by_metric_is_a_bar_sorted_by_the_metric() -> None:
    spec = chart_for(Result(["region", "revenue"], [("North", 10.5), ("South", 3.0)]))
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["x"] == {"field": "region", "type": "nominal", "title": "region", "sort": "-y",
                                     "axis": {"labelAngle": 0}}
    assert spec["data"]["values"] == [{"region": "North", "revenue": 10.5}, {"region": "South", "revenue": 3.0}]


def test_time_by_metric_is_a_line() -> None:
    spec = chart_for(Result(["month", "orders"], [("2024-01", 4), ("2024-02", 7)]))
    assert spec["mark"]["type"] == "line" and spec["encoding"]["x"]["type"] == "temporal"
    dated = chart_for(Result(["day", "n"], [(dt.date(2024, 1, 1), 1), (dt.date(2024, 1, 2), 2)]))
    assert dated["mark"]["type"] == "line" and dated["data"]["values"][0]["day"] == "2024-01-01"


def test_time_metric_and_dimension_is_one_line_per_group() -> None:
    spec = chart_for(Result(["month", "region", "orders"], [("2024-01", "N", 1), ("2024-01", "S", 2)]))
    assert spec["mark"]["type"] == "line" and spec["encoding"]["color"]["field"] == "region"


def test_two_metrics_make_a_scatter_and_one_value_a_big_number() -> None:
    assert chart_for(Result(["price", "units"], [(1.5, 3), (2.0, 9)]))["mark"]["type"] == "point"
    number = chart_for(Result(["count(*)"], [(42,)]))
    assert number["mark"]["type"] == "text" and number["encoding"]["text"]["field"] == "count(*)"


def test_no_chart_when_a_table_says_it_best() -> None:
    assert chart_for(Result(["a", "b", "c"], [("x", "y", "z")])) is None
    assert chart_for(Result(["name"], [("a",), ("b",)])) is None
    assert chart_for(Result(["region", "n"], [])) is None
    many = Result(["k", "v"], [(f"k{i}", i) for i in range(100)])
    assert choose_chart(many, ["dimension", "metric"], ChartOptions(max_bars=60)) is None


def test_roles_come_from_the_sql_and_the_catalog() -> None:
    result = Result(["region_id", "total"], [(1, 3), (2, 5)])
    # without help an integer *_id column is an identifier, not a metric
    assert column_roles(result) == ["identifier", "metric"]
    explanation = explain_sql("SELECT region_id, COUNT(*) AS total FROM customers GROUP BY region_id", "sqlite")
    assert column_roles(result, explanation=explanation)[1] == "metric"

    class Profile:
        semantic_type = "dimension"

    class FakeCatalog:
        def column(self, table: str, column: str):
            return Profile() if (table, column) == ("customers", "region_id") else None

    roles = column_roles(result, explanation=explanation, catalog=FakeCatalog())
    assert roles == ["dimension", "metric"]
    assert choose_chart(result, roles)["mark"]["type"] == "bar"


def test_field_names_with_dots_are_escaped() -> None:
    spec = chart_for(Result(["t.name", "n"], [("a", 1), ("b", 2)]))
    assert spec["encoding"]["x"]["field"] == "t\\.name"


@pytest.mark.integration
def test_render_png_svg_and_html(tmp_path: Path) -> None:
    spec = chart_for(Result(["region", "revenue"], [("North", 10.5), ("South", 3.0)]))
    html = render_chart(spec, tmp_path / "c.html").read_text()
    assert "vegaEmbed(" in html and "cdn" not in html.lower() and "North" in html
    pytest.importorskip("vl_convert", reason="vl-convert-python is not installed (pip install 'groundsql[server]')")
    png = render_chart(spec, tmp_path / "c.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000
    svg = render_chart(spec, tmp_path / "c.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "North" in svg
    from groundsql.errors import ConfigError

    with pytest.raises(ConfigError, match="use .png, .svg or .html"):
        render_chart(spec, tmp_path / "c.jpg")
