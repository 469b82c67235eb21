"""Question-shape checks: exact comparisons of a query's shape with what the question's words ask for.

Each check is one small function over a `QueryView` (the query's qualified syntax tree, its result, the schema
and catalog) and the question's reading (`selection.question.read_question`); none calls a model. A finding is a
fact for the reader (`Answer.warnings`), for a reviewing agent (critic, validator, execution feedback) and for the
confidence; where the fix is exact, the finding carries `rewrite`, the query with the problem removed (run and
judged by `generation.shape_repair`, never applied by the check itself).

Checks (`SHAPE_CHECKS`):
``count_asked``   'how many …' (no 'each') but the query lists rows instead of counting them (rewrite: the count);
``list_asked``    a list is asked ('which', 'list', 'what are') but the query returns one count;
``unasked_limit`` a LIMIT where the question names no number and no superlative, or another number than it names
                  (rewrite: without the LIMIT, or with the named number);
``superlative``   'most', 'highest', '-est' but the query neither sorts nor takes a MIN/MAX;
``rank_column``   an aggregate shown only because it ranks the rows ('which city has the most flights' answered
                  with the city and its count; rewrite: the ranking kept, the column dropped);
``star``          SELECT * where the question names what to show;
``missing_column`` a column the question names (by its full name) that the query never uses;
``entity_column`` 'which genre …' answered with another table's column while the genre table is joined (lineage);
``both_values``   one column required to equal two different values at once (always empty; rewrite: INTERSECT);
``question_value`` the question names a stored value, the query filters on a literal the question never says;
``distinct_asked`` 'different' / 'distinct' asked, and the result repeats rows (rewrite: SELECT DISTINCT);
``extra_join``    an inner join that shows, filters, groups and orders by nothing but changes the rows (rewrite:
                  the query without it);
``ungrouped``     a column shown beside GROUP BY that is neither grouped nor aggregated and that the grouped columns
                  do not determine (SQLite shows an arbitrary row's value; other engines refuse it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.catalog.schema import Schema
from groundsql.context import Context
from groundsql.selection.query_view import Finding, QueryView, inner_joins, prepare, short
from groundsql.selection.question import QuestionShape, read_question, singular
from groundsql.selection.shapes import anti_join, both_in, entity_key, join_edge, units, value_grounding
from groundsql.sql.repairs.grouping import undetermined_columns

log = logging.getLogger("groundsql")

#: Generic column words that name too many things for a mention in the question to mean one column.
_GENERIC = frozenset({"id", "ids", "name", "names", "code", "type", "date", "year", "time", "number", "no", "num",
                      "key", "value", "status", "description", "title", "kind", "category", "flag", "count",
                      "total", "amount", "other", "details", "info", "data", "text", "note"})
#: Words that open or steer a question rather than name a thing ('show', 'list'): never a table mention.
_VERBS = frozenset({"show", "list", "find", "give", "return", "display", "order", "rank", "sort", "count", "name",
                    "tell", "compute", "report"})
_EVERYTHING = re.compile(r"\b(all|every|full|complete)\s+(the\s+)?(information|info|details|data|columns|"
                         r"attributes|fields|records)\b|\beverything\b|\ball about\b", re.IGNORECASE)
_ASKS_NUMBER_TOO = re.compile(r"\b(and|with|along with|as well as|together with|including|plus)\s+(the\s+|its\s+|"
                              r"their\s+)?(number|count|total|how many|average|sum|amount|quantity|frequency)\b",
                              re.IGNORECASE)


def shape_findings(ctx: Context, candidate: Candidate, *, checks: tuple[str, ...] | None = None) -> list[Finding]:
    """The question-shape findings for a candidate that ran (empty when its shape fits the question)."""
    if not candidate.ok or not candidate.sql:
        return []
    query = prepare(ctx, candidate)
    if query is None:
        return []
    from groundsql.selection.checks import switched_on

    findings: list[Finding] = []
    for name in switched_on(ctx, checks or SHAPE_CHECKS):
        try:
            findings.extend(SHAPE_FUNCTIONS[name](query))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:  # a check that cannot read a query skips
            log.debug("shape check %s skipped: %s", name, exc)
    if findings:
        ctx.trace.note("shape", sql=candidate.sql, findings=[f.check for f in findings])
    return findings


# ---- helpers ------------------------------------------------------------------------------------------------


def _shape(q: QueryView) -> QuestionShape:
    return read_question(q.ctx.question)


def _aggregates(node: exp.Expression) -> bool:
    return node.find(exp.AggFunc) is not None


def _limit_value(select: exp.Select) -> int | None:
    limit = select.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if isinstance(count, exp.Literal) and count.is_int:
        return int(count.this)
    return None


def _sql(q: QueryView, tree: exp.Expression) -> str:
    return tree.sql(dialect=q.ctx.db.dialect)


def name_tokens(name: str) -> list[str]:
    """A schema name as lower-case singular words: 'MediaTypeId' → ['media', 'type', 'id'], 'birth_date' →
    ['birth', 'date']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [singular(w) for w in re.findall(r"[a-z0-9]+", spaced.lower())]


