"""Syntax retriever (after planning, only when asked for): the model decides whether the plan needs dialect help
and on which topics; the notes themselves come from groundsql, never from the model.

Until the shared knowledge package lands with its per-dialect notes, a small table here carries them; the body of
`dialect_notes` is then switched to the package.
"""

from __future__ import annotations

from pydantic import Field

from groundsql.context import Context
from groundsql.generation.recap.planner import Plan
from groundsql.generation.recap.replies import Reply, ask_json, short_list
from groundsql.prompts import dialect_name, render

TOPICS = ("dates", "text", "casting", "nulls", "limits", "aggregation")
MAX_TOPICS = 3  # a small model tends to ask for every topic; the prompt stays short

_COMMON = {
    "nulls": "Compare with IS NULL / IS NOT NULL, never = NULL; COALESCE(x, 0) replaces a missing value.",
    "aggregation": "Every selected column that is not aggregated must appear in GROUP BY; filter groups with HAVING.",
}

_NOTES: dict[str, dict[str, str]] = {
    "sqlite": {
        "dates": "Dates are text: strftime('%Y', col) gives the year, date('now') today, julianday(a) - julianday(b) "
                 "a difference in days.",
        "text": "Concatenate with ||; LIKE is case-insensitive for ASCII; substr(s, start, length), lower(), trim().",
        "casting": "CAST(x AS REAL) before dividing integers; CAST(x AS INTEGER) truncates.",
        "limits": "ORDER BY … LIMIT n [OFFSET m]; there is no TOP.",
    },
    "duckdb": {
        "dates": "EXTRACT(year FROM d) or year(d); date_diff('day', a, b); CURRENT_DATE; strptime(s, fmt) parses text.",
        "text": "Concatenate with ||; ILIKE is case-insensitive; string_agg(x, ', ') joins values.",
        "casting": "x::DOUBLE or CAST(x AS DOUBLE); integer division with / already yields a double.",
        "limits": "ORDER BY … LIMIT n [OFFSET m].",
    },
    "postgres": {
        "dates": "EXTRACT(YEAR FROM d); d1 - d2 gives days for dates; date_trunc('month', ts); CURRENT_DATE.",
        "text": "Concatenate with ||; ILIKE is case-insensitive; string_agg(x, ', ') joins values; quote mixed-case "
                "identifiers with double quotes.",
        "casting": "x::numeric or CAST(x AS numeric) before dividing integers; integer / integer truncates.",
        "limits": "ORDER BY … LIMIT n [OFFSET m]; FETCH FIRST n ROWS ONLY also works.",
    },
    "mysql": {
        "dates": "YEAR(d), MONTH(d); DATEDIFF(a, b) in days; CURDATE(); STR_TO_DATE(s, fmt) parses text.",
        "text": "CONCAT(a, b) joins strings (|| is OR); LIKE follows the column's collation; quote names with `.",
        "casting": "CAST(x AS DECIMAL(10,2)); / already returns a decimal, DIV truncates.",
        "limits": "ORDER BY … LIMIT n [OFFSET m] (or LIMIT m, n).",
    },
}


class SyntaxRequest(Reply):
    needed: bool
    topics: list[str] = Field(default_factory=list, json_schema_extra=short_list(len(TOPICS), 40))


def dialect_notes(dialect: str, topics: list[str]) -> dict[str, str]:
    """groundsql's notes on `topics` for `dialect` (topics without a note are left out)."""
    notes = _COMMON | _NOTES.get(dialect, {})
    return {topic: notes[topic] for topic in topics if topic in notes}


def retrieve_syntax(ctx: Context, plan: Plan, *, role: str = "generator") -> dict[str, str]:
    """Ask whether the plan needs syntax help and on which topics; the notes for those topics (empty: none)."""
    prompt = render("recap_syntax", dialect=dialect_name(ctx.db.dialect), question=ctx.question, plan=plan.text(),
                    topics=", ".join(TOPICS))
    request = ask_json(ctx, "recap:syntax", prompt, SyntaxRequest, role=role, max_tokens=80)
    if request is None or not request.needed:
        return {}
    wanted = [t.strip().lower() for t in request.topics if t.strip().lower() in TOPICS]
    return dialect_notes(ctx.db.dialect, list(dict.fromkeys(wanted))[:MAX_TOPICS])


def notes_text(notes: dict[str, str]) -> str:
    return "\n".join(f"- {topic}: {note}" for topic, note in notes.items())
