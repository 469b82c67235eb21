"""Type vocabulary: physical families, name tokens, hidden datetimes, numbers, booleans and JSON in values."""

from __future__ import annotations

import pytest

from groundsql.catalog import types as T
from groundsql.catalog.nested import profile_json_values

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("declared, family", [
    ("INTEGER", T.INTEGER), ("BIGINT", T.INTEGER), ("VARCHAR(20)", T.STRING), ("CHAR(3)", T.STRING),
    ("DOUBLE PRECISION", T.FLOAT), ("NUMERIC(10,2)", T.FLOAT), ("REAL", T.FLOAT), ("TIMESTAMP", T.TEMPORAL),
    ("DATE", T.TEMPORAL), ("BOOLEAN", T.BOOLEAN), ("BLOB", T.BINARY), ("BYTEA", T.BINARY), ("JSONB", T.SEMI_STRUCTURED),
    ("STRUCT(a INTEGER)", T.SEMI_STRUCTURED), ("INTEGER[]", T.SEMI_STRUCTURED), ("GEOMETRY", T.GEOSPATIAL),
    ("", T.STRING), ("TEXT", T.STRING),
])
def test_physical_family(declared: str, family: str) -> None:
    assert T.physical_family(declared) == family


@pytest.mark.parametrize("name, tokens", [
    ("CountryCode", ["country", "code"]), ("first_name", ["first", "name"]), ("HTTPStatus", ["http", "status"]),
    ("Stadium_ID", ["stadium", "id"]), ("order date", ["order", "date"]),
])
def test_name_tokens(name: str, tokens: list[str]) -> None:
    assert T.name_tokens(name) == tokens


def test_id_and_time_tokens() -> None:
    assert T.has_id_token("customer_id") and T.has_id_token("CustomerId") and T.has_id_token("ID")
    assert not T.has_id_token("Name") and not T.has_id_token("paid")  # 'paid' ends in 'id' but is no key
    assert T.has_time_token("created_at") and T.has_time_token("event_ts") and not T.has_time_token("amount")


def test_iso_and_day_first_text_dates() -> None:
    assert T.detect_text_datetime(["2021-03-04", "2022-12-31", "2020-01-01"], "d") == (["%Y-%m-%d"], 1.0)
    formats, coverage = T.detect_text_datetime(["04/03/2021", "25/12/2020", "01/01/2022"], "x")
    assert formats == ["%d/%m/%Y"] and coverage == 1.0
    # month-first only when a day above 12 rules day-first out
    assert T.detect_text_datetime(["12/25/2020", "01/31/2021"], "x")[0] == ["%m/%d/%Y"]


def test_mixed_date_formats_are_covered_together() -> None:
    values = ["2021-03-04", "05/06/2021", "2022-01-30", "30/12/2020"]
    formats, coverage = T.detect_text_datetime(values, "order_date")
    assert set(formats) == {"%Y-%m-%d", "%d/%m/%Y"} and coverage == 1.0


def test_month_names_and_yearless_dates() -> None:
    assert T.detect_text_datetime(["June 1205", "February 1206"], "x")[0] == ["%B %Y"]
    assert T.detect_text_datetime(["5 May", "10 June"], "start_date")[0] == ["%d %B"]
    assert T.detect_text_datetime(["5 May", "10 June"], "title") is None  # year-less forms need a time-like name


def test_text_that_is_not_a_date() -> None:
    assert T.detect_text_datetime(["France", "Spain", "2021-03-04"], "country") is None
    assert T.detect_text_datetime(["12345678", "20201301"], "code") is None  # %Y%m%d needs a time-like name


def test_integer_times() -> None:
    assert T.detect_integer_time(1_600_000_000, 1_700_000_000, "created_ts") == "epoch_s"
    assert T.detect_integer_time(1_600_000_000_000, 1_700_000_000_000, "event_time") == "epoch_ms"
    assert T.detect_integer_time(20200101, 20231231, "order_date") == "%Y%m%d"
    assert T.detect_integer_time(1990, 2020, "year") == "%Y"
    assert T.detect_integer_time(-1523, 1994, "IndepYear") == "%Y"  # years BC still read as years
    assert T.detect_integer_time(6, 21, "Year_of_Work") is None  # a duration in years is a metric
    assert T.detect_integer_time(1_600_000_000, 1_700_000_000, "population") is None  # no time-like name
    assert T.integer_time_value(0 + 1_600_000_000, "epoch_s").year == 2020


def test_numeric_text_boolean_and_json() -> None:
    assert T.detect_text_number(["12", "7", "-3"]) == T.INTEGER
    assert T.detect_text_number(["1.5", "2", "1,200.25"]) == T.FLOAT
    assert T.detect_text_number(["12", "seven"]) is None
    assert T.detect_boolean(["T", "F"]) and T.detect_boolean(["yes", "no"]) and T.detect_boolean([1, 0])
    assert not T.detect_boolean(["T", "N"]) and not T.detect_boolean(["A", "B"])
    assert T.detect_json_text(['{"a": 1}', "[1, 2]"]) and not T.detect_json_text(["{broken", '{"a": 1}'])


def test_nested_json_paths_merge_array_positions() -> None:
    docs = ['{"user": {"id": 1, "tier": "gold"}, "items": [{"sku": "A"}, {"sku": "B"}]}',
            '{"user": {"id": 2, "tier": "gold"}, "items": [{"sku": "A"}]}',
            '{"user": {"id": 3, "tier": "silver"}, "items": []}',
            '{"user": {"id": 4, "tier": "gold"}}']
    paths = {p.name: p for p in profile_json_values(docs)}
    assert "$.items[].sku" in paths and "$.items[0].sku" not in paths
    assert paths["$.items"].declared_type.startswith("list[")
    assert paths["$.user"].declared_type == "dict"
    assert paths["$.user.id"].semantic_type == T.IDENTIFIER
    assert paths["$.user.tier"].semantic_type == T.DIMENSION
    assert {v.value for v in paths["$.user.tier"].top_values} == {"gold", "silver"}