def _content_tokens(name: str) -> list[str]:
    """`name_tokens` without a boolean prefix ('IsOfficial' → ['official'], 'has_children' → ['children'])."""
    tokens = name_tokens(name)
    return tokens[1:] if len(tokens) > 1 and tokens[0] in ("is", "has", "was", "are") else tokens


def _columns_used(tree: exp.Expression) -> set[str]:
    return {c.name.lower() for c in tree.find_all(exp.Column)}


def _tables_read(tree: exp.Expression, schema: Schema) -> list:
    tables = []
    for node in tree.find_all(exp.Table):
        found = schema.table(node.name)
        if found is not None and found not in tables:
            tables.append(found)
    return tables


# ---- the checks ---------------------------------------------------------------------------------------------


def check_count_asked(q: QueryView) -> list[Finding]:
    """'How many …' with no grouping words, but the query returns rows of values instead of a count."""
    shape, select = _shape(q), q.select
    if not (shape.counts and shape.one_number) or any(_aggregates(e) for e in select.expressions):
        return []
    if select.args.get("having") is not None or select.find(exp.Star) and not select.args.get("distinct"):
        rewrite = None
    else:
        rewrite = _count_of(select)
    rows = q.candidate.result.row_count
    return [Finding(
        "count_asked",
        f"the question asks how many, but the query lists {rows} row(s) instead of counting them",
        "The question asks for a number (how many), but the query returns the rows themselves; count them "
        "with COUNT(…) (COUNT(DISTINCT …) for different values) in one row.",
        rewrite=_sql(q, rewrite) if rewrite is not None else "")]


def _count_of(select: exp.Select) -> exp.Select | None:
    """The count of what `select` lists: COUNT(DISTINCT x) for a distinct (or grouped) single column, else
    COUNT(*) over the same rows."""
    counted = select.copy()
    group = counted.args.get("group")
    distinct = counted.args.get("distinct") is not None
    outputs = [e.unalias() for e in counted.expressions]
    for key in ("order", "limit", "offset", "distinct", "group"):
        counted.set(key, None)
    if distinct or group is not None:
        keys = outputs if distinct else list(group.expressions)
        if len(keys) != 1 or isinstance(keys[0], exp.Star):
            return None
        counted.set("expressions", [exp.Count(this=exp.Distinct(expressions=[keys[0].copy()]))])
    else:
        counted.set("expressions", [exp.Count(this=exp.Star())])
    return counted


def check_list_asked(q: QueryView) -> list[Finding]:
    """A list is asked ('which …', 'list …', 'what are …') but the query returns a single COUNT."""
    shape, select = _shape(q), q.select
    if shape.counts or shape.one_number or shape.grouped or select.args.get("group") is not None:
        return []
    opener = re.match(r"^\s*(list|show|give|which|what are|who are|name the|find the names?)\b", shape.text, re.I)
    outputs = select.expressions
    if not opener or len(outputs) != 1 or not isinstance(outputs[0].unalias(), exp.Count):
        return []
    return [Finding(
        "list_asked",
        "the question asks for a list, but the query returns one count",
        "The question asks which items (a list of rows), but the query only counts them; select the items' "
        "columns instead of COUNT(…).")]


