"""Every benchmark by name: the script(s) that make it, with the project's defaults, and where its report lives.

A benchmark is a folder `benchmarks/results/<name>/` holding its report (Markdown and plots) and the runs the report
reads, one row in `benchmarks/README.md`, and one `Benchmark` here. `python -m benchmarks NAME` runs its steps in
order; options given after the name go to every step that takes them (`forward=True`). Adding a benchmark: see
benchmarks/README.md ("Adding a benchmark").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
README = HERE / "README.md"
SAMPLE = "__local_qwen2.5-coder-1.5b__n150_seed2026"  # the run-folder suffix of the open Spider sample's runs


@dataclass(frozen=True)
class Step:
    """One script run: `python benchmarks/<script> *args`, with `env` set where the caller has not set it."""

    script: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    stdout: str | None = None  # file in the benchmark's folder that receives the script's standard output
    forward: bool = True  # options given after the benchmark's name are appended to this step


@dataclass(frozen=True)
class Benchmark:
    """A named benchmark: what it measures, how it is made, and what a rerun continues."""

    name: str
    measures: str
    steps: tuple[Step, ...]
    report: str  # the report's file name in the benchmark's folder
    resumes: str = "no: it runs from the start"  # what a rerun of the same command continues

    @property
    def folder(self) -> Path:
        return RESULTS / self.name


def _out(name: str, file: str | None = None) -> str:
    return f"benchmarks/results/{name}/{file or name + '.md'}"


def _accuracy_runs(name: str, *args: str, env: dict[str, str] | None = None, report_in: str = "") -> Step:
    """accuracy.py writing its runs under `<name>/runs/` and its accuracy.md into `<name>/<report_in>`."""
    return Step("accuracy.py", (*args, "--runs-dir", f"benchmarks/results/{name}/runs", "--results",
                                f"benchmarks/results/{name}/{report_in}".rstrip("/")), env=env or {})


RESUMABLE = "yes: each (preset, model, options) run continues where it stopped; delete a run's folder to measure anew"
THREADS_1 = {"GROUNDSQL_THREADS": "1"}

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in [
    Benchmark("accuracy", "execution accuracy of the presets on 150 open Spider dev questions (seed 2026)",
              (Step("accuracy.py", ("--presets", "baseline,ssev,auto"), env=THREADS_1),), "accuracy.md", RESUMABLE),
    Benchmark("ablation", "one table per seed preset: a row per switch on the same questions, beside one call and refine",
              (Step("ablation.py"),), "ablation.md",
              "yes: each row is a pinned `groundsql eval` run that continues where it stopped (its command.txt)"),
    Benchmark("analytics", "multi-step analytics questions of our own (demo shop, Chinook)",
              (Step("analytics.py", ("--presets", "ssev,prospy", "--limit", "8"), env=THREADS_1),),
              "analytics.md", RESUMABLE),
    Benchmark("apex_checks", "apex's exact rewrites replayed on recorded answers (no model)",
              (Step("apex_checks.py"),), "apex_checks.md"),
    Benchmark("auto", "the default preset against refine: accuracy, evaluated tokens, calls, latency, calibration",
              (_accuracy_runs("auto", "--presets", "refine,auto", env=THREADS_1, report_in="runs"),
               Step("auto_report.py", ("--auto", f"auto{SAMPLE}", "--others", f"refine{SAMPLE}"), forward=False)),
              "auto.md", RESUMABLE),
    Benchmark("bird_descriptions_linking", "BIRD mini-dev schema linking with and without column descriptions",
              (Step("bird_descriptions_linking.py"),),
              "bird_descriptions_linking.md"),
    Benchmark("calibration", "the confidence model's fit on the training databases and its reliability on databases "
              "a fit left out",
              (Step("calibration_fit.py", ("--runs", "benchmarks/results/generalization/runs/train/auto@bcef9bd,"
                                                     "benchmarks/results/generalization/runs/train/refine@bcef9bd")),),
              "calibration.md"),
    Benchmark("context_ablation", "Spider accuracy with and without the catalog context, dialect notes and knowledge",
              (_accuracy_runs("context_ablation", "--presets", "baseline,ssev", env=THREADS_1),
               _accuracy_runs("context_ablation", "--presets", "baseline,ssev", "--option", "catalog_context=false",
                              "--option", "knowledge=false", "--option", "dialect_notes=false", env=THREADS_1)),
              "accuracy.md", RESUMABLE),
    Benchmark("engines", "the same questions on SQLite, DuckDB, PostgreSQL, MariaDB and Spark",
              (Step("engines.py", ("--load", "--preset", "auto", "--option", "model_dialect=sqlite"), env=THREADS_1),),
              "engines.md", RESUMABLE),
    Benchmark("first_answer", "a person waiting: the first answers on the demo shop and Chinook, stage by stage",
              (Step("first_answer.py", env={"GROUNDSQL_THREADS": "2"}),), "first_answer.md"),
    Benchmark("fuzz", "generated SQL through the guard on every engine with canaries and oracles; Schemathesis over "
                      "the HTTP API; kill -9 of the server under load; a memory soak",
              (Step("fuzz.py", ("sql", "--engines", "sqlite,duckdb,files,postgres,mysql,spark", "--count", "100000")),
               Step("fuzz.py", ("api", "--requests", "10000"), forward=False),
               Step("fuzz.py", ("crash", "--restarts", "20"), forward=False),
               Step("fuzz.py", ("report",), forward=False)),
              "fuzz.md", "yes: `fuzz.py sql --start N` continues an engine's statements where a run stopped"),
    Benchmark("generalization", "accuracy, cost and calibration on Spider's training folds (where choices are made) "
                                "and the open dev split (held out); every check on the training gold queries",
              (Step("generalization.py", ("run", "--split", "train", "--preset", "auto"), env=THREADS_1),
               Step("generalization.py", ("run", "--split", "dev", "--preset", "auto"), env=THREADS_1),
               Step("generalization.py", ("gold",), forward=False),
               Step("generalization.py", ("report",), forward=False)),
              "generalization.md", RESUMABLE),
    Benchmark("fk_inference", "foreign keys inferred with the declared ones stripped",
              (Step("fk_inference.py"),), "fk_inference.md"),
    Benchmark("knowledge_use", "20 demo-shop questions that need a business rule, with and without the knowledge folder",
              (Step("knowledge_use.py", ("--conditions", "knowledge,plain"), env=THREADS_1),), "knowledge_use.md"),
    Benchmark("linking", "schema linking recall and precision per linker (Spider, the large schema)",
              (Step("linking.py", ("--linkers", "full,vector", "--n", "100", "--jsonl",
                                   _out("linking", "spider_model_free.jsonl"))),), "linking.md"),
    Benchmark("speed", "per preset: wall time, calls, evaluated and generated tokens against llama.cpp's own "
                       "throughput measured in the same run; prompt lookup off and on",
              (Step("speed.py", ("run", "--label", "current", "--presets", "baseline,recap,agentnlq,apex,prospy"),
                    env=THREADS_1),
               Step("speed.py", ("report",), forward=False)),
              "speed.md", "yes: each preset's run in a label folder continues where it stopped"),
    Benchmark("profiling", "profiling speed (a 10-million-row DuckDB table, the Spider databases)",
              (Step("profiling.py"),),
              "profiling.md"),
    Benchmark("one_call", "auto's one-call stop for sure drafts replayed on recorded answers (no model)",
              (Step("one_call_replay.py", ("--runs", "train/auto@86ce8a4,dev/auto@53e4949",
                                           "--thresholds=-0.5,-0.7,-0.8,-1.0,-1.5")),), "one_call.md"),
    Benchmark("prompt_cache", "the prompt-prefix state cache off and on: evaluated tokens and wall time",
              (Step("accuracy.py", ("--presets", "baseline,ssev", "--limit", "30", "--runs-dir",
                                    "benchmarks/results/prompt_cache/runs/off", "--results",
                                    "benchmarks/results/prompt_cache/runs/off"),
                    env={"GROUNDSQL_THREADS": "2", "GROUNDSQL_PROMPT_CACHE_MB": "0"}),
               Step("accuracy.py", ("--presets", "baseline,ssev", "--limit", "30", "--runs-dir",
                                    "benchmarks/results/prompt_cache/runs/on", "--results",
                                    "benchmarks/results/prompt_cache/runs/on"), env={"GROUNDSQL_THREADS": "2"}),
               Step("prompt_cache.py", forward=False)), "prompt_cache.md", RESUMABLE),
    Benchmark("prompt_size", "the schema section's size in tokens per prompt setting",
              (Step("prompt_size.py"),), "prompt_size.md"),
    Benchmark("sanity_checks", "result sanity checks on recorded answers (no model)",
              (Step("sanity_checks.py"),), "sanity_checks.md"),
    Benchmark("security", "attacks through the SQL guard on every engine: refused, ran, leaked",
              (Step("security.py", ("--engines", "sqlite,duckdb,postgres,mysql,spark"), stdout="security.md"),),
              "security.md"),
    Benchmark("server_load", "concurrent requests to the HTTP API on loopback",
              (Step("server_load.py"),), "server_load.md"),
    Benchmark("seed_stages", "where the seed presets turn right answers wrong, stage by stage against one call, "
                             "on training databases; the draft gate read from the same records (no model)",
              (Step("seed_stages.py", ("--baseline", "benchmarks/results/seed_stages/runs/train/baseline@80f1455",
                                       "--runs", ",".join(f"benchmarks/results/seed_stages/runs/train/{run}" for run in
                                                          ("recap@2c74ea5", "agentnlq@80f1455", "apex@80f1455",
                                                           "apex+draft@76a1234", "prospy+draft@f67654f",
                                                           "prospy+draft@fe7084b")),
                                       "--dataset", "../shared/data/spider_train",
                                       "--out", "benchmarks/results/seed_stages/seed_stages.md")),),
              "seed_stages.md", "the runs under runs/ resume with the command in their command.txt; the report "
                                "reads whatever they hold"),
    Benchmark("server_memory", "where a server soak's memory growth goes (tracemalloc, malloc, SQLite)",
              (Step("server_memory.py", ("--minutes", "5", "--warmup-minutes", "1.5", "--every-s", "20")),),
              "server_memory.md", "its report is rewritten from a kept run with --report WORK"),
    Benchmark("server_soak", "a 30-minute soak of `groundsql serve`: memory slope, p99 drift, errors",
              (Step("server_soak.py", ("--minutes", "30")),), "server_soak.md"),
    Benchmark("setup_time", "scripts/demo.sh on a fresh machine, step by step",
              (Step("setup_time.py"),), "setup_time.md"),
    Benchmark("shape_checks", "question-shape checks on recorded answers (no model)",
              (Step("shape_checks.py"),), "shape_checks.md"),
    Benchmark("spark_limits", "statements that wedge a local Spark session: time limit, memory, restart",
              (Step("spark_limits.py", ("--timeout", "5"), stdout="spark_limits.md"),), "spark_limits.md"),
    Benchmark("suite_time", "the test suite's wall time on one and two workers",
              (Step("suite_time.py", ("--workers", "1,2")),), "suite_time.md"),
    Benchmark("tree_repair", "the syntax-tree repair on recorded predictions (no model)",
              (Step("tree_repair.py"),), "tree_repair.md"),
    Benchmark("vote_replay", "auto's escalation replayed on recorded candidates: framings and vote rules (no model)",
              (Step("vote_replay.py"),), "vote_replay.md"),
    Benchmark("user_suite", "a user's own suite: the demo shop's 20 verified questions, with and without knowledge",
              (Step("user_suite.py", ("--model", "local:qwen2.5-coder-1.5b", "--presets", "baseline,refine,auto",
                                      "--conditions", "knowledge,none"), env=THREADS_1),),
              "user_suite.md", "yes: each preset and condition is a suite run that continues where it stopped"),
]}


def readme_rows(readme: Path = README) -> list[dict[str, str]]:
    """The rows of the benchmark table in benchmarks/README.md (the first table whose first column is `benchmark`),
    each as {column: cell} plus `name`: the benchmark's name, the link text or code span of the first cell."""
    import re

    lines = readme.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith("|") and _split_row(line)[0].strip().lower() == "benchmark"), None)
    if start is None:
        return []
    header = [cell.strip().lower() for cell in _split_row(lines[start])]
    rows = []
    for line in lines[start + 2:]:  # after the header and its |---| line
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in _split_row(line)]
        found = re.search(r"\[`?([A-Za-z0-9_.-]+)`?\]|`([A-Za-z0-9_.-]+)`", cells[0])
        rows.append({**dict(zip(header, cells)), "name": next(g for g in found.groups() if g) if found else cells[0]})
    return rows


def _split_row(line: str) -> list[str]:
    """A Markdown table row's cells; neither `\\|` nor a `|` inside a code span splits."""
    cells, cell, in_code, previous = [], "", False, ""
    for char in line.strip().removeprefix("|").removesuffix("|"):
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code and previous != "\\":
            cells.append(cell)
            cell = ""
        else:
            cell += char
        previous = char
    return [*cells, cell]
