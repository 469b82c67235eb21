"""Context management (AgentNLQ §3.3.8–3.3.9): what of the run's history the next prompt sees.

Only execution feedback is ever kept (the SQL and what running it showed, never the model's reasoning).
With compression, the history after each failure is one structured message: the question, every prior attempt
with its outcome, the latest error in full, and an instruction not to repeat what failed. Without it, the raw
attempt/feedback turns are kept. Either way, when the history nears `budget` tokens only the first and the
latest attempts stay (the first grounding signal and the newest diagnosis).
"""

from __future__ import annotations

from groundsql.catalog import estimate_tokens
from groundsql.generation.agents.progress_ledger import Attempt, ProgressLedger
from groundsql.models import Message
from groundsql.prompts import render

SQL_CHARS = 500
OUTCOME_CHARS = 160


def compress(question: str, progress: ProgressLedger, *, budget: int) -> tuple[str, bool]:
    """The history as one structured message; (text, pruned) where pruned means middle attempts were dropped."""
    attempts, pruned = _kept(progress.attempts, lambda kept: estimate_tokens(_compressed(question, kept,
                                                                                          progress)), budget)
    return _compressed(question, attempts, progress), pruned


def raw_turns(progress: ProgressLedger, *, budget: int) -> tuple[list[Message], bool]:
    """Uncompressed history: each attempt's SQL and its full feedback as turns; (messages, pruned)."""
    attempts, pruned = _kept(progress.attempts, lambda kept: sum(estimate_tokens(m["content"])
                                                                 for m in _turns(kept)), budget)
    return _turns(attempts), pruned


def history_messages(question: str, progress: ProgressLedger, *, compression: bool,
                     budget: int) -> tuple[list[Message], bool]:
    """The history messages the next prompt carries (none before the first attempt), and whether they were
    pruned to the first and latest attempts."""
    if not progress.attempts and not progress.probes:
        return [], False
    if compression:
        text, pruned = compress(question, progress, budget=budget)
        return [{"role": "user", "content": text}], pruned
    messages, pruned = raw_turns(progress, budget=budget)
    return _probe_turns(progress) + messages, pruned


def _kept(attempts: list[Attempt], size, budget: int) -> tuple[list[Attempt], bool]:
    if len(attempts) <= 2 or size(attempts) <= budget:
        return list(attempts), False
    return [attempts[0], attempts[-1]], True


def _compressed(question: str, attempts: list[Attempt], progress: ProgressLedger) -> str:
    lines = []
    for attempt in attempts:
        outcome = attempt.feedback.splitlines()[0][:OUTCOME_CHARS] if attempt.feedback else attempt.outcome
        lines.append(f"Attempt {attempt.number} ({attempt.loop}, {attempt.outcome}):\n{_short(attempt.sql)}\n"
                     f"-> {outcome}")
    skipped = len(progress.attempts) - len(attempts)
    if skipped > 0:
        lines.insert(1, f"({skipped} attempt(s) in between left out)")
    latest = progress.latest
    observations = "\n".join(f"{_short(p.sql)}\n-> {p.feedback}" for p in progress.probes) or "(none)"
    return render("agentnlq_compressed", question=question, attempts="\n\n".join(lines) or "(none)",
                  latest=latest.feedback if latest is not None else "(none)", observations=observations)


def _turns(attempts: list[Attempt]) -> list[Message]:
    messages: list[Message] = []
    for attempt in attempts:
        messages.append({"role": "assistant", "content": f"```sql\n{attempt.sql or '(no query)'}\n```"})
        messages.append({"role": "user", "content": f"Attempt {attempt.number}: {attempt.feedback}"})
    return messages


def _probe_turns(progress: ProgressLedger) -> list[Message]:
    if not progress.probes:
        return []
    text = "\n\n".join(f"{_short(p.sql)}\n-> {p.feedback}" for p in progress.probes)
    return [{"role": "user", "content": f"Queries run to look at the data:\n{text}"}]


def _short(sql: str) -> str:
    flat = " ".join((sql or "(no query)").split())
    return flat if len(flat) <= SQL_CHARS else flat[:SQL_CHARS] + " …"