def check_unasked_limit(q: QueryView) -> list[Finding]:
    """LIMIT with no number or superlative in the question, or a LIMIT other than the number it names."""
    shape, select = _shape(q), q.select
    value = _limit_value(select)
    if value is None or select.args.get("offset") is not None:
        return []
    wanted = shape.row_count
    if wanted is not None and wanted != value:
        rewrite = select.copy()
        rewrite.set("limit", exp.Limit(expression=exp.Literal.number(wanted)))
        return [Finding(
            "unasked_limit", f"the question asks for {wanted} rows but the query keeps {value}",
            f"The question names {wanted} rows; use LIMIT {wanted}, not LIMIT {value}.", rewrite=_sql(q, rewrite))]
    if shape.grouped and wanted is None and value > 1 and q.candidate.result.row_count >= value:
        return [Finding(
            "unasked_limit",
            f"LIMIT {value} keeps {value} rows overall, but the question asks for the top row of each group",
            f"The question asks for the most / least per group ('each'), which one LIMIT {value} over all rows "
            f"does not give; pick the top row within each group (compare with the group's MAX/MIN).")]
    if shape.restricts_rows or q.candidate.result.row_count < value:
        return []
    rewrite = select.copy()
    rewrite.set("limit", None)
    return [Finding(
        "unasked_limit",
        f"LIMIT {value} cuts the result, but the question names no number of rows and no superlative",
        f"The question does not ask for the top {value} (no number, no 'most'/'highest'); drop the LIMIT so every "
        f"matching row is returned.", rewrite=_sql(q, rewrite))]


def check_superlative(q: QueryView) -> list[Finding]:
    """A superlative in the question, and the query neither sorts, limits, nor takes a MIN/MAX anywhere."""
    shape, tree = _shape(q), q.tree
    if not shape.superlative or shape.one_number:
        return []
    if any(tree.find_all(exp.Order, exp.Limit, exp.Max, exp.Min, exp.Having)):
        return []
    return [Finding(
        "superlative",
        "the question asks for the most / least of something, but the query neither sorts nor takes a MAX or MIN",
        "The question asks for an extreme (most, highest, -est): order by the measure and keep the top row(s), or "
        "compare with MAX/MIN in a subquery.")]


def check_rank_column(q: QueryView) -> list[Finding]:
    """'Which X has the most Y': an aggregate output column that only ranks the rows, beside the asked columns."""
    shape, select = _shape(q), q.select
    order = select.args.get("order")
    if (not shape.superlative or shape.counts or shape.one_number or order is None
            or _ASKS_NUMBER_TOO.search(shape.text) or re.search(r"\b(how|what)\s+(many|much)\b", shape.text, re.I)):
        return []
    outputs = select.expressions
    ranked = {o.this.sql() for o in order.expressions}
    dropped = []
    for output in outputs:
        inner = output.unalias()
        if not _aggregates(inner):
            continue
        if inner.sql() in ranked or (isinstance(output, exp.Alias) and output.alias in ranked):
            dropped.append(output)
    kept = [o for o in outputs if o not in dropped]
    if not dropped or not kept or any(_aggregates(o) for o in kept):
        return []
    rewrite = select.copy()
    rewrite.set("expressions", [o.copy() for o in kept])
    rewrite.set("order", exp.Order(expressions=[_ordered_by_expression(o, outputs) for o in order.expressions]))
    names = ", ".join(o.sql(dialect=q.ctx.db.dialect) for o in dropped)
    return [Finding(
        "rank_column",
        f"{names} is shown although the question only uses it to rank the rows",
        f"The question asks which item ranks first, not for the measure itself; keep ordering by {names} but do "
        f"not select it.", rewrite=_sql(q, rewrite))]


def _ordered_by_expression(ordered: exp.Ordered, outputs: list[exp.Expression]) -> exp.Ordered:
    """`ordered` with an output alias replaced by the aliased expression (the alias leaves the SELECT list)."""
    copy = ordered.copy()
    key = copy.this
    if isinstance(key, exp.Column) and not key.table:
        for output in outputs:
            if isinstance(output, exp.Alias) and output.alias == key.name:
                copy.set("this", output.this.copy())
    return copy


def check_star(q: QueryView) -> list[Finding]:
    """SELECT * while the question names what to show (not 'all the information')."""
    shape = _shape(q)
    try:  # the qualified tree has its stars expanded: read the query as written
        written = sqlglot.parse_one(q.candidate.sql, read=q.ctx.db.dialect)
    except SqlglotError:
        return []
    if not isinstance(written, exp.Select) or _EVERYTHING.search(shape.text) or not any(
            isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
            for e in written.expressions):
        return []
    return [Finding(
        "star", "SELECT * returns every column, but the question names what to show",
        "Select only the columns the question asks for, in its order, instead of *.")]


