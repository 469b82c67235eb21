"""groundsql: answer natural-language questions over real databases with SQL you can trust.

A few verbs cover most uses::

    import groundsql
    db = groundsql.connect("shop.sqlite")
    answer = groundsql.ask("How many orders were shipped last month?", db)
    print(answer.sql, answer.result.rows)
    answer.to_pandas()                                   # a DataFrame (also to_polars, to_arrow)
    groundsql.ask("Revenue in fiscal Q1?", db, knowledge="shop.sqlite.knowledge")   # rules, glossary, examples
"""

from groundsql.answer import Answer, Candidate
from groundsql.api import ask, connect
from groundsql.catalog.build import profile_database as profile
from groundsql.db import Database, Result
from groundsql.errors import GroundsqlError
from groundsql.evaluation import evaluate
from groundsql.knowledge import load_knowledge

__all__ = ["Answer", "Candidate", "Database", "GroundsqlError", "Result", "ask", "connect", "evaluate",
           "load_knowledge", "profile"]
__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext groundsql``: registers the ``%ask`` / ``%%ask`` magic (see `groundsql.magic`)."""
    from groundsql.magic import load_ipython_extension as load

    load(ipython)


def _show_answers_in_ipython() -> None:
    """In a running IPython (a Jupyter kernel), an `Answer` shows itself as HTML from the moment groundsql is
    imported (`groundsql.notebook`); elsewhere IPython is not even imported."""
    import sys

    if "IPython" not in sys.modules:
        return
    try:
        ipython = sys.modules["IPython"].get_ipython()
    except AttributeError:
        return
    if ipython is not None:
        from groundsql.notebook import show_answers

        show_answers(ipython)


_show_answers_in_ipython()
