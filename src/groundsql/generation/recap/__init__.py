"""ReCAPAgent-SQL's agents (§3.3, Table 1), one module each, and the loop that runs them:

| agent | module | runs |
|---|---|---|
| knowledge retriever | `knowledge` | before planning |
| planner (plan + expected output format) | `planner` | after knowledge; again after a plan critique or a re-link |
| plan critique | `plan_critique` | right after each plan, up to `plan_critique_rounds` |
| syntax retriever | `syntax` | after planning, when the model asks for notes |
| action agent (run_sql / inspect / terminate) | `action` | each step of the loop |
| SQL critique | `sql_critique` | after each answer query |
| self-refiner | `self_refiner` | on an execution error or an empty result |
| schema linker | `schema_linker` | on a table- or column-not-found error |
| validator | `validator` | after a query that runs; a pass ends the loop |
"""

from groundsql.generation.recap.loop import AgentRoles, RecapLoopOptions, RecapRun, solve

__all__ = ["AgentRoles", "RecapLoopOptions", "RecapRun", "solve"]