def check_missing_column(q: QueryView) -> list[Finding]:
    """A column of a table the query reads, named in the question by its full name, that the query never uses."""
    shape = _shape(q)
    schema = q.ctx.schema
    used = _columns_used(q.tree)
    owners: dict[str, int] = {}
    for table in schema.tables:
        for column in table.columns:
            owners[column.name.lower()] = owners.get(column.name.lower(), 0) + 1
    table_words = " ".join(t.name.lower() for t in schema.tables)
    missing = []
    for table in _tables_read(q.tree, schema):
        for column in table.columns:
            tokens = _content_tokens(column.name)
            if (not tokens or column.name.lower() in used or any(t.isdigit() for t in tokens)
                    or (len(tokens) == 1 and tokens[0] in table_words)):  # 'orchestra', 'language': the entity
                continue
            specific = len(tokens) >= 2 and not set(tokens) <= _GENERIC
            rare = len(tokens) == 1 and tokens[0] not in _GENERIC and len(tokens[0]) >= 4 and \
                owners.get(column.name.lower(), 0) == 1
            named = _phrase_in(tokens, shape.text) or (len(tokens) >= 3 and any(
                _phrase_in(tokens[i:i + 2], shape.text) for i in range(len(tokens) - 1)))
            if (specific or rare) and all(t in shape.words for t in tokens) and named \
                    and not _named_by_other(column.name, tokens, q, used):
                missing.append(f"{table.name}.{column.name}")
    missing += _unread_named_columns(q, shape, used)
    if not missing:
        return []
    names = ", ".join(missing[:3])
    return [Finding(
        "missing_column",
        f"the question names {names}, which the query does not use",
        f"The question mentions {names}; the query never uses it. Show or filter on it if the question asks "
        f"for it.")]


def _unread_named_columns(q: QueryView, shape: QuestionShape, used: set[str]) -> list[str]:
    """Columns of tables the query does not read that the question names by their full name of two or more
    specific words ('source airport' for flights.SourceAirport), where no column the query reads carries those
    words."""
    read = {table.name.lower() for table in _tables_read(q.tree, q.ctx.schema)}
    readable = [name_tokens(column.name) for table in q.ctx.schema.tables if table.name.lower() in read
                for column in table.columns]
    found = []
    for table in q.ctx.schema.tables:
        if table.name.lower() in read:
            continue
        for column in table.columns:
            tokens = _content_tokens(column.name)
            if (len(tokens) < 2 or set(tokens) <= _GENERIC or any(t.isdigit() for t in tokens)
                    or column.name.lower() in used or tokens in readable or not _phrase_in(tokens, shape.text)
                    or _named_by_other(column.name, tokens, q, used)):
                continue
            found.append(f"{table.name}.{column.name}")
    return found


def _phrase_in(tokens: list[str], text: str) -> bool:
    """Whether the tokens appear next to each other (in order, plurals allowed) in the question text."""
    words = [singular(w) for w in re.findall(r"[a-z0-9]+", text.lower())]
    n = len(tokens)
    return any(words[i:i + n] == tokens for i in range(len(words) - n + 1))


def _named_by_other(name: str, tokens: list[str], q: QueryView, used: set[str]) -> bool:
    """Whether a used column carries the same words (the question's mention is then already served)."""
    return any(name_tokens(other) == tokens for other in used if other != name.lower())


_RANK_BY_COUNT = re.compile(r"\b(most|fewest|least|largest|greatest|highest|smallest|lowest|biggest)\s+"
                            r"(number|count|amount)\s+of\b", re.IGNORECASE)
_EXPLICIT_AGGREGATES = {"average": exp.Avg, "mean": exp.Avg, "maximum": exp.Max, "minimum": exp.Min}
_COMPARATIVE = re.compile(r"\b(more|greater|larger|bigger|higher|older|younger|less|fewer|smaller|lower|"
                          r"longer|shorter|cheaper|above|below|over|under|exceeds?|at least|at most)\b",
                          re.IGNORECASE)


def check_count_rank(q: QueryView) -> list[Finding]:
    """'The largest number of …': the rows are ranked by a count, but the query counts nothing."""
    if not _RANK_BY_COUNT.search(_shape(q).text) or q.tree.find(exp.Count):
        return []
    return [Finding(
        "count_rank",
        "the question ranks by how many there are, but the query counts nothing",
        "The question ranks by a number of items ('the largest number of …'): group and order by COUNT(…) of "
        "those items.")]


