"""The statement guard: one read-only query that reads only the connected database and calls only
allow-listed functions, parsed with sqlglot.

Layers, in order: comments the engine would execute are refused before parsing; the statement must be exactly
one query (or EXPLAIN of one); no node may write, lock or touch session state; every function must be on the
dialect's allow-list (`groundsql.db.policy`); every relation must be the connected database's own table or view,
a CTE of the statement, or an allow-listed table function. Refusals start with ``refused:`` and say what to
change, because the pipelines hand them to the model as repair feedback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from groundsql.db.policy import DialectPolicy, policy_for
from groundsql.errors import GroundsqlError, RefusedStatement, UnknownRelation

log = logging.getLogger("groundsql")
logging.getLogger("sqlglot").setLevel(logging.ERROR)

#: Statement roots a query may have.
ALLOWED_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)

#: Nodes that write, change schema or session state, or reach outside the database.
FORBIDDEN_NODES: tuple[type[exp.Expression], ...] = tuple(
    node
    for node in (
        getattr(exp, name, None)
        for name in (
            "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterColumn", "TruncateTable",
            "Command", "Pragma", "Attach", "Detach", "Copy", "Set", "Use", "Transaction", "Commit",
            "Rollback", "LoadData", "Grant", "Revoke", "Into", "Install", "Lock", "Analyze", "Refresh",
            "Describe",
        )
    )
    if node is not None
)

#: Why `||` is refused on MySQL/MariaDB: it is logical OR there, so a concatenation silently returns 0 or 1.
MYSQL_PIPES_REFUSAL = ("refused: '||' is logical OR in MySQL/MariaDB syntax, not string concatenation; "
                       "write CONCAT(a, b) to join strings, or OR for a logical or")

FILE_LIKE_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl", ".ndjson", ".tsv", ".txt", ".gz", ".xlsx")


@dataclass(frozen=True)
class Scope:
    """The relations of the connected database that a statement may read (names in lower case).

    Args:
        relations: (schema, name) of every table and view of the connected database's own schemas.
        default_schema: the schema unqualified names resolve to.
        database: the connected database (catalog) name, accepted as a qualifier.
        refresh: called once when a name is missing, to re-read the relations (a table created since).
    """

    relations: frozenset[tuple[str, str]]
    default_schema: str
    database: str | None = None
    refresh: Callable[[], Scope] | None = field(default=None, compare=False, repr=False)

    @property
    def schemas(self) -> frozenset[str]:
        return frozenset(schema for schema, _ in self.relations) | {self.default_schema}


@contextmanager
def parser_failures_refused() -> Iterator[None]:
    """Fail closed: a statement the parser cannot handle (sqlglot raising something other than its own parse
    errors, or running out of stack on deep nesting) is refused, never an undocumented error for the caller."""
    try:
        yield
    except GroundsqlError:
        raise
    except RecursionError:
        raise RefusedStatement("refused: the statement is nested too deeply to check; simplify it") from None
    except Exception as exc:  # noqa: BLE001 - any parser failure refuses the statement
        log.warning("the SQL parser failed on a statement (%s); it was refused", type(exc).__name__)
        raise RefusedStatement(f"refused: cannot parse the statement (the parser failed with "
                               f"{type(exc).__name__}); rewrite it in plain SQL") from None


def check_statement(sql: str, dialect: str, *, scope: Scope | None = None,
                    allow_system_catalogs: bool = False) -> exp.Expression:
    """Parse `sql` and make sure it is exactly one read-only query within the connected database.

    Args:
        sql: the statement as written (a trailing semicolon is fine).
        dialect: the sqlglot dialect of the target engine.
        scope: the connected database's relations; None checks statement kind and functions only.
        allow_system_catalogs: the connection opted in to system catalogs, other databases and catalog
            functions (a user's explicit choice; never the default).

    Returns:
        The parsed statement.

    Raises:
        RefusedStatement: the statement is empty, unparsable, not a single read-only query, calls a function
            that is not allow-listed, or reads a system catalog or another database.
        UnknownRelation: the statement names a table the connected database does not have.
    """
    with parser_failures_refused():
        return _check_statement(sql, dialect, scope, allow_system_catalogs)


def _check_statement(sql: str, dialect: str, scope: Scope | None, allow_system_catalogs: bool) -> exp.Expression:
    text = (sql or "").strip()
    if not text.strip(";").strip():
        raise RefusedStatement("refused: the statement is empty")
    policy = policy_for(dialect)
    _check_tokens(text, dialect, policy)
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0]
        raise RefusedStatement(f"refused: cannot parse the statement ({first})") from None
    if len(statements) != 1:
        raise RefusedStatement(f"refused: expected one statement, found {len(statements)}")
    statement = statements[0]
    query = _unwrap_explain(statement, dialect)
    _check_tree(query, dialect, policy, allow_system_catalogs)
    if scope is not None and not allow_system_catalogs:
        _check_relations(query, policy, scope)
    return statement


# -- comments -------------------------------------------------------------------------------------


def _check_tokens(text: str, dialect: str, policy: DialectPolicy) -> None:
    """Refuse what the engine would read differently from sqlglot or from the writer: MySQL runs `/*! … */` and
    `/*M! … */`, obeys optimizer hints `/*+ … */`, needs a space after `--` and reads `||` as OR; PostgreSQL
    nests block comments."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(text)
    except (TokenError, ParseError, ValueError) as exc:
        raise RefusedStatement(f"refused: cannot parse the statement ({str(exc).splitlines()[0]})") from None
    if policy.mysql_family and any(token.token_type == TokenType.DPIPE for token in tokens):
        raise RefusedStatement(MYSQL_PIPES_REFUSAL)
    edges = [0] + [edge for token in tokens for edge in (token.start, token.end + 1)] + [len(text)]
    for start, end in zip(edges[::2], edges[1::2]):
        gap = text[start:end]
        if "/*" not in gap and "--" not in gap:
            continue
        if policy.mysql_family:
            if any(marker in gap for marker in ("/*!", "/*M!", "/*m!", "/*+")):
                raise RefusedStatement(
                    "refused: executable comments (/*! … */) and optimizer hints (/*+ … */) run as SQL on "
                    "MySQL/MariaDB; remove the comment")
            if _dash_comment_without_space(gap):
                raise RefusedStatement("refused: MySQL/MariaDB read '--' without a following space as code; "
                                       "write '-- ' with a space or remove the comment")
        if _has_nested_block_comment(gap):
            raise RefusedStatement("refused: nested block comments are read differently by engines; remove them")


def _has_nested_block_comment(gap: str) -> bool:
    opening = gap.find("/*")
    while opening != -1:
        closing = gap.find("*/", opening + 2)
        body = gap[opening + 2: closing if closing != -1 else len(gap)]
        if "/*" in body:
            return True
        opening = gap.find("/*", closing + 2) if closing != -1 else -1
    return False


def _dash_comment_without_space(gap: str) -> bool:
    position = gap.find("--")
    while position != -1:
        after = gap[position + 2: position + 3]
        if after and not after.isspace():
            return True
        position = gap.find("--", position + 2)
    return False


# -- statement kind -------------------------------------------------------------------------------


def _unwrap_explain(statement: exp.Expression, dialect: str) -> exp.Expression:
    """EXPLAIN [QUERY PLAN] <query> is allowed; EXPLAIN ANALYZE runs the query, so it is not."""
    if isinstance(statement, exp.Describe):  # MySQL/MariaDB parse EXPLAIN as DESCRIBE
        style = str(statement.args.get("style") or "").upper()
        inner = statement.this
        if "ANALYZE" in style or "ANALYSE" in style:
            raise RefusedStatement("refused: EXPLAIN ANALYZE executes the statement; use plain EXPLAIN")
        if not isinstance(inner, ALLOWED_ROOTS):
            raise RefusedStatement("refused: only EXPLAIN of a read-only query may run; DESCRIBE and SHOW are "
                                   "not allowed (the schema is given to you)")
        return inner
    if not (isinstance(statement, exp.Command) and str(statement.this).upper() == "EXPLAIN"):
        return statement
    rest = statement.expression.name if statement.expression is not None else ""
    words = rest.split(None, 2)
    if len(words) >= 2 and words[0].upper() == "QUERY" and words[1].upper() == "PLAN":
        rest = rest.split(None, 2)[2] if len(words) == 3 else ""
    if rest.strip().upper().startswith(("ANALYZE", "ANALYSE", "(")):
        raise RefusedStatement("refused: EXPLAIN ANALYZE executes the statement; use plain EXPLAIN")
    try:
        inner = sqlglot.parse(rest, read=dialect)
    except (ParseError, TokenError):
        raise RefusedStatement("refused: cannot parse the statement after EXPLAIN") from None
    if len(inner) != 1 or inner[0] is None:
        raise RefusedStatement("refused: EXPLAIN takes exactly one query")
    return inner[0]


def _check_tree(statement: exp.Expression, dialect: str, policy: DialectPolicy, system_catalogs: bool) -> None:
    root = statement
    if isinstance(root, exp.With):  # some dialects attach WITH at the root
        root = root.this
    if not isinstance(root, ALLOWED_ROOTS):
        kind = type(root).__name__.upper()
        raise RefusedStatement(f"refused: only read-only queries (SELECT/WITH) may run, not {kind}")
    for node in statement.walk():
        if isinstance(node, FORBIDDEN_NODES):
            raise RefusedStatement(
                f"refused: the query contains a {type(node).__name__.upper()} clause, which is not read-only"
            )
        if isinstance(node, exp.Func):
            _check_function(node, policy, system_catalogs)
        elif policy.mysql_family and isinstance(node, (exp.Parameter, exp.SessionParameter, exp.PropertyEQ)):
            raise RefusedStatement("refused: user and system variables (@name, @@name, :=) are not allowed; "
                                   "compute the value inside the query instead")
        elif policy.mysql_family and isinstance(node, exp.Hint):
            raise RefusedStatement("refused: optimizer hints are not allowed on MySQL/MariaDB; remove them")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise RefusedStatement("refused: row locks (FOR UPDATE/SHARE) are not allowed")
        if dialect == "duckdb" and isinstance(node, exp.Table) and _names_a_file(node):
            raise RefusedStatement(f"refused: reading files ({node.name}) is not allowed")


#: Functions that build one value of a size given by an argument, and that argument's key.
SIZED_FUNCTIONS: dict[type[exp.Expression], str] = {exp.Repeat: "times", exp.Space: "this", exp.Pad: "expression"}

#: The largest value (characters) a statement may build with a constant size; engines cannot interrupt the
#: allocation of one huge value.
MAX_CONSTANT_VALUE_SIZE = 10_000_000


#: printf-style functions, whose value is sized by a width or precision: in the format, or given for a `*`.
FORMAT_FUNCTIONS = frozenset({"printf", "format"})
#: One conversion of a printf format string (the format is text, not SQL): its width and precision, each digits
#: or `*` (taken from the next argument).
_CONVERSION = re.compile(r"%%|%[-+ #0,!']*(\*|\d*)(?:\.(\*|\d*))?")


def _format_size(node: exp.Func) -> float | None:
    """The largest constant width or precision a printf-style call asks for, or None."""
    if isinstance(node, exp.Format):
        arguments = [node.this, *node.expressions]
    elif isinstance(node, exp.Anonymous) and node.name.lower() in FORMAT_FUNCTIONS:
        arguments = list(node.expressions)
    else:
        return None
    template = arguments[0] if arguments else None
    if not (isinstance(template, exp.Literal) and template.is_string):
        return None
    sizes: list[float] = []
    position = 1  # the next argument
    for match in _CONVERSION.finditer(template.this):
        if match.group(0) == "%%":
            continue
        for part in match.groups():
            if part == "*":
                size = constant_number(arguments[position]) if position < len(arguments) else None
                position += 1
                if size is not None:
                    sizes.append(size)
            elif part:
                sizes.append(float(part))
        position += 1  # the value this conversion formats
    return max(sizes, default=None)


def _check_value_size(node: exp.Func) -> None:
    key = SIZED_FUNCTIONS.get(type(node))
    size = constant_number(node.args.get(key)) if key else _format_size(node)
    if size is not None and size > MAX_CONSTANT_VALUE_SIZE:
        raise RefusedStatement(f"refused: {node.sql_name().lower()}() would build a value of {size:,.0f} "
                               f"characters (at most {MAX_CONSTANT_VALUE_SIZE:,} allowed)")


def constant_number(node: exp.Expression | None) -> float | None:
    """The value of a number written with literals and + - * ^, or None."""
    if isinstance(node, exp.Paren):
        return constant_number(node.this)
    if isinstance(node, exp.Neg):
        value = constant_number(node.this)
        return None if value is None else -value
    if isinstance(node, exp.Literal) and node.is_number:
        try:
            return float(node.this)
        except ValueError:
            return None
    operations = {exp.Mul: lambda a, b: a * b, exp.Add: lambda a, b: a + b, exp.Sub: lambda a, b: a - b,
                  exp.Pow: lambda a, b: a ** min(b, 64)}
    if type(node) in operations:
        left, right = constant_number(node.this), constant_number(node.expression)
        if left is not None and right is not None:
            try:
                return float(operations[type(node)](left, right))
            except OverflowError:
                return float("inf")
    return None


def _check_function(node: exp.Func, policy: DialectPolicy, system_catalogs: bool) -> None:
    _check_value_size(node)
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc)):
        name = node.name
        if policy.allows_function(name, system_catalogs=system_catalogs):
            return
    else:
        name = node.sql_name()
        if type(node).__name__ in policy.function_classes:
            return
        if policy.allows_function(name, system_catalogs=system_catalogs):
            return
    raise RefusedStatement(
        f"refused: function {name.lower()}() is not on the allow-list for {policy.dialect} (it may read files, "
        "settings or other sessions, or change state); use standard SQL functions instead"
    )


