"""Where a seed method turns right answers wrong: its recorded stages, question by question, against one call.

    python benchmarks/seed_stages.py --baseline RUN_DIR --runs RUN_DIR[,RUN_DIR…] --out results/seed_stages/x.md

Every run directory is one `groundsql eval` run (`results.jsonl`); each record of a staged preset carries
`stages` (name → the SQL at that point and whether it was right: `recap`'s `first_query` (the PreSQL draft),
`loop_first`, `loop_last`, `final`; `agentnlq`'s `first_attempt`, `final`; `apex`'s `exploration`, `repaired`,
`rewritten`, `vote`). On the questions a run shares with the baseline (one call, same questions) it reports

- per stage: how many answers are right there, and how many of them the baseline got wrong or right;
- per step between consecutive stages (in the order the preset records them): answers kept right, made wrong,
  made right, kept wrong, with the ids of those made wrong and made right, so each can be read;
- with `--dataset`, a gate read from the same records: the first stage's query kept as the answer wherever it is
  *clean* (`selection.checks.settles`: it runs, returns rows, and no exact check of the current code but the
  advisory ones finds anything; `recap --option loop=flagged` keeps such a draft), the preset's final answer elsewhere. The preset's later stages run at temperature 0 on
  the same inputs, so this is what a run that starts them only for flagged drafts would answer. Also with the
  stricter *plain* gate (clean, one table, no subquery, no string literal: auto's one-call answers).

No model is called; it reads the records (and, for the gate, runs the checks on each first-stage query).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load(run: Path) -> dict[int, dict]:
    """The run's records by question id (those with a verdict)."""
    records = {}
    for line in (run / "results.jsonl").read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if record and record.get("correct") is not None:
            records[record["id"]] = record
    return records


def stage_order(records: list[dict]) -> list[str]:
    """Stage names in the order the records list them (the pipeline's order), the record with the most stages
    first (a draft kept at once records only its first and last stage)."""
    names: list[str] = []
    for record in sorted(records, key=lambda r: -len(r.get("stages") or {})):
        for name in record.get("stages") or {}:
            if name not in names:
                names.append(name)
    return names


def stage_right(record: dict, name: str) -> bool | None:
    """Whether the answer was right at stage `name`; None where the record has no such stage (the stage did not
    run for this question: a stage absent from a record carries the previous one's answer forward)."""
    stage = (record.get("stages") or {}).get(name)
    return None if stage is None else bool(stage.get("correct"))


def carried(record: dict, names: list[str]) -> list[bool | None]:
    """Right or wrong at every stage, a missing stage taking the one before it (None before the first)."""
    values: list[bool | None] = []
    last = None
    for name in names:
        value = stage_right(record, name)
        last = value if value is not None else last
        values.append(last)
    return values


def analyse(run: dict[int, dict], baseline: dict[int, dict]) -> dict:
    """Per-stage counts and per-step transitions on the questions both runs answered."""
    common = sorted(set(run) & set(baseline))
    records = [run[i] for i in common]
    names = stage_order(records)
    grid = {i: carried(run[i], names) for i in common}
    stages = []
    for k, name in enumerate(names):
        present = [i for i in common if grid[i][k] is not None]
        right = [i for i in present if grid[i][k]]
        stages.append({"stage": name, "n": len(present), "right": len(right),
                       "right_baseline_wrong": sorted(i for i in right if not baseline[i]["correct"]),
                       "wrong_baseline_right": sorted(i for i in present
                                                      if not grid[i][k] and baseline[i]["correct"])})
    steps = []
    for k in range(1, len(names)):
        pairs = [(i, grid[i][k - 1], grid[i][k]) for i in common if grid[i][k - 1] is not None]
        steps.append({"from": names[k - 1], "to": names[k], "n": len(pairs),
                      "kept_right": sum(1 for _, a, b in pairs if a and b),
                      "made_wrong": sorted(i for i, a, b in pairs if a and not b),
                      "made_right": sorted(i for i, a, b in pairs if not a and b),
                      "kept_wrong": sum(1 for _, a, b in pairs if not a and not b)})
    baseline_right = sum(1 for i in common if baseline[i]["correct"])
    return {"questions": len(common), "baseline_right": baseline_right, "stages": stages, "steps": steps}


