"""No leakage: a question is never answered with its own verified example in the prompt.

When the questions being scored are also verified examples in the knowledge folder (a user's suite always is),
retrieval would hand the model the gold SQL. Each question is therefore asked with the examples that are *it*
left out: the same question (case, spacing and punctuation aside) or the same query as its gold SQL. The other
examples, rules and glossary stay, as they would for a new question.
"""

from __future__ import annotations

from dataclasses import replace

from groundsql.evaluation.suite import question_key, same_query
from groundsql.knowledge import Knowledge


def without_own_examples(knowledge: Knowledge, question: str, gold_sql: str,
                         dialect: str) -> tuple[Knowledge, list[str]]:
    """`knowledge` without the examples of `question` (a copy; the loaded one is shared and never changed).

    Returns:
        (the knowledge to use, the sources of the examples left out); the knowledge itself when none matched.
    """
    key = question_key(question)
    own = [e for e in knowledge.examples
           if question_key(e.question) == key or same_query(e.sql, gold_sql, dialect)]
    if not own:
        return knowledge, []
    kept = [e for e in knowledge.examples if e not in own]
    return replace(knowledge, examples=kept), [e.source for e in own]
