"""Spark SQL's own dangerous constructs, refused on top of the common guard.

Spark has no read-only session, so the guard is what stands between a model's SQL and the cluster. Spark's
statements that are never a query (INSERT [OVERWRITE] [DIRECTORY], CACHE, UNCACHE, CLEAR CACHE, ADD JAR/FILE,
LIST, CREATE FUNCTION, LOAD DATA, SET, RESET, USE, REFRESH, MSCK/REPAIR, EXECUTE IMMEDIATE…) are refused by
their leading words before parsing (`check_spark_statement`), so that the refusal names them even where sqlglot
cannot parse them; the common guard (`check_statement`) refuses any other statement that is not one query.
`check_spark_tree` refuses what a SELECT can still do on Spark: call Java (`reflect`, `java_method`), run a
script (`SELECT TRANSFORM … USING`), read or write storage by path (`parquet.`/path``, `read_files`), and build
values whose size the statement computes (Spark has no memory bound per statement: one huge value kills the JVM).

What Spark executes must be what the guard read. Spark replaces `${…}` (an environment variable, a JVM property, a
setting) in the raw text before parsing when variable substitution is on, so `check_spark_text` refuses any `${`
(in strings, names and comments alike); and `executable_sql` removes the comments the guard skipped, so no text
the guard did not read reaches Spark's parser.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from groundsql.db.guard import constant_number
from groundsql.db.policy import names
from groundsql.errors import RefusedStatement

#: The first word of each Spark SQL statement that is never a query, and what the statement does.
SPARK_STATEMENTS = {
    "INSERT": "writes into a table or a storage directory",
    "LOAD": "loads files into a table",
    "UPDATE": "changes rows", "DELETE": "deletes rows", "MERGE": "changes rows", "TRUNCATE": "empties a table",
    "CREATE": "creates a table, view, database or function (code the cluster would run)",
    "ALTER": "changes a table or database", "DROP": "drops a table, view, database or function",
    "CACHE": "caches a table in the cluster's memory", "UNCACHE": "changes the session's cache",
    "CLEAR": "clears the session's cache",
    "ADD": "loads a jar, file or archive into the cluster (code it would run)",
    "LIST": "lists the jars and files loaded into the session",
    "REFRESH": "reloads cached metadata and data", "MSCK": "rewrites a table's partition metadata",
    "REPAIR": "rewrites a table's partition metadata", "ANALYZE": "computes and stores table statistics",
    "SET": "changes or reveals session settings and variables", "RESET": "resets session settings",
    "USE": "changes the session's current catalog or database", "DECLARE": "creates a session variable",
    "EXECUTE": "runs a statement built from a string",
    "SHOW": "reads catalog metadata (the schema is given to you)",
    "DESCRIBE": "reads catalog metadata (the schema is given to you)",
    "DESC": "reads catalog metadata (the schema is given to you)",
}

#: Words after the first that name the statement more precisely (INSERT OVERWRITE LOCAL DIRECTORY, ADD JAR).
_QUALIFIERS = names("""
    OVERWRITE INTO LOCAL DIRECTORY TABLE TABLES DATA INPATH JAR JARS FILE FILES ARCHIVE ARCHIVES FUNCTION FUNCTIONS
    TEMPORARY TEMP OR REPLACE EXTERNAL VIEW DATABASE SCHEMA CATALOG LAZY CACHE IMMEDIATE REPAIR VARIABLE VAR TIME ZONE