def draft_flags(records: dict[int, dict], dataset: Path, drafts: dict[int, dict] | None = None
                ) -> dict[int, dict[str, bool]]:
    """Per question, whether its first-stage query is clean and plain under the current checks (see the module
    docstring); the checks run on the question's database through the guarded `Database.execute`."""
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.calibration import query_signals
    from groundsql.selection.checks import settles

    paths = {str(q.id): q.db_path for q in load_dataset(dataset).questions}
    catalogs: dict[str, object] = {}
    flags = {}
    for i, record in sorted(records.items()):
        path = paths.get(str(i))
        if path is None or (drafts is not None and i not in drafts):
            continue
        sql = _draft(record if drafts is None else drafts[i])[0]
        db = Database(str(path))
        if record["db_id"] not in catalogs:
            catalogs[record["db_id"]] = build_catalog(db)
        ctx = Context(question=record["question"], db=db, models={"default": ScriptedModel([])},
                      catalog=catalogs[record["db_id"]])
        candidate = execute_candidate(ctx, sql, source="draft") if sql else None
        clean = candidate is not None and settles(ctx, candidate)
        signals = query_signals(sql, record["question"], ctx.db.dialect) if clean else {}
        flags[i] = {"clean": clean, "plain": clean and signals["complexity"] == 0 and signals["literals"] == 0}
    return flags


def _draft(record: dict) -> tuple[str, bool]:
    """The record's draft and whether it was right: its first stage, or its answer when it has no stages (a
    one-call run used as the draft)."""
    stages = record.get("stages") or {}
    if stages:
        first = next(iter(stages.values()))
        return first.get("sql") or "", bool(first.get("correct"))
    return record.get("sql") or "", bool(record.get("correct"))


def gate(records: dict[int, dict], baseline: dict[int, dict], flags: dict[int, dict[str, bool]],
         drafts: dict[int, dict] | None = None) -> list[dict]:
    """Right answers under each gate on the questions both runs answered and the flags cover; the draft is each
    record's first stage, or the answer of `drafts` (another run) where given."""
    common = sorted(set(records) & set(baseline) & set(flags))
    rows = []
    for kind in ("clean", "plain"):
        kept = [i for i in common if flags[i][kind]]
        first = {i: _draft(records[i] if drafts is None else drafts[i])[1] for i in common}
        right = [i for i in common if (first[i] if i in kept else records[i]["correct"])]
        final = [i for i in common if records[i]["correct"]]
        flagged = [i for i in common if i not in kept]
        rows.append({"gate": kind, "n": len(common), "kept": len(kept), "kept_right": sum(first[i] for i in kept),
                     "flagged": len(flagged), "flagged_final_right": sum(records[i]["correct"] for i in flagged),
                     "flagged_baseline_right": sum(baseline[i]["correct"] for i in flagged),
                     "right": len(right), "final_right": len(final),
                     "baseline_right": sum(1 for i in common if baseline[i]["correct"]),
                     "won": sorted(set(right) - set(final)), "lost": sorted(set(final) - set(right))})
    return rows


def _ids(ids: list[int], limit: int = 30) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    return (shown + (f" … (+{len(ids) - limit})" if len(ids) > limit else "")) or "–"


