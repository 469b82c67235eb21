"""How an `Answer` shows itself in Jupyter: one self-contained HTML block (inline styles, no script, no network).

The question, the SQL (highlighted from sqlglot's tokens), the first rows with the row count, the automatic chart
(Vega-Lite drawn to SVG by vl-convert, offline), the confidence, the warnings and the SQL read back in words.
`show_answers(ipython)` registers it with a shell's display formatters; `import groundsql` does so in a running
IPython (a Jupyter kernel), and so does ``%load_ext groundsql``.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Tokenizer, TokenType

from groundsql.answer import Answer
from groundsql.charts import chart_for
from groundsql.db.result import json_safe
from groundsql.sql.explain import Explanation, explain_sql

log = logging.getLogger("groundsql")

#: Rows shown in the notebook's table (the DataFrame has them all).
DISPLAY_ROWS = 10
_BOX = ("font-family: system-ui, sans-serif; font-size: 13px; border: 1px solid #d0d7de; border-radius: 6px; "
        "padding: 10px 12px; max-width: 980px")
_PRE = ("background: #f6f8fa; border-radius: 4px; padding: 8px; white-space: pre-wrap; font-size: 12px; "
        "font-family: ui-monospace, monospace; margin: 6px 0")
_CELL = "border: 1px solid #d0d7de; padding: 2px 8px; text-align: left"
_COLOURS = {"keyword": "#cf222e", "string": "#0a3069", "number": "#0550ae", "comment": "#6e7781"}
_STRINGS = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BIT_STRING, TokenType.HEX_STRING,
            TokenType.BYTE_STRING, TokenType.RAW_STRING}


def show_answers(ipython: Any) -> None:
    """Have `ipython` draw every `Answer` as `answer_html` (its text form: `answer_text`)."""
    formatters = ipython.display_formatter.formatters
    formatters["text/html"].for_type(Answer, answer_html)
    formatters["text/plain"].for_type(Answer, lambda answer, printer, cycle: printer.text(answer_text(answer)))


def answer_html(answer: Answer) -> str:
    """The answer as one HTML block (see the module docstring)."""
    parts = [f"<div style='font-size: 14px; margin-bottom: 4px' data-part='question'><b>Q:</b> "
             f"{_e(answer.question)}</div>"]
    if answer.clarification:
        parts.append(f"<div data-part='clarification'><b>Clarification needed:</b> {_e(answer.clarification)}</div>")
    if answer.sql:
        parts.append(f"<pre style='{_PRE}' data-part='sql'><code>{highlight_sql(answer.sql, answer.dialect)}"
                     "</code></pre>")
    if answer.error:
        parts.append(f"<div style='color: #cf222e' data-part='error'><b>Error:</b> {_e(answer.error)}</div>")
    if answer.result is not None:
        parts.append(_table(answer))
    explanation = _explanation(answer)
    chart = _chart(answer, explanation)
    if chart:
        parts.append(chart)
    parts.append(_meta(answer))
    notes = [*answer.warnings, *answer.notes]
    if notes:
        items = "".join(f"<li>{_e(n)}</li>" for n in notes)
        parts.append(f"<ul style='color: #9a6700; margin: 4px 0' data-part='warnings'>{items}</ul>")
    if explanation is not None:
        sentences = " ".join(_e(s) for s in explanation.sentences())
        parts.append(f"<div style='color: #57606a' data-part='explanation'><b>What the SQL does:</b> {sentences}"
                     "</div>")
    return f"<div style='{_BOX}' data-groundsql='answer'>{''.join(parts)}</div>"


def answer_text(answer: Answer) -> str:
    """A short plain-text form (what a terminal or a notebook without HTML shows)."""
    lines = [f"Q: {answer.question}", f"SQL: {' '.join(answer.sql.split())}" if answer.sql else "SQL: (none)"]
    if answer.error:
        lines.append(f"error: {answer.error}")
    if answer.result is not None:
        more = "+" if answer.result.truncated else ""
        lines.append(f"{answer.result.row_count}{more} row(s): {', '.join(answer.result.columns)}")
    if answer.confidence is not None:
        lines.append(f"confidence {answer.confidence:.2f}")
    return "\n".join(lines)


def highlight_sql(sql: str, dialect: str | None = None) -> str:
    """`sql` as escaped HTML with keywords, strings, numbers and comments coloured (inline styles)."""
    try:
        tokens = Tokenizer(dialect=dialect).tokenize(sql) if dialect else Tokenizer().tokenize(sql)
    except (SqlglotError, ValueError):
        return _e(sql)
    out, position = [], 0
    for token in tokens:
        start, end = token.start, token.end + 1
        if start < position or end > len(sql):
            continue
        out.append(_e(sql[position:start]))
        text = sql[start:end]
        out.append(_span(text, _token_class(token.token_type, text)))
        position = end
    out.append(_e(sql[position:]))
    return "".join(out)


def _token_class(kind: TokenType, text: str) -> str | None:
    if kind in _STRINGS or text[:1] == "'":
        return "string"
    if kind == TokenType.NUMBER:
        return "number"
    if kind in (TokenType.VAR, TokenType.IDENTIFIER) or not text[:1].isalpha():
        return None
    return "keyword"


def _span(text: str, kind: str | None) -> str:
    if kind is None:
        return _e(text)
    weight = "; font-weight: 600" if kind == "keyword" else ""
    return f"<span style='color: {_COLOURS[kind]}{weight}' class='sql-{kind}'>{_e(text)}</span>"


def _table(answer: Answer) -> str:
    result = answer.result
    assert result is not None
    head = "".join(f"<th style='{_CELL}; background: #f6f8fa'>{_e(c)}</th>" for c in result.columns)
    rows = "".join("<tr>" + "".join(f"<td style='{_CELL}'>{_cell(v)}</td>" for v in row) + "</tr>"
                   for row in result.rows[:DISPLAY_ROWS])
    shown = min(DISPLAY_ROWS, result.row_count)
    count = f"{result.row_count} row{'s' if result.row_count != 1 else ''}"
    if result.truncated:
        count += " (cut at the row cap)"
    if shown < result.row_count:
        count = f"first {shown} of {count}"
    return (f"<table style='border-collapse: collapse; margin: 6px 0' data-part='table'><thead><tr>{head}</tr>"
            f"</thead><tbody>{rows}</tbody></table><div style='color: #57606a' data-part='row-count'>{count}</div>")


def _cell(value: Any) -> str:
    if value is None:
        return "<i style='color: #8c959f'>NULL</i>"
    return _e(str(json_safe(value)))


def _explanation(answer: Answer) -> Explanation | None:
    if not answer.sql or answer.result_source != "sql":
        return None
    try:
        return explain_sql(answer.sql, answer.dialect or "sqlite")
    except Exception:  # noqa: BLE001 - the reading is extra; the answer shows without it
        log.debug("no explanation for %s", answer.sql, exc_info=True)
        return None


def _chart(answer: Answer, explanation: Explanation | None) -> str:
    spec = chart_for(answer.result, explanation=explanation)
    if spec is None:
        return ""
    try:
        import vl_convert
    except ImportError:
        return ("<div style='color: #57606a' data-part='chart-missing'>(a chart is available: pip install "
                "'groundsql[server]' to draw it)</div>")
    try:
        svg = vl_convert.vegalite_to_svg(spec)
    except Exception as exc:  # noqa: BLE001 - a chart that cannot be drawn leaves the rest of the answer
        log.warning("the chart could not be drawn: %s", exc)
        return ""
    return f"<div style='margin: 6px 0' data-part='chart'>{svg}</div>"


def _meta(answer: Answer) -> str:
    bits = []
    if answer.confidence is not None:
        bits.append(f"confidence <b data-part='confidence'>{answer.confidence:.2f}</b>")
    bits.append(f"{_e(answer.preset)} · {_e(answer.model)} · {answer.elapsed_s:.1f} s")
    if answer.partial:
        bits.append("partial answer (the run stopped early)")
    return f"<div style='color: #57606a; margin-top: 4px' data-part='meta'>{' · '.join(bits)}</div>"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