def check_aggregate_asked(q: QueryView) -> list[Finding]:
    """'average', 'maximum', 'minimum' asked, and the query neither computes it nor sorts to find it."""
    words = _shape(q).words
    missing = []
    for word, function in _EXPLICIT_AGGREGATES.items():
        if word not in words or q.tree.find(function):
            continue
        if function in (exp.Max, exp.Min) and q.tree.find(exp.Order):
            continue
        missing.append(word)
    if not missing:
        return []
    names = " and ".join(missing)
    return [Finding(
        "aggregate_asked", f"the question asks for the {names}, which the query does not compute",
        f"The question asks for the {names}; compute it with the matching aggregate (AVG, MAX, MIN).")]


def check_comparison_asked(q: QueryView) -> list[Finding]:
    """'greater than', 'more than', 'older than' asked, and the query compares nothing with < or >."""
    shape = _shape(q)
    if not _COMPARATIVE.search(_NOT_COMPARING.sub(" ", shape.text)) or not re.search(r"\bthan\b|\bat (least|most)\b|"
                                                                                 r"\babove\b|\bbelow\b|\bexceed",
                                                                                 shape.text, re.I):
        return []
    if any(q.tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)) or shape.superlative:
        return []
    return [Finding(
        "comparison_asked", "the question compares (more / greater / less than), but the query has no < or >",
        "The question asks for a comparison (more than, greater than, less than): filter with >, <, >= or <=.")]


#: Words that put a bound on a value: the value must lie below the number that follows, or above it.
_BELOW = r"before|earlier than|less than|fewer than|under|below|younger than|smaller than|lower than|shorter than|" \
         r"cheaper than|at most|no more than"
_ABOVE = r"after|later than|more than|greater than|over|above|older than|bigger than|larger than|higher than|" \
         r"longer than|at least|exceeding|exceeds"
_BOUND = re.compile(rf"\b(?:(?P<below>{_BELOW})|(?P<above>{_ABOVE}))\s+(?:the\s+year\s+|year\s+|\$)?"
                    r"(?P<number>\d[\d,]*(?:\.\d+)?)\b", re.IGNORECASE)


def _question_bounds(text: str) -> dict[float, str]:
    """Numbers the question bounds, each with its side: 'below' for 'before 1945', 'above' for 'more than 20'."""
    bounds: dict[float, str] = {}
    for match in _BOUND.finditer(text):
        before = re.findall(r"[a-z']+", text[:match.start()].lower())[-3:]
        if any(word in ("not", "never", "no") or word.endswith("n't") for word in before):
            continue  # 'do not last more than': the bound is negated
        side = "below" if match.group("below") else "above"
        try:
            bounds.setdefault(float(match.group("number").replace(",", "")), side)
        except ValueError:
            continue
    return bounds


def _query_bounds(tree: exp.Expression) -> dict[float, set[str]]:
    """Numbers the query compares a value with, each with the side(s) it keeps the value on."""
    sides: dict[float, set[str]] = {}

    def number(node: exp.Expression) -> float | None:
        inner = node.this if isinstance(node, exp.Paren) else node
        if isinstance(inner, exp.Literal) and not inner.is_string:
            try:
                return float(inner.this)
            except ValueError:
                return None
        return None

    for comparison in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        above = isinstance(comparison, (exp.GT, exp.GTE))
        right, left = number(comparison.expression), number(comparison.this)
        if right is not None:
            sides.setdefault(right, set()).add("above" if above else "below")
        elif left is not None:
            sides.setdefault(left, set()).add("below" if above else "above")
    for between in tree.find_all(exp.Between):
        low, high = number(between.args["low"]), number(between.args["high"])
        if low is not None:
            sides.setdefault(low, set()).add("above")
        if high is not None:
            sides.setdefault(high, set()).add("below")
    return sides


def check_comparison_direction(q: QueryView) -> list[Finding]:
    """'Before 1945', 'more than 20': the query compares with that number, but only on the other side of it
    (BETWEEN 1945 AND … for 'before 1945', `< 20` for 'more than 20')."""
    asked = _question_bounds(_shape(q).text)
    if not asked:
        return []
    written = _query_bounds(q.tree)
    wrong = [(value, side) for value, side in asked.items() if value in written and side not in written[value]]
    if not wrong:
        return []
    value, side = wrong[0]
    shown = f"{value:g}"
    return [Finding(
        "comparison_direction",
        f"the question wants values {side} {shown}, but the query keeps the values on the other side of it",
        f"The question bounds the value {side} {shown}; compare with {'<' if side == 'below' else '>'} "
        f"{shown} (a BETWEEN keeps the values between its two bounds, both sides included).")]


