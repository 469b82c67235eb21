"""The progress ledger (AgentNLQ §3.3.8): the dynamic state of one run: attempts, their SQL, outcome and
feedback, the consecutive failures that trigger escalation, and the compressed history."""

from __future__ import annotations

from dataclasses import dataclass, field

from groundsql.answer import Candidate


@dataclass
class Attempt:
    """One candidate query and its execution-grounded verdict."""

    number: int
    loop: str  # "fast" (the orchestrator's own round) or "slow" (the generator agent after escalation)
    action: str  # emit | delegate | escalate
    sql: str
    outcome: str  # ok | syntax | refused | no_such_column | … | empty_result | suspicious | no_sql
    feedback: str  # what the executor and the checks said, for the next prompt
    candidate: Candidate
    problems: int = 0  # findings that made it fail (0 for a clean success)

    @property
    def succeeded(self) -> bool:
        return self.outcome == "ok"

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