def render(results: list[tuple[str, dict, dict[int, dict]]], baseline_name: str, command: str,
           gates: dict[str, list[dict]] | None = None, sources: dict[str, str] | None = None) -> str:
    lines = ["# Seed methods stage by stage, against one call", "",
             f"Command: `{command}`  ", f"Baseline: `{baseline_name}` (one call, the same questions).", ""]
    for name, result, records in results:
        lines += [f"## {name}", "",
                  f"{result['questions']} questions in common; the baseline answers {result['baseline_right']} "
                  "right.", "",
                  "| stage | answers | right | right, baseline wrong | wrong, baseline right |",
                  "|---|---:|---:|---|---|"]
        for stage in result["stages"]:
            lines.append(f"| {stage['stage']} | {stage['n']} | {stage['right']} | "
                         f"{len(stage['right_baseline_wrong'])}: {_ids(stage['right_baseline_wrong'])} | "
                         f"{len(stage['wrong_baseline_right'])}: {_ids(stage['wrong_baseline_right'])} |")
        lines += ["", "| step | answers | kept right | made wrong | made right | kept wrong |",
                  "|---|---:|---:|---|---|---:|"]
        for step in result["steps"]:
            lines.append(f"| {step['from']} → {step['to']} | {step['n']} | {step['kept_right']} | "
                         f"{len(step['made_wrong'])}: {_ids(step['made_wrong'])} | "
                         f"{len(step['made_right'])}: {_ids(step['made_right'])} | {step['kept_wrong']} |")
        if gates and gates.get(name):
            first = result["stages"][0]["stage"] if result["stages"] else "first stage"
            first = "the baseline's answer" if (sources or {}).get(name) == "baseline" else f"`{first}`"
            lines += ["", f"Gate: {first} kept where it is clean (or plain), the final answer elsewhere:", "",
                      "| gate | answers | draft kept | of them right | flagged: preset right / baseline right "
                      "| right | final right | baseline right | won against final | lost against final |",
                      "|---|---:|---:|---:|---|---:|---:|---:|---|---|"]
            for row in gates[name]:
                lines.append(f"| {row['gate']} | {row['n']} | {row['kept']} | {row['kept_right']} | "
                             f"{row['flagged_final_right']} / {row['flagged_baseline_right']} of {row['flagged']} | "
                             f"{row['right']} | "
                             f"{row['final_right']} | {row['baseline_right']} | {len(row['won'])}: {_ids(row['won'])} "
                             f"| {len(row['lost'])}: {_ids(row['lost'])} |")
        turned = sorted({i for step in result["steps"] for i in step["made_wrong"]})
        if turned:
            lines += ["", "Questions a step turned wrong (the question, then the SQL before and after that step):", ""]
            order = [s["stage"] for s in result["stages"]]
            for i in turned:
                record = records[i]
                lines.append(f"- **{i}** ({record['db_id']}) {record['question']}")
                for step in result["steps"]:
                    if i in step["made_wrong"]:
                        before = _stage_sql(record, order, step["from"])
                        after = _stage_sql(record, order, step["to"])
                        lines.append(f"  - {step['from']}: `{_one_line(before)}`")
                        lines.append(f"  - {step['to']}: `{_one_line(after)}`")
        lines.append("")
    return "\n".join(lines) + "\n"


def _stage_sql(record: dict, order: list[str], name: str) -> str:
    """The SQL at `name`, or at the latest earlier stage the record has."""
    stages = record.get("stages") or {}
    for candidate in reversed(order[: order.index(name) + 1]):
        if candidate in stages:
            return stages[candidate].get("sql") or ""
    return ""


def _one_line(sql: str) -> str:
    return " ".join(sql.split()).replace("`", "'")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, type=Path, help="the one-call run on the same questions")
    parser.add_argument("--runs", required=True, help="comma-separated run directories of staged presets")
    parser.add_argument("--out", type=Path, help="write the Markdown here (printed when absent)")
    parser.add_argument("--dataset", type=Path, help="the runs' dataset folder: adds the gate (runs the checks)")
    parser.add_argument("--draft", choices=("auto", "first-stage", "baseline"), default="auto",
                        help="the gate's draft: each run's first stage, the baseline's answer (a one-call draft "
                             "the preset would try first), or auto: the first stage where it is a one-call draft "
                             "(recap's `first_query`, a `draft` stage), else the baseline's answer")
    args = parser.parse_args(argv)
    baseline = load(args.baseline)
    results, gates, sources = [], {}, {}
    for run in [Path(p) for p in args.runs.split(",") if p]:
        records = load(run)
        results.append((run.name, analyse(records, baseline), records))
        if args.dataset:
            source = args.draft if args.draft != "auto" else \
                "first-stage" if stage_order(list(records.values()))[:1] in (["first_query"], ["draft"]) else "baseline"
            drafts = baseline if source == "baseline" else None
            gates[run.name] = gate(records, baseline, draft_flags(records, args.dataset, drafts), drafts)
            sources[run.name] = source
    command = "python benchmarks/seed_stages.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    text = render(results, args.baseline.name, command, gates, sources)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