_NOT_COMPARING = re.compile(r"\bmore or less\b|\bno more than\b|\bother than\b|\brather than\b", re.IGNORECASE)


def check_unread_table(q: QueryView) -> list[Finding]:
    """A table the question names by its own one-word name ('documents', 'orchestras') that the query never
    reads, while no column of the tables it reads carries that word."""
    shape, schema = _shape(q), q.ctx.schema
    tables = _tables_read(q.tree, schema)
    read = {t.name.lower() for t in tables}
    column_words = {w for t in tables for c in t.columns for w in name_tokens(c.name)}
    referenced = {fk.ref_table.lower() for t in tables for fk in t.foreign_keys}  # a key to it serves the mention
    unread = []
    for table in schema.tables:
        tokens = name_tokens(table.name)
        if (len(tokens) != 1 or table.name.lower() in read | referenced or tokens[0] in _GENERIC | _VERBS
                or len(tokens[0]) < 4 or tokens[0] in column_words or tokens[0] not in shape.words):
            continue
        unread.append(table.name)
    if not unread:
        return []
    names = ", ".join(unread[:3])
    return [Finding(
        "unread_table", f"the question names {names}, which the query never reads",
        f"The question is about {names}, but the query reads no such table; join it (or filter through it) if the "
        f"question's condition is about it.")]


def check_entity_column(q: QueryView) -> list[Finding]:
    """'Which genre …' answered with another table's column while the genre table itself is in the query."""
    shape, select = _shape(q), q.select
    if shape.entity is None or shape.one_number:
        return []
    entity = shape.entity.split()
    tables = {alias: table for alias, table in q.sources.items()}
    target = [a for a, t in tables.items() if name_tokens(t.name) == entity
              or name_tokens(t.name) == entity[-len(name_tokens(t.name)):]]
    if len(target) != 1:
        return []
    alias = target[0]
    shown = [e.unalias() for e in select.expressions if not _aggregates(e)]
    columns = [c for c in shown if isinstance(c, exp.Column)]
    if not columns or any(c.table == alias for c in columns):
        return []
    others = sorted({f"{tables[c.table].name}.{c.name}" for c in columns if c.table in tables})
    if not others or any(name_tokens(c.name)[:len(entity)] == entity for c in columns):
        return []
    table = tables[alias].name
    return [Finding(
        "entity_column",
        f"the question asks which {shape.entity}, but the answer shows {', '.join(others)}, not a column of "
        f"{table}",
        f"The question asks for {shape.entity} items: show {table}'s own column(s) (its name or id), not "
        f"{', '.join(others)}.")]


def check_both_values(q: QueryView) -> list[Finding]:
    """`c = 'a' AND c = 'b'` on one column: no row can match. The question most often means 'items that have a
    row with a and a row with b' (rewrite: the two conditions as an INTERSECT of the shown columns)."""
    select = q.select
    where = select.args.get("where")
    if where is None:
        return []
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    by_column: dict[str, list[exp.EQ]] = {}
    for node in conjuncts:
        if isinstance(node, exp.EQ) and isinstance(node.left, exp.Column) and isinstance(node.right, exp.Literal):
            by_column.setdefault(node.left.sql(), []).append(node)
    for column, equalities in by_column.items():
        values = {e.right.this for e in equalities}
        if len(equalities) != 2 or len(values) != 2:
            continue
        rewrite = None
        if not any(_aggregates(e) for e in select.expressions) and select.args.get("group") is None:
            first, second = select.copy(), select.copy()
            for part, dropped in ((first, equalities[1]), (second, equalities[0])):
                part.set("where", exp.Where(this=exp.and_(*[c.copy() for c in conjuncts if c is not dropped])))
                for key in ("order", "limit", "offset", "distinct"):
                    part.set(key, None)
            rewrite = exp.intersect(first, second, distinct=True)
        shown = " and ".join(f"'{v}'" for v in sorted(values))
        return [Finding(
            "both_values",
            f"{column} must equal {shown} at once, which no row can",
            f"No single row has {column} equal to both {shown}. For items that have one row with each value, "
            f"intersect two queries (one per value) or group and count the distinct values.",
            rewrite=_sql(q, rewrite) if rewrite is not None else "")]
    return []


