"""AgentNLQ's online half: schema context under a budget, an immutable task ledger, a progress ledger, and an
orchestrator that runs a fast loop (itself) and escalates to a slow loop (the SQL generator agent).

One job per module: `structured` (JSON replies checked with pydantic), `schema_context` (whole schema or
retrieval, by budget), `domain_notes` (business rules and dialect notes), `task_ledger` (the fact sheet),
`progress_ledger` (attempts and their feedback), `feedback` (execution-grounded verdicts), `history`
(pruning and structured compression), `generator_agent` (the slow loop), `orchestrator` (the state machine).
"""