""")

#: Tokens that end a statement's leading words (a name, a path, a number).
_NOT_WORDS = {TokenType.STRING, TokenType.NUMBER, TokenType.IDENTIFIER, TokenType.DOT, TokenType.L_PAREN}

#: Functions that call arbitrary Java methods or read storage by path.
SPARK_FORBIDDEN_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect", "read_files", "input_file_name",
                                       "input_file_block_start", "input_file_block_length"})

#: Data source names Spark accepts as a table qualifier to read a path directly (format.`path`).
SPARK_PATH_SOURCES = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "delta", "binaryfile", "jdbc",
                                "iceberg", "hudi", "xml", "file", "libsvm", "image"})

#: Statement nodes that are never a query (already refused as roots; refused anywhere here too).
SPARK_FORBIDDEN_NODES: tuple[type[exp.Expression], ...] = tuple(
    node for node in (getattr(exp, name, None) for name in ("Cache", "Uncache", "Directory", "Declare",
                                                             "QueryTransform", "LoadData"))
    if node is not None
)


#: Why `${` is refused: Spark substitutes it before it parses the statement.
SUBSTITUTION_REFUSAL = ("refused: '${' is not allowed on Spark: Spark can replace ${…} (in strings, names and "
                        "comments) with an environment variable, a JVM property or a setting before it reads the "
                        "statement; to match the characters '${' in data write concat('$', '{')")


#: What an optimizer hint must not hold: Spark reads a hint's inside as code (its strings and comments), while
#: the hint ends at the first `*/` for sqlglot.
_HINT_MARKS = ("'", '"', "`", "--", "/*", "\\")


def check_spark_text(sql: str) -> None:
    """Refuse what Spark reads differently from the guard in the raw text, before any parsing: `${` wherever it
    stands (Spark's variable substitution works on the raw text, before strings, names and comments exist),
    and an optimizer hint holding quotes or comment marks (the hint ends at the first `*/` for sqlglot; Spark
    reads its inside as code, strings and comments included). Plain substring checks, on purpose.

    Raises:
        RefusedStatement: naming which.
    """
    if "${" in sql:
        raise RefusedStatement(SUBSTITUTION_REFUSAL)
    start = sql.find("/*+")
    while start != -1:
        end = sql.find("*/", start + 3)
        inside = sql[start + 3: end if end != -1 else len(sql)]
        if any(mark in inside for mark in _HINT_MARKS):
            raise RefusedStatement("refused: an optimizer hint (/*+ … */) with quotes or comments inside is read "
                                   "differently by Spark; write hints with names and numbers only, or remove it")
        start = sql.find("/*+", start + 3)


def executable_sql(sql: str) -> str:
    """`sql` with every comment removed (a comment becomes one space), as sqlglot's Spark tokenizer reads it.

    The guard skips comments; Spark must therefore never see them, or text the guard did not read (a comment
    ended early by Spark's own reading of it) could run. Optimizer hints (`/*+ … */`) are tokens, parsed and
    checked, and stay. The result is re-read and must give exactly the same tokens.

    Raises:
        RefusedStatement: the statement cannot be read, or removing its comments would change its tokens.
    """
    dialect = Dialect.get_or_raise("spark")
    try:
        tokens = dialect.tokenize(sql)
    except (TokenError, ParseError, ValueError) as exc:
        raise RefusedStatement(f"refused: cannot parse the statement ({str(exc).splitlines()[0]})") from None
    if tokens and tokens[0].token_type == TokenType.COMMAND:  # EXPLAIN: sqlglot keeps the rest as one string
        gap, keyword = sql[:tokens[0].start], sql[tokens[0].start:tokens[0].end + 1]
        return (gap if not gap or gap.isspace() else " ") + keyword + " " + executable_sql(sql[tokens[0].end + 1:])
    parts: list[str] = []
    position = 0
    for token in tokens:
        gap = sql[position:token.start]
        parts.append(gap if not gap or gap.isspace() else " ")
        parts.append(sql[token.start:token.end + 1])
        position = token.end + 1
    tail = sql[position:]
    parts.append(tail if not tail or tail.isspace() else "")
    text = "".join(parts)
    if text == sql:
        return sql
    try:
        again = dialect.tokenize(text)
    except (TokenError, ParseError, ValueError):
        again = []
    if [(t.token_type, t.text) for t in again] != [(t.token_type, t.text) for t in tokens] or \
            any(t.comments for t in again if t.token_type != TokenType.HINT):
        raise RefusedStatement("refused: the statement's comments cannot be removed safely; remove the comments")
    return text


def check_spark_statement(sql: str) -> None:
    """Refuse a Spark statement that is never a query by its leading words, naming it and what it does.

    Raises:
        RefusedStatement: e.g. "refused: ADD JAR loads a jar, file or archive into the cluster …".
    """
    try:
        tokens = Dialect.get_or_raise("spark").tokenize(sql)
    except (TokenError, ParseError, ValueError):
        return  # the common guard reports what cannot be read
    words: list[str] = []
    for token in tokens[:6]:
        if token.token_type in _NOT_WORDS:
            break
        words.extend(token.text.upper().split())
    if not words or words[0] not in SPARK_STATEMENTS:
        return
    name = [words[0]]
    for word in words[1:5]:
        if word not in _QUALIFIERS:
            break
        name.append(word)
    raise RefusedStatement(f"refused: {' '.join(name)} {SPARK_STATEMENTS[words[0]]}; only read-only queries "
                           "(SELECT/WITH) may run on Spark")


def check_spark_tree(statement: exp.Expression) -> None:
    """Refuse Spark-only ways a parsed query could run code, read paths or write.

    Args:
        statement: the statement `check_statement(sql, "spark")` returned.

    Raises:
        RefusedStatement: with the construct named.
    """
    for node in statement.walk():
        if isinstance(node, SPARK_FORBIDDEN_NODES):
            name = "TRANSFORM … USING (runs a script)" if type(node).__name__ == "QueryTransform" \
                else type(node).__name__.upper()
            raise RefusedStatement(f"refused: {name} is not allowed on Spark")
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in SPARK_FORBIDDEN_FUNCTIONS:
                raise RefusedStatement(f"refused: function {name}() calls Java or reads files on Spark")
        if isinstance(node, exp.Table) and _reads_a_path(node):
            raise RefusedStatement(f"refused: reading storage by path ({node.sql(dialect='spark')}) is not allowed")
        if isinstance(node, exp.Func):
            _check_growth(node)
    if isinstance(statement, exp.Query):
        _output_sizes(statement, {})
        _check_recursive_growth(statement)


#: The most characters (or array elements) one Spark value built by `repeat`, `lpad`/`rpad`, `space`,
#: `array_repeat` or `sequence` may have. Spark holds no memory bound per statement, and one huge value (or a
#: `collect_list` of many large ones) exhausts the driver and kills its JVM, so the size must be a constant the
#: guard can read, or be capped with `least(…, n)`.
SPARK_MAX_VALUE_SIZE = 100_000

#: Functions whose value size is one argument (by key, or position for `Anonymous`).
_SIZE_ARGUMENT = {exp.Repeat: "times", exp.Space: "this", exp.Pad: "expression"}
_SIZE_POSITION = {"array_repeat": 1}

#: Days per step unit of a date `sequence`.
_STEP_DAYS = {"DAY": 1, "DAYS": 1, "WEEK": 7, "WEEKS": 7, "MONTH": 28, "MONTHS": 28, "YEAR": 365, "YEARS": 365}


def _check_growth(node: exp.Func) -> None:
    """Refuse a value whose size the statement computes, or whose constant size is above the bound."""
    if isinstance(node, exp.GenerateSeries):
        size, what = _sequence_length(node), "sequence() with bounds computed from data"
    else:
        argument = node.args.get(_SIZE_ARGUMENT[type(node)]) if type(node) in _SIZE_ARGUMENT else None
        if isinstance(node, exp.Anonymous) and node.name.lower() in _SIZE_POSITION:
            position = _SIZE_POSITION[node.name.lower()]
            argument = node.expressions[position] if len(node.expressions) > position else None
        if argument is None:
            return
        size, what = _bounded(argument), f"{_name(node)}() with a length computed from data"
    if size is None:
        raise RefusedStatement(f"refused: {what} can build a value too large for the Spark driver; use a "
                               f"constant length, or cap it with least(…, {SPARK_MAX_VALUE_SIZE:,})")
    if size > SPARK_MAX_VALUE_SIZE:
        raise RefusedStatement(f"refused: {_name(node)}() would build a value of {size:,.0f} elements or characters "
                               f"(at most {SPARK_MAX_VALUE_SIZE:,} on Spark)")


def _name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, exp.Pad):
        return "lpad" if node.args.get("is_left") else "rpad"
    return {exp.GenerateSeries: "sequence", exp.Space: "space"}.get(type(node), node.sql_name().lower())


def _bounded(node: exp.Expression) -> float | None:
    """The largest value `node` can have: a constant, or `least(…)` with a constant among its arguments."""
    if isinstance(node, exp.Paren):
        return _bounded(node.this)
    if isinstance(node, exp.Least):
        bounds = [b for b in (_bounded(a) for a in [node.this, *node.expressions]) if b is not None]
        return min(bounds) if bounds else None
    return constant_number(node)


def _sequence_length(node: exp.GenerateSeries) -> float | None:
    """Elements of `sequence(start, stop[, step])` with constant numbers or date literals as bounds, else None."""
    start, end, step = node.args.get("start"), node.args.get("end"), node.args.get("step")
    low, high = constant_number(start), constant_number(end)
    if low is not None and high is not None:
        every = 1.0 if step is None else constant_number(step)
        if not every:
            return None
        return abs(high - low) / abs(every) + 1
    first, last = _date_literal(start), _date_literal(end)
    if first is None or last is None:
        return None
    days = 1
    if step is not None:
        unit = step.unit.name.upper() if isinstance(step, exp.Interval) and step.unit else ""
        count = _interval_count(step.this) if isinstance(step, exp.Interval) else None
        if unit not in _STEP_DAYS or not count:
            return None  # a step under a day can make a date range huge
        days = abs(count) * _STEP_DAYS[unit]
    return abs((last - first).days) / days + 1


def _interval_count(node: exp.Expression | None) -> float | None:
    """The number of `INTERVAL n UNIT` (sqlglot keeps it as the string '1')."""
    if isinstance(node, exp.Literal) and node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return constant_number(node)


def _date_literal(node: exp.Expression | None):
    """The date of `DATE'…'`, `CAST('…' AS DATE)` or `to_date('…')`, else None."""
    from datetime import date

    if isinstance(node, (exp.Cast, exp.TsOrDsToDate, exp.StrToDate)) and isinstance(node.this, exp.Literal) \
            and node.this.is_string:
        try:
            return date.fromisoformat(node.this.this[:10])
        except ValueError:
            return None
    return None


def _reads_a_path(table: exp.Table) -> bool:
    name = table.name
    if any(mark in name for mark in ("/", "\\", "://")):
        return True
    qualifier = (table.db or "").lower()
    return qualifier in SPARK_PATH_SOURCES and not table.catalog


#: The largest expression (in syntax nodes) a projection may become once Spark inlines the CTEs and subqueries
#: it reads: a chain of CTEs that each use the previous column twice doubles at every step, and Spark's
#: optimizer, which cannot be cancelled, then works on millions of nodes.
SPARK_MAX_INLINED_NODES = 20_000

#: Nodes that build a longer string or array from their arguments.
_GROWING = (exp.Concat, exp.DPipe, exp.ConcatWs, exp.ArrayConcat, exp.Repeat, exp.Array)


def _output_sizes(query: exp.Expression, ctes: dict[str, dict[str, int]]) -> dict[str, int]:
    """Each output column of `query` with the size its expression has once every CTE and subquery it reads is
    inlined; refuses one above `SPARK_MAX_INLINED_NODES`."""
    if isinstance(query, exp.Subquery):
        return _output_sizes(query.this, ctes)
    if isinstance(query, exp.SetOperation):
        left, right = _output_sizes(query.this, ctes), _output_sizes(query.expression, ctes)
        merged = dict(left)
        for (name, size), other in zip(left.items(), right.values()):
            merged[name] = max(size, other)
        return merged
    if not isinstance(query, exp.Select):
        return {}
    scope = dict(ctes)
    with_ = query.args.get("with_") or query.args.get("with")
    if isinstance(with_, exp.With):
        for cte in with_.expressions:
            sizes = _output_sizes(cte.this, scope)
            names = [c.name.lower() for c in cte.args["alias"].columns] if cte.args.get("alias") else []
            if names:
                sizes = dict(zip(names, sizes.values()))
            scope[cte.alias_or_name.lower()] = sizes
    columns: dict[str, int] = {}
    for source in _sources(query):
        if isinstance(source, exp.Table) and source.name.lower() in scope and not source.db:
            found = scope[source.name.lower()]
        elif isinstance(source, exp.Subquery):
            found = _output_sizes(source.this, scope)
        else:
            continue
        for name, size in found.items():
            columns[name] = max(size, columns.get(name, 1))
    out: dict[str, int] = {}
    for position, projection in enumerate(query.expressions):
        size = sum(columns.get(node.name.lower(), 1) if isinstance(node, exp.Column) else 1
                   for node in projection.walk() if not isinstance(node, exp.Identifier))
        if size > SPARK_MAX_INLINED_NODES:
            raise RefusedStatement(f"refused: {projection.alias_or_name or 'a column'} becomes an expression of "
                                   f"{size:,} parts once Spark inlines the CTEs and subqueries it reads (at most "
                                   f"{SPARK_MAX_INLINED_NODES:,}); compute it once instead of repeating it")
        out[projection.alias_or_name.lower() or str(position)] = size
    return out


def _sources(select: exp.Select) -> list[exp.Expression]:
    from_ = select.args.get("from_") or select.args.get("from")
    found = [from_.this] if isinstance(from_, exp.From) else []
    return found + [join.this for join in select.args.get("joins") or []]


def _check_recursive_growth(statement: exp.Expression) -> None:
    """Refuse a recursive CTE whose step grows a value from itself (concat(s, s), repeat(s, 2)): it doubles at
    every step, past any memory, long before Spark's recursion limit."""
    for with_ in statement.find_all(exp.With):
        if not with_.args.get("recursive"):
            continue
        for cte in with_.expressions:
            name = cte.alias_or_name.lower()
            own = {c.name.lower() for c in cte.args["alias"].columns} if cte.args.get("alias") else set()
            for select in cte.this.find_all(exp.Select):
                if not any(isinstance(s, exp.Table) and s.name.lower() == name for s in _sources(select)):
                    continue
                own |= {p.alias_or_name.lower() for p in select.expressions}
                for node in select.find_all(*_GROWING):
                    uses = [c for c in node.find_all(exp.Column)
                            if c.table.lower() == name or (not c.table and c.name.lower() in own)]
                    if len(uses) >= 2 or (uses and isinstance(node, exp.Repeat)):
                        raise RefusedStatement(f"refused: the recursive CTE {cte.alias_or_name} grows a value from "
                                               "itself at every step (it doubles past any memory); build it "
                                               "without the recursion")