def check_question_value(q: QueryView) -> list[Finding]:
    """Literals checked against the data: the question names a stored value but the query filters on a literal
    the question never says (a made-up code, a guessed spelling) that is not that value's code either; or a
    literal the question says is compared with a column that never stores it while another column does."""
    catalog = q.ctx.catalog
    if catalog is None or catalog.value_index is None:
        return []
    return _invented_literal(q) or _value_in_other_column(q)


def _string_filters(q: QueryView) -> list[tuple[exp.Column, str]]:
    pairs = []
    for node in q.tree.find_all(exp.EQ):
        column, literal = node.left, node.right
        if isinstance(literal, exp.Column) and isinstance(column, exp.Literal):
            column, literal = literal, column
        if isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string \
                and literal.this.strip():
            pairs.append((column, literal.this))
    return pairs


def _invented_literal(q: QueryView) -> list[Finding]:
    text = q.ctx.question.lower()
    literals = [lit for lit in q.tree.find_all(exp.Literal) if lit.is_string and lit.this.strip()]
    invented = [lit.this for lit in literals if lit.this.strip().lower() not in text]
    if not invented:
        return []
    said = {lit.this.strip().lower() for lit in literals}
    named = [m for m in q.ctx.catalog.value_index.lookup_question(q.ctx.question, limit=10, min_score=100.0)
             if m.exact and len(m.value.strip()) >= 3 and not m.value.strip().isdigit()
             and m.value.strip().lower() not in said and m.value.strip().lower() in text]
    for match in named:
        table = q.ctx.schema.table(match.table)
        if table is None:
            continue
        unexplained = [lit for lit in invented if not _row_holds(q, table, match.column, match.value, lit)]
        if len(unexplained) < len(invented):
            return []  # the made-up literal is the named row's code: the query found its way from the value
        return [Finding(
            "question_value",
            f"the query compares with '{unexplained[0]}', which the question never says, while the question's "
            f"'{match.value.strip()}' is a stored value of {match.table}.{match.column}",
            f"The question names '{match.value.strip()}', stored in {match.table}.{match.column}; filter on that "
            f"value instead of '{unexplained[0]}', which the question does not mention.")]
    return []


def _row_holds(q: QueryView, table, column: str, value: str, literal: str) -> bool:
    """Whether a row of `table` with `column = value` stores `literal` in one of its columns (a probe)."""
    others = [exp.EQ(this=exp.column(c.name, quoted=True), expression=exp.Literal.string(literal))
              for c in table.columns if c.name != column]
    if not others:
        return False
    probe = exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(table.name, quoted=True)).where(
        exp.and_(exp.EQ(this=exp.column(column, quoted=True), expression=exp.Literal.string(value)),
                 exp.or_(*others)))
    rows = q.probe(probe, "question_value")
    return bool(rows and rows[0][0])


def _value_in_other_column(q: QueryView) -> list[Finding]:
    text = q.ctx.question.lower()
    for column, literal in _string_filters(q):
        table = q.table_of(column)
        if table is None or literal.strip().lower() not in text:
            continue
        probe = exp.select(exp.Count(this=exp.Star())).from_(exp.to_table(table.name, quoted=True)).where(
            exp.EQ(this=exp.column(column.name, quoted=True), expression=exp.Literal.string(literal)))
        rows = q.probe(probe, "question_value")
        if not rows or rows[0][0]:
            continue
        exact = [m for m in q.ctx.catalog.value_index.lookup(literal, limit=5, min_score=100.0) if m.exact]
        if any(m.table.lower() == table.name.lower() and m.column.lower() == column.name.lower() for m in exact):
            continue  # stored there up to case or spacing: the `literal` sanity check says so
        holders = exact
        if not holders:
            continue
        where = f"{holders[0].table}.{holders[0].column}"
        return [Finding(
            "question_value",
            f"'{literal}' is compared with {table.name}.{column.name}, which never stores it; {where} does",
            f"No row of {table.name} has {column.name} = '{literal}'; the value is stored in {where}. Filter on "
            f"{where} (joining {holders[0].table} if needed).")]
    return []


