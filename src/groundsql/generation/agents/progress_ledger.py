"""The progress ledger (AgentNLQ §3.3.8): the dynamic state of one run: attempts, their SQL, outcome and
feedback, the consecutive failures that trigger escalation, and the compressed history."""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot.errors import SqlglotError

from groundsql.answer import Candidate
from groundsql.selection.grouping import result_key

#: Outcomes where the query ran and only the result looked doubtful; reproducing one confirms it.
SOFT_OUTCOMES = ("empty_result", "suspicious")


@dataclass
class Attempt:
    """One candidate query and its execution-grounded verdict."""

    number: int
    loop: str  # "fast" (the orchestrator's own round) or "slow" (the generator agent after escalation)
    action: str  # emit | delegate | escalate
    sql: str
    outcome: str  # ok | confirmed | syntax | refused | no_such_column | … | empty_result | suspicious | no_sql
    feedback: str  # what the executor and the checks said, for the next prompt
    candidate: Candidate
    problems: int = 0  # findings that made it fail (0 for a clean success)

    @property
    def succeeded(self) -> bool:
        return self.outcome in ("ok", "confirmed")

    def to_dict(self) -> dict:
        rows = self.candidate.result.row_count if self.candidate.result is not None else None
        return {"number": self.number, "loop": self.loop, "action": self.action, "sql": self.sql,
                "outcome": self.outcome, "feedback": self.feedback, "rows": rows}


@dataclass
class Probe:
    """A query the orchestrator ran to look at the data (the executor action); not an answer attempt."""

    sql: str
    feedback: str


@dataclass
class ProgressLedger:
    attempts: list[Attempt] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    consecutive_failures: int = 0
    escalations: int = 0
    summary: str = ""  # the structured compression of the history (empty until the first failure)

    def record(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)
        self.consecutive_failures = 0 if attempt.succeeded else self.consecutive_failures + 1

    def confirmed_by(self, attempt: Attempt, dialect: str) -> Attempt | None:
        """An earlier attempt that `attempt` reproduces after being told its result looked wrong: the same
        query for an empty result, the same rows for a suspicious one. Standing by a result is evidence for
        it (an empty result can be the right answer), so the loop accepts it instead of spending attempts."""
        if attempt.outcome not in SOFT_OUTCOMES or not attempt.candidate.ok:
            return None
        for earlier in self.attempts:
            if earlier.outcome != attempt.outcome or not earlier.candidate.ok:
                continue
            if attempt.outcome == "empty_result" and same_query(earlier.sql, attempt.sql, dialect):
                return earlier
            if attempt.outcome == "suspicious" and \
                    result_key(earlier.candidate.result) == result_key(attempt.candidate.result):
                return earlier
        return None

    def failed(self) -> list[Attempt]:
        return [a for a in self.attempts if not a.succeeded]

    @property
    def latest(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None

    def best(self) -> Attempt | None:
        """The most useful attempt when none succeeded: one that ran with rows and the fewest problems, then
        one that ran, then the latest."""
        if not self.attempts:
            return None

        def score(a: Attempt) -> tuple:
            c = a.candidate
            return (c.ok and c.result is not None and c.result.row_count > 0, c.ok, -a.problems, a.number)

        return max(self.attempts, key=score)

    def to_dict(self) -> dict:
        return {"attempts": [a.to_dict() for a in self.attempts],
                "probes": [{"sql": p.sql, "feedback": p.feedback} for p in self.probes],
                "escalations": self.escalations, "consecutive_failures": self.consecutive_failures,
                "summary": self.summary}


def same_query(a: str, b: str, dialect: str) -> bool:
    """Equal after sqlglot normalises both (case of keywords, spacing); textual equality when one does not parse."""
    try:
        return sqlglot.parse_one(a, read=dialect).sql(dialect=dialect, normalize=True) == \
            sqlglot.parse_one(b, read=dialect).sql(dialect=dialect, normalize=True)
    except SqlglotError:
        return " ".join(a.split()).lower() == " ".join(b.split()).lower()
