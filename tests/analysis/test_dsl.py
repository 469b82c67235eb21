"""The view DSL's validation and the compiler's refusals: structured errors that name the nearest real names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from groundsql.analysis.compile import ViewCompiler
from groundsql.analysis.dsl import View, view_json_schema
from groundsql.errors import ViewError

pytestmark = pytest.mark.unit

TABLES = {"customer": ["id", "name", "city"], "orders": ["id", "customer_id", "amount", "status", "Order"]}
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "view-schema.json"


def compile_one(definition: dict, dialect: str = "sqlite", earlier: list[dict] = ()) -> str:
    compiler = ViewCompiler(TABLES, dialect)
    for view in earlier:
        compiler.add(View.model_validate(view))
    return compiler.compile(View.model_validate(definition)).sql(dialect)


def refusal(definition: dict, dialect: str = "sqlite") -> ViewError:
    with pytest.raises(ViewError) as info:
        compile_one(definition, dialect)
    return info.value


def test_unknown_table_names_the_nearest_tables() -> None:
    error = refusal({"name": "v", "source": "order", "dimensions": ["id"]})
    assert error.where == "source" and error.suggestions[0] == "orders"
    assert "unknown table or view 'order'" in str(error)


def test_unknown_column_names_the_nearest_columns() -> None:
    error = refusal({"name": "v", "source": "orders", "dimensions": ["ammount"]})
    assert error.where == "dimensions[0].expr" and "orders.amount" in error.suggestions
    assert error.to_dict()["view"] == "v"


def test_a_column_of_a_table_not_joined_says_which_table_has_it() -> None:
    error = refusal({"name": "v", "source": "orders", "dimensions": ["city"]})
    assert "customer.city" in error.problem and "join" in error.problem


def test_ambiguous_columns_must_be_qualified() -> None:
    error = refusal({"name": "v", "source": "orders", "dimensions": ["id"],
                     "joins": [{"table": "customer", "on": [["orders.customer_id", "customer.id"]]}]})
    assert "ambiguous" in error.problem and set(error.suggestions) == {"orders.id", "customer.id"}


@pytest.mark.parametrize("expression, words", [
    ("(SELECT max(amount) FROM orders)", "not allowed"),
    ("amount; DROP TABLE orders", "one expression"),
    ("load_extension('x')", "not allowed for sqlite"),
    ("pg_read_file('/etc/passwd')", "not allowed"),
    ("sum(amount)", "aggregates belong in metrics"),
    ("row_number() over (order by amount)", "not allowed"),
    ("orders.*", "list the columns"),
    ("exists(select 1)", "not allowed"),
])
def test_expressions_are_only_expressions(expression: str, words: str) -> None:
    error = refusal({"name": "v", "source": "orders", "dimensions": [{"expr": expression, "alias": "x"}]})
    assert words in str(error)


def test_functions_are_allowed_per_dialect() -> None:
    view = {"name": "v", "source": "orders", "dimensions": [{"expr": "greatest(amount, 10)", "alias": "g"}]}
    assert "GREATEST" in compile_one(view, "postgres")
    assert "not allowed for sqlite" in str(refusal(view, "sqlite"))
    trunc = {"name": "v", "source": "orders", "dimensions": [{"expr": "date_trunc('month', amount)", "alias": "m"}]}
    assert "DATE_TRUNC" in compile_one(trunc, "duckdb")
    assert "allowed:" in str(refusal(trunc, "sqlite"))


def test_a_column_named_like_a_keyword_is_still_a_column() -> None:
    assert '"orders"."Order"' in compile_one({"name": "v", "source": "orders", "dimensions": ["Order"]})


def test_values_are_literals_never_sql() -> None:
    sql = compile_one({"name": "v", "source": "customer", "dimensions": ["name"],
                       "conditions": [{"op": "=", "column": "name", "value": "x' OR '1'='1"}]})
    assert sql.endswith("WHERE \"customer\".\"name\" = 'x'' OR ''1''=''1'")


def test_view_names_cannot_shadow_tables_and_must_be_earlier_views() -> None:
    assert "already a table" in str(refusal({"name": "orders", "source": "customer", "dimensions": ["name"]}))
    error = refusal({"name": "v", "source": "orders", "dimensions": ["id"],
                     "conditions": [{"op": ">", "column": "amount", "view": "customer", "view_column": "id"}]})
    assert "not an earlier view" in error.problem


def test_lenient_shapes_small_models_write() -> None:
    view = View.model_validate({
        "name": "v", "source": "orders", "dimensions": ["status"],
        "metrics": [{"agg": "AVERAGE", "expr": "amount", "alias": "mean"}],
        "conditions": {"op": "==", "column": "status", "value": "paid"},
        "order": "mean DESC",
        "joins": [{"table": "customer", "type": "LEFT JOIN", "on": {"orders.customer_id": "customer.id"}}],
    })
    assert view.metrics[0].agg == "avg" and view.conditions[0].op == "="
    assert view.order[0].desc and view.joins[0].type == "left" and view.joins[0].on[0].right == "customer.id"


@pytest.mark.parametrize("bad", [
    {"name": "v", "source": "orders", "conditions": [{"op": "between", "column": "amount", "value": 3}]},
    {"name": "v", "source": "orders", "conditions": [{"op": "in", "column": "amount", "value": 3}]},
    {"name": "v", "source": "orders", "conditions": [{"op": "=", "column": "amount"}]},
    {"name": "v", "source": "orders", "conditions": [{"op": "not", "conditions": []}]},
    {"name": "bad name", "source": "orders"},
    {"name": "v", "source": "orders", "sql": "SELECT 1"},
])
def test_malformed_views_are_rejected_by_the_model(bad: dict) -> None:
    with pytest.raises(ValidationError):
        View.model_validate(bad)


def test_without_columns_a_view_lists_the_source() -> None:
    sql = compile_one({"name": "v", "source": "customer"})
    assert sql == 'SELECT "customer"."id", "customer"."name", "customer"."city" FROM "customer"'


def test_the_published_json_schema_is_current() -> None:
    published = json.loads(SCHEMA_FILE.read_text())
    assert published == view_json_schema(), "regenerate: python -m groundsql.analysis.dsl > docs/view-schema.json"