def check_distinct_asked(q: QueryView) -> list[Finding]:
    """'Different' / 'distinct' asked, no DISTINCT or grouping, and the result repeats rows."""
    shape, select = _shape(q), q.select
    result = q.candidate.result
    if (not shape.distinct or shape.counts or select.args.get("distinct") or select.args.get("group")
            or any(_aggregates(e) for e in select.expressions) or result.row_count < 2 or result.truncated):
        return []
    if len({tuple(row) for row in result.rows}) == result.row_count:
        return []
    rewrite = select.copy()
    rewrite.set("distinct", exp.Distinct())
    return [Finding(
        "distinct_asked",
        "the question asks for different values, but the result repeats rows",
        "The question asks for different (distinct) values; use SELECT DISTINCT.", rewrite=_sql(q, rewrite))]


def check_idle_join(q: QueryView) -> list[Finding]:
    """A list query (no grouping, no aggregate) with an inner join whose table appears only in that join's own
    condition, and whose removal changes how many rows come back: the join repeats or drops rows and adds
    nothing the answer shows, filters, groups or orders by. A probe counts the rows without it."""
    select = q.select
    if (select.args.get("group") or any(e.find(exp.AggFunc) for e in select.expressions)
            or select.find(exp.Star) or q.candidate.result.truncated):
        return []
    dialect = q.ctx.db.dialect
    findings = []
    for join in inner_joins(select):
        table = join.this
        if not isinstance(table, exp.Table) or join.args.get("using") or join.args.get("on") is None:
            continue
        alias = table.alias_or_name
        uses = [c for c in select.find_all(exp.Column) if c.table == alias]
        if not uses or any(c.find_ancestor(exp.Join) is not join for c in uses):
            continue
        without = select.copy()
        without.set("joins", [j for j in without.args.get("joins") or [] if j.this.alias_or_name != alias])
        rows = q.probe(exp.select(exp.Count(this=exp.Star()).as_("n")).from_(without.subquery("extra_join")),
                       "extra_join")
        if not rows or rows[0][0] is None or int(rows[0][0]) == q.candidate.result.row_count:
            continue
        kept, alone = q.candidate.result.row_count, int(rows[0][0])
        rewrite = without.sql(dialect=dialect)
        findings.append(Finding(
            "extra_join",
            f"the join to {table.name} adds no column or condition but changes the rows: {kept} with it, "
            f"{alone} without",
            f"The query joins {table.name} yet shows, filters, groups and orders by nothing from it; the join only "
            f"changes which rows come back, repeating or dropping some ({kept} rows with it, {alone} without). "
            f"Remove that join unless the question asks only for rows that have a match in {table.name}. "
            f"The query without it: {short(rewrite)}", rewrite=rewrite))
    return findings


def check_ungrouped(q: QueryView) -> list[Finding]:
    """A column beside GROUP BY that is neither grouped nor aggregated and not determined by the grouped columns
    (through a join condition or the table's primary key): each group shows an arbitrary row's value for it."""
    columns = undetermined_columns(q.tree, q.ctx.schema, q.ctx.db.dialect)
    if not columns:
        return []
    names = ", ".join(columns[:3])
    return [Finding(
        "ungrouped", f"{names} is shown beside GROUP BY without being grouped or aggregated: each group shows an "
                     "arbitrary row's value",
        f"{names} is neither in GROUP BY nor aggregated, and the grouped columns do not determine it, so each group "
        f"shows the value of an arbitrary row. Group by the column the answer is about, or aggregate {names}.")]


SHAPE_FUNCTIONS: dict[str, Callable[[QueryView], list[Finding]]] = {
    "count_asked": check_count_asked, "list_asked": check_list_asked, "unasked_limit": check_unasked_limit,
    "superlative": check_superlative, "rank_column": check_rank_column, "star": check_star,
    "missing_column": check_missing_column, "entity_column": check_entity_column,
    "both_values": check_both_values, "question_value": check_question_value,
    "distinct_asked": check_distinct_asked, "extra_join": check_idle_join, "count_rank": check_count_rank,
    "aggregate_asked": check_aggregate_asked, "comparison_asked": check_comparison_asked,
    "unread_table": check_unread_table, "ungrouped": check_ungrouped,
    "comparison_direction": check_comparison_direction,
    # checks right by construction (join graph, keys, set semantics, stored values, units): one file each
    anti_join.NAME: anti_join.check, join_edge.NAME: join_edge.check, value_grounding.NAME: value_grounding.check,
    units.NAME: units.check, both_in.NAME: both_in.check, entity_key.NAME: entity_key.check,
}
#: Every shape check, in the order they run.
SHAPE_CHECKS: tuple[str, ...] = tuple(SHAPE_FUNCTIONS)
