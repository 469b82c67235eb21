"""The view DSL (ProSPy §3.3): a view is typed data — source, joins, dimensions, metrics, conditions — never SQL.

Expressions inside a view (a column, `price * quantity`, `lower(name)`) are short strings that the compiler
parses with sqlglot and accepts only as expressions over known columns and allowed functions.
`view_json_schema()` is the published JSON schema, for models and for people writing views by hand.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Scalar = str | int | float | bool | None

COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
OPERATORS = COMPARISONS + ("in", "not_in", "between", "like", "not_like", "ilike", "is_null", "is_not_null",
                           "and", "or", "not")
AGGREGATES = ("count", "count_distinct", "sum", "avg", "min", "max")
JOIN_TYPES = ("inner", "left", "right", "full")

_OPERATOR_ALIASES = {"==": "=", "<>": "!=", "eq": "=", "ne": "!=", "neq": "!=", "lt": "<", "le": "<=", "lte": "<=",
                     "gt": ">", "ge": ">=", "gte": ">=", "not in": "not_in", "nin": "not_in", "not like": "not_like",
                     "is null": "is_null", "isnull": "is_null", "is not null": "is_not_null", "notnull": "is_not_null",
                     "not_null": "is_not_null", "all": "and", "any": "or", "&&": "and", "||": "or"}
_AGGREGATE_ALIASES = {"average": "avg", "mean": "avg", "total": "sum", "distinct_count": "count_distinct",
                      "count distinct": "count_distinct", "countdistinct": "count_distinct", "minimum": "min",
                      "maximum": "max"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(_Strict):
    """One predicate. Comparisons, IN, BETWEEN, LIKE and NULL tests read `column` (a column or expression);
    `and`/`or` combine `conditions`, `not` negates its single entry. The right-hand side is `value` (a literal,
    a list for IN, a [low, high] pair for BETWEEN) or, instead, the column `view_column` of the earlier view `view`
    (a single value for comparisons, all its values for IN)."""

    op: Literal[OPERATORS] = Field(description="the operator")  # type: ignore[valid-type]
    column: str | None = Field(None, description="left side: a column (table.column) or an expression")
    value: Scalar | list[Scalar] = Field(None, description="right side: a literal, a list for in, [low, high] for between")
    view: str | None = Field(None, description="compare against a value of this earlier view instead of `value`")
    view_column: str | None = Field(None, description="the column of `view` to compare against")
    conditions: list[Condition] = Field(default_factory=list, description="operands of and/or/not")

    @field_validator("op", mode="before")
    @classmethod
    def _normalise_op(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.strip().lower()
            return _OPERATOR_ALIASES.get(lowered, lowered.replace(" ", "_"))
        return value

    @model_validator(mode="after")
    def _check_shape(self) -> Condition:
        if self.op in ("and", "or", "not"):
            if not self.conditions:
                raise ValueError(f"'{self.op}' needs a list of conditions")
            if self.op == "not" and len(self.conditions) != 1:
                raise ValueError("'not' takes exactly one condition")
            return self
        if not self.column:
            raise ValueError(f"'{self.op}' needs a column")
        if (self.view is None) != (self.view_column is None):
            raise ValueError("give both view and view_column, or neither")
        if self.view is not None:
            if self.op not in COMPARISONS + ("in", "not_in"):
                raise ValueError(f"'{self.op}' cannot compare against a view; use a comparison or in")
            return self
        if self.op in ("in", "not_in") and not isinstance(self.value, list):
            raise ValueError(f"'{self.op}' needs a list value")
        if self.op == "between" and not (isinstance(self.value, list) and len(self.value) == 2):
            raise ValueError("'between' needs value [low, high]")
        if self.op in ("like", "not_like", "ilike") and not isinstance(self.value, str):
            raise ValueError(f"'{self.op}' needs a text pattern")
        if self.op in COMPARISONS and (self.value is None or isinstance(self.value, list)):
            raise ValueError(f"'{self.op}' needs a single value (use is_null for NULL)")
        return self


class JoinKey(_Strict):
    left: str = Field(description="a column already in the view (table.column)")
    right: str = Field(description="the matching column of the joined table (table.column)")


class Join(_Strict):
    table: str = Field(description="a database table or an earlier view")
    alias: str | None = Field(None, description="a name for this table inside the view (for self-joins)")
    type: Literal[JOIN_TYPES] = Field("inner", description="join type")  # type: ignore[valid-type]
    on: list[JoinKey] = Field(min_length=1, description="key pairs that must be equal")

    @field_validator("type", mode="before")
    @classmethod
    def _normalise_type(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.strip().lower().replace(" join", "").replace(" outer", "").replace("_outer", "")
            return {"full_outer": "full", "outer": "full"}.get(lowered, lowered)
        return value

    @field_validator("on", mode="before")
    @classmethod
    def _pairs(cls, value: Any) -> Any:
        """Accept [["a.x", "b.y"]], {"a.x": "b.y"} and a single {"left":…, "right":…} as well."""
        if isinstance(value, dict) and set(value) != {"left", "right"}:
            return [{"left": k, "right": v} for k, v in value.items()]
        if isinstance(value, dict):
            return [value]
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
            return [{"left": value[0], "right": value[1]}]
        if isinstance(value, list):
            return [{"left": v[0], "right": v[1]} if isinstance(v, (list, tuple)) and len(v) == 2 else v
                    for v in value]
        return value


class Dimension(_Strict):
    expr: str = Field(description="a column (table.column) or an expression over columns")
    alias: str | None = Field(None, description="output column name")


class Metric(_Strict):
    agg: Literal[AGGREGATES] = Field(description="aggregate function")  # type: ignore[valid-type]
    expr: str = Field("*", description="the column or expression aggregated ('*' only for count)")
    alias: str = Field(description="output column name")
    filter: Condition | None = Field(None, description="aggregate only the rows that satisfy this condition")

    @field_validator("agg", mode="before")
    @classmethod
    def _normalise_agg(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.strip().lower()
            return _AGGREGATE_ALIASES.get(lowered, lowered)
        return value


class Order(_Strict):
    expr: str = Field(description="an output column name, a column or an expression")
    desc: bool = Field(False, description="descending order")


class View(_Strict):
    """One intermediate view. With metrics it groups by its dimensions; without, it lists rows."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,62}$", description="a new name (letters, digits, _)")
    source: str = Field(description="the table or earlier view the rows come from")
    source_alias: str | None = Field(None, description="a name for the source inside the view")
    joins: list[Join] = Field(default_factory=list)
    dimensions: list[Dimension] = Field(default_factory=list, description="columns to return and group by")
    metrics: list[Metric] = Field(default_factory=list, description="aggregates computed per group")
    conditions: list[Condition] = Field(default_factory=list, description="row filters, all must hold")
    having: list[Condition] = Field(default_factory=list, description="filters on metrics (by alias), all must hold")
    order: list[Order] = Field(default_factory=list)
    limit: int | None = Field(None, ge=1, description="keep at most this many rows")
    distinct: bool = Field(False, description="drop duplicate rows")

    @field_validator("dimensions", mode="before")
    @classmethod
    def _dimension_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"expr": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("order", mode="before")
    @classmethod
    def _order_strings(cls, value: Any) -> Any:
        if isinstance(value, (str, dict)):
            value = [value]
        if isinstance(value, list):
            return [_order_item(v) for v in value]
        return value

    @field_validator("conditions", "having", mode="before")
    @classmethod
    def _single_condition(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value


def _order_item(value: Any) -> Any:
    """'revenue DESC' and {"expr": …, "direction": "desc"} as well as the canonical form."""
    if isinstance(value, str):
        words = value.rsplit(None, 1)
        if len(words) == 2 and words[1].lower() in ("asc", "desc"):
            return {"expr": words[0], "desc": words[1].lower() == "desc"}
        return {"expr": value}
    if isinstance(value, dict) and "direction" in value:
        rest = {k: v for k, v in value.items() if k != "direction"}
        return {**rest, "desc": str(value["direction"]).lower().startswith("desc")}
    return value


class ViewBatch(_Strict):
    """What one fetching round returns: new views, and whether the views so far are enough."""

    thought: str = Field("", description="one or two sentences: what is still missing and how these views get it")
    views: list[View] = Field(default_factory=list)
    done: bool = Field(False, description="true when the views so far are enough to answer")
    answer_view: str | None = Field(None, description="a view that is already the final answer, if one is")


def view_json_schema() -> dict[str, Any]:
    """The JSON schema of one view definition."""
    return View.model_json_schema()


def batch_json_schema(*, require_view: bool = False) -> dict[str, Any]:
    """The JSON schema of one fetching round's reply; with `require_view`, at least one view."""
    schema = ViewBatch.model_json_schema()
    if require_view:
        schema["properties"]["views"]["minItems"] = 1
        schema["required"] = sorted(set(schema.get("required", [])) | {"views"})
    return schema


def schema_text() -> str:
    return json.dumps(view_json_schema(), indent=2)


if __name__ == "__main__":  # python -m groundsql.analysis.dsl > docs/view-schema.json
    print(schema_text())
