"""Question-shape checks: exact comparisons of a query's shape with what the question's words ask for.

Each check is one small module of `selection/shapes/` (named after the check, with one function `check(q)`) over
a `QueryView` (the query's qualified syntax tree, its result, the schema and catalog) and the question's reading
(`selection.question.read_question`); none calls a model. `shapes/__init__.py` lists them in the order they run;
this module runs them (`shape_findings`). A finding is a fact for the reader (`Answer.warnings`), for a reviewing
agent (critic, validator, execution feedback) and for the confidence; where the fix is exact, the finding carries
`rewrite`, the query with the problem removed (run and judged by `generation.shape_repair`, never applied by the
check itself).

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
``count_rank``    'the largest number of …' and the query counts nothing;
``aggregate_asked`` 'average', 'maximum', 'minimum' asked and the query neither computes nor sorts for it;
``comparison_asked`` 'more / greater / less … than' asked and the query has no <, > or BETWEEN;
``unread_table``  the question names a table by its one-word name that the query never reads;
``ungrouped``     a column shown beside GROUP BY that is neither grouped nor aggregated and that the grouped columns
                  do not determine (SQLite shows an arbitrary row's value; other engines refuse it);
``comparison_direction`` the question bounds a number on one side ('before 1945') and the query compares with
                  it only on the other side.

Right by construction (from the join graph, the keys, the parsed query and the stored values rather than from
phrasings; each states its evidence):
``anti_join``     an inner join whose join column is tested IS NULL (rewrite: LEFT JOIN), or a negated question
                  answered with `!=` over a join on the kept table's key (rewrite: NOT IN);
``join_edge``     a join on two columns no key connects while a key connects the two tables (rewrite: that key);
``value_grounding`` a literal no row of its column stores, held whole by another column of the table or inside
                  longer stored values (rewrite: that column, or the stored values);
``units``         a number the question gives in minutes, MB, dollars… compared with a column whose name gives
                  another unit (rewrite: converted);
``both_in``       'both A and B' answered with `IN (A, B)` (rewrite: INTERSECT);
``entity_key``    rows aggregated per a repeating name of a joined entity (rewrite: its key added to GROUP BY);
``age_direction`` 'oldest' / 'youngest' answered from the wrong end of an age (oldest = largest) or a point in
                  time such as a birth date (oldest = earliest) (rewrite: that sort or MIN/MAX reversed);
``same_branches`` a UNION / INTERSECT / EXCEPT of copies of one query (rewrite: where they share one literal list
                  with a value per branch, each branch keeps its own value);
``branch_join``   a branch of a UNION / INTERSECT / EXCEPT joins a table it uses nothing from, and the join changes
                  the combined result (rewrite: the branches without it);
``both_union``    'both A and B' answered with a UNION of two queries over the same columns and tables
                  (rewrite: INTERSECT);
``table_literal`` a filter on a literal that is the name of a table the query reads (rewrite: without it).
A UNION / INTERSECT / EXCEPT is read only by the checks in `SET_OPERATION_CHECKS`; the others read one SELECT.
"""

from __future__ import annotations

import logging

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.selection.query_view import Finding, prepare, prepare_set_operation
from groundsql.selection.shapes import SET_OPERATION_CHECKS, SHAPE_CHECKS, SHAPE_FUNCTIONS
from groundsql.selection.switches import switched_on

__all__ = ["SHAPE_CHECKS", "SHAPE_FUNCTIONS", "shape_findings"]

log = logging.getLogger("groundsql")


def shape_findings(ctx: Context, candidate: Candidate, *, checks: tuple[str, ...] | None = None) -> list[Finding]:
    """The question-shape findings for a candidate that ran (empty when its shape fits the question)."""
    if not candidate.ok or not candidate.sql:
        return []
    names = switched_on(ctx, checks or SHAPE_CHECKS)
    query = prepare(ctx, candidate)
    if query is None:  # a UNION / INTERSECT / EXCEPT: only the checks that read its branches
        query = prepare_set_operation(ctx, candidate)
        names = tuple(name for name in names if name in SET_OPERATION_CHECKS)
    if query is None:
        return []
    findings: list[Finding] = []
    for name in names:
        try:
            findings.extend(SHAPE_FUNCTIONS[name](query))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:  # a check that cannot read a query skips
            log.debug("shape check %s skipped: %s", name, exc)
    if findings:
        ctx.trace.note("shape", sql=candidate.sql, findings=[f.check for f in findings])
    return findings
