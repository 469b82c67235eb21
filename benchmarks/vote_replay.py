"""auto's escalation replayed on recorded candidates (no model): which framing differs from the first answer when
it is wrong, and what other vote rules would have answered.

Every committed `auto` run records, for each escalated question, the candidates it voted on in order (the first
draft, the second cheap framing, then one per escalation step: `auto_path` names the steps) and whether each is
right. Each candidate's SQL is run again on its database (a Context with the profiled catalog, as auto runs it),
checked with the findings auto decides on (`selection.checks.settled_findings`) and grouped by its rows, so the
vote can be replayed exactly: the current rule is auto's own (`pipelines.auto._groups` and `_rank`), and the
replay states how many recorded answers it reproduces.

- **Framings**: per framing after the first, how often its rows differ from the first answer's, split by whether
  the first answer was right and whether the framing's is (issue 44, item 4: where a second call pays).
- **Vote rules**: the answers each alternative rule would give on the same candidates, won and lost against the
  current rule. `majority3`: a lone clean candidate does not lead a group of three or more candidates of two
  framings or more that all ran with rows and agree (every one of them flagged); `no_findings_step`: the
  candidate of the `findings` step (a repair told the findings) left out, as if that step were off.

    python benchmarks/vote_replay.py --runs train/auto@86ce8a4,dev/auto@86ce8a4
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
RUNS = REPO / "benchmarks" / "results" / "generalization" / "runs"
OUT = REPO / "benchmarks" / "results" / "vote_replay" / "vote_replay.md"
SPLITS = {"train": DATA / "spider_train", "dev": DATA / "spider"}
DEFAULT_RUNS = ("train/auto@86ce8a4", "dev/auto@86ce8a4")
RULES = ("majority3", "no_findings_step")
#: the least number of agreeing flagged candidates `majority3` lets lead over a lone clean one
MAJORITY = 3


@dataclass
class Replayed:
    """One escalated question: its candidates re-run (in the recorded order) and their findings."""

    id: int
    db_id: str
    recorded_sql: str
    candidates: list[Any]
    correct: dict[int, bool]
    findings: dict[int, list] = field(default_factory=dict)


def replay_run(run: str, runs_dir: Path = RUNS) -> list[Replayed]:
    """The escalated questions of one run (`SPLIT/LABEL@COMMIT` under `runs_dir`)."""
    from groundsql.catalog import build_catalog
    from groundsql.context import Context
    from groundsql.db import Database
    from groundsql.evaluation.datasets import load_dataset
    from groundsql.generation.refinement import execute_candidate
    from groundsql.models import ScriptedModel
    from groundsql.selection.checks import settled_findings

    split = run.split("/", 1)[0]
    paths = {q.db_id: q.db_path for q in load_dataset(SPLITS[split]).questions if q.db_path is not None}
    catalogs: dict[str, Any] = {}
    out = []
    for line in (runs_dir / run / "results.jsonl").read_text().splitlines():
        record = json.loads(line) if line.strip() else None
        if not record or "escalated" not in (record.get("auto_path") or []) or not record.get("candidates"):
            continue
        path = paths[record["db_id"]]
        if record["db_id"] not in catalogs:
            catalogs.clear()  # questions come grouped by database
            catalogs[record["db_id"]] = build_catalog(Database(str(path)))
        ctx = Context(question=record["question"], db=Database(str(path)), models={"default": ScriptedModel([])},
                      catalog=catalogs[record["db_id"]])
        steps = [step.split(":", 1)[1] for step in record["auto_path"] if step.startswith("escalate:")]
        second = [k for k in record.get("stages") or {} if k not in ("direct", "escalated", "final")]
        sources = ["direct", *second[:1], *steps]
        item = Replayed(record["id"], record["db_id"], record["sql"], [], {})
        for index, recorded in enumerate(record["candidates"]):
            source = sources[index] if index < len(sources) else f"extra{index}"
            candidate = execute_candidate(ctx, recorded["sql"], source=source)
            item.candidates.append(candidate)
            item.correct[id(candidate)] = bool(recorded.get("correct"))
            item.findings[id(candidate)] = settled_findings(ctx, candidate) if candidate.ok else []
        out.append(item)
    return out


def choose(item: Replayed, rule: str = "current") -> Any:
    """The candidate the vote picks under `rule` (`current`: auto's own ordering)."""
    from groundsql.pipelines.auto import _clean, _framing, _groups, _rank

    candidates = item.candidates
    if rule == "no_findings_step":
        candidates = [c for c in candidates if c.source != "findings"] or candidates
    groups = _groups(candidates, item.findings)
    if rule == "majority3" and len(groups[0]) == 1 and _clean(groups[0][0], item.findings[id(groups[0][0])]):
        for group in groups[1:]:
            if len(group) >= MAJORITY and len({_framing(c) for c in group}) >= 2 \
                    and all(c.ok and c.result.row_count for c in group):
                groups = [group] + [g for g in groups if g is not group]
                break
    return max(groups[0], key=lambda c: _rank(c, item.findings[id(c)]))


def framing_table(items: list[Replayed]) -> dict[str, Counter]:
    """Per framing after the first: (first right?, differs?, right?) counts."""
    from groundsql.selection.grouping import result_key

    def key(candidate: Any) -> Any:
        return ("rows", result_key(candidate.result)) if candidate.ok else ("failed", id(candidate))

    table: dict[str, Counter] = defaultdict(Counter)
    for item in items:
        first = item.candidates[0]
        for candidate in item.candidates[1:]:
            table[candidate.source][(item.correct[id(first)], key(candidate) != key(first),
                                     item.correct[id(candidate)])] += 1
    return table


def write_report(results: dict[str, list[Replayed]], command: str, commit: str, out: Path) -> None:
    lines = ["# auto's escalation replayed on recorded candidates", "",
             "Written by `benchmarks/vote_replay.py` (no model): every escalated question of each run, its "
             "recorded candidates run again and checked, the vote replayed with auto's own rule and with the "
             "alternatives below. *reproduces*: recorded answers the current rule picks again (a run recorded at "
             "older code can differ where its checks did).", "",
             f"Command: `{command}` (code at `{commit}`, {date.today().isoformat()}).", "",
             "## Vote rules", "",
             "| run | escalated | reproduces | right now | " + " | ".join(f"{r}: right, won / lost" for r in RULES)
             + " |", "|---|---:|---:|---:|" + "---|" * len(RULES)]
    changes: dict[str, dict[str, list[str]]] = {}
    plot: dict[str, dict[str, tuple[int, int]]] = {}
    for run, items in results.items():
        current = [choose(i) for i in items]
        reproduced = sum(c.sql == i.recorded_sql for c, i in zip(current, items))
        row = [run, str(len(items)), str(reproduced), str(sum(i.correct[id(c)] for c, i in zip(current, items)))]
        changes[run] = {}
        plot[run] = {}
        for rule in RULES:
            picked = [choose(i, rule) for i in items]
            won = [str(i.id) for c, p, i in zip(current, picked, items) if not i.correct[id(c)] and i.correct[id(p)]]
            lost = [str(i.id) for c, p, i in zip(current, picked, items) if i.correct[id(c)] and not i.correct[id(p)]]
            changes[run][rule] = [f"+{x}" for x in won] + [f"−{x}" for x in lost]
            plot[run][rule] = (len(won), len(lost))
            row.append(f"{sum(i.correct[id(p)] for p, i in zip(picked, items))}, {len(won)} / {len(lost)}")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Questions each rule changes (+ made right, − made wrong; ids of the run's split):", ""]
    for run, by_rule in changes.items():
        for rule, ids in by_rule.items():
            lines.append(f"- {run}, {rule}: {', '.join(ids) or 'none'}")
    lines += ["", "## Framings: where a later candidate differs from the first answer", "",
              "Per run and framing: of the escalated questions whose first answer was right, how often the framing "
              "returned other rows (and was wrong, or also right); of those whose first answer was wrong, how "
              "often it returned other rows and was right.", "",
              "| run | framing | first right | differs, wrong | differs, right | first wrong | differs, right "
              "| differs, wrong |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for run, items in results.items():
        for source, counts in sorted(framing_table(items).items()):
            right = sum(v for (first, _, _), v in counts.items() if first)
            wrong = sum(v for (first, _, _), v in counts.items() if not first)
            lines.append(f"| {run} | {source} | {right} | {counts[(True, True, False)]} | "
                         f"{counts[(True, True, True)]} | {wrong} | {counts[(False, True, True)]} | "
                         f"{counts[(False, True, False)]} |")
    _plot(plot, out.with_suffix(".png"))
    lines[lines.index("## Vote rules") + 1:lines.index("## Vote rules") + 1] = ["", f"![right answers per rule]({out.with_suffix('.png').name})"]
    notes = out.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1] if out.exists() and NOTES_MARKER in \
        out.read_text(encoding="utf-8") else "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n\n" + NOTES_MARKER + notes, encoding="utf-8")


def _plot(plot: dict[str, dict[str, tuple[int, int]]], path: Path) -> None:
    """Per run and rule: answers it would make right (right of zero) and make wrong (left of zero)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = list(plot)
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.8 * len(runs)))
    height = 0.8 / len(RULES)
    for k, rule in enumerate(RULES):
        ys = [i + k * height for i in range(len(runs))]
        bars = ax.barh(ys, [plot[r][rule][0] for r in runs], height=height, label=f"{rule}: made right")
        ax.barh(ys, [-plot[r][rule][1] for r in runs], height=height, color=bars[0].get_facecolor(), alpha=0.45,
                label=f"{rule}: made wrong")
    ax.set_yticks([i + height * (len(RULES) - 1) / 2 for i in range(len(runs))], runs)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("escalated answers the rule changes (← made wrong | made right →)")
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


NOTES_MARKER = "<!-- reading: written by hand, kept when the tables above are regenerated -->"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=",".join(DEFAULT_RUNS),
                        help="runs under benchmarks/results/generalization/runs, as SPLIT/LABEL@COMMIT, comma-separated")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "src"))
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    missing = [r for r in runs if not (RUNS / r / "results.jsonl").is_file()]
    if missing:
        print(f"error: no recorded run {', '.join(missing)} under {RUNS}", file=sys.stderr)
        return 2
    from provenance import current_commit

    results = {run: replay_run(run) for run in runs}
    command = "python benchmarks/vote_replay.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    write_report(results, command.strip(), current_commit(), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