def _names_a_file(table: exp.Table) -> bool:
    name = table.name.lower()
    return "/" in name or "\\" in name or name.endswith(FILE_LIKE_SUFFIXES) or "://" in name


# -- relations ------------------------------------------------------------------------------------


def _check_relations(statement: exp.Expression, policy: DialectPolicy, scope: Scope) -> None:
    for table in statement.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue  # a table function (checked with the functions) or ROWS FROM (…)
        if not table.args.get("db") and not table.args.get("catalog") and _is_cte(table):
            continue
        problem = _relation_problem(table, policy, scope)
        if problem is _UNKNOWN and scope.refresh is not None:
            scope = scope.refresh()
            problem = _relation_problem(table, policy, scope)
        if problem is _UNKNOWN:
            raise UnknownRelation(f"no such table: {table.sql(dialect=policy.dialect)} (not a table or view of "
                                  "the connected database; use only the tables in the schema)")
        if problem:
            raise RefusedStatement(f"refused: {problem}")


#: `_relation_problem`'s answer for a name that is simply not there (the engine would say "no such table").
_UNKNOWN = "unknown"


def _relation_problem(table: exp.Table, policy: DialectPolicy, scope: Scope) -> str | None:
    """Why `table` is outside the connected database, or None when it is one of its relations."""
    name, schema, catalog = table.name.lower(), table.db.lower(), table.catalog.lower()
    shown = table.sql(dialect=policy.dialect)
    hint = "query only the tables of the connected database"
    if catalog and catalog != (scope.database or ""):
        return f"{shown} is in another database; {hint}"
    if policy.mysql_family and schema:  # MySQL's schema qualifier is a database
        if schema in policy.system_schemas:
            return f"{shown} is a system catalog (server accounts, settings or sessions); {hint}"
        if schema != (scope.database or ""):
            return f"{shown} is in another database ({table.db}); {hint}"
        schema = scope.default_schema
    if schema in policy.system_schemas:
        return f"{shown} is in the system schema {table.db}, which holds server metadata, not user data; {hint}"
    if name.startswith(policy.system_prefixes):
        return f"{shown} is a system catalog, not user data; {hint}"
    if not schema and name in policy.pseudo_tables:
        return None
    effective = schema or scope.default_schema
    if schema in policy.default_schemas and schema != scope.default_schema:
        effective = scope.default_schema
    elif schema and schema not in scope.schemas:
        return f"schema {table.db} is not part of the connected database's catalog; {hint}"
    if (effective, name) not in scope.relations:
        return _UNKNOWN
    return None


def _is_cte(table: exp.Table) -> bool:
    """Whether an unqualified `table` names a CTE visible where it stands: in the query body every CTE of the
    WITH; inside a CTE's own body only the earlier ones (all of them, itself included, in WITH RECURSIVE)."""
    name = table.name.lower()
    child: exp.Expression = table
    node = table.parent
    while node is not None:
        visible: list[exp.Expression] = []
        if isinstance(node, exp.With) and isinstance(child, exp.CTE):
            ctes = list(node.expressions)
            index = next(i for i, cte in enumerate(ctes) if cte is child)
            visible = ctes if node.args.get("recursive") else ctes[:index]
        elif isinstance(node, exp.Query):
            with_ = node.args.get("with_") or node.args.get("with")
            if isinstance(with_, exp.With) and child is not with_:
                visible = list(with_.expressions)
        if any(cte.alias_or_name.lower() == name for cte in visible):
            return True
        child, node = node, node.parent
    return False
