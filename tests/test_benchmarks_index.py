"""benchmarks/README.md, benchmarks/registry.py and benchmarks/results/ name the same benchmarks; the entry point runs
them by name; a report never mixes commits without saying so on each row."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.provenance import (
    MixedCommits,
    check_row_commits,
    commit_of_run,
    current_commit,
    label_if_mixed,
)
from benchmarks.registry import BENCHMARKS, README, RESULTS, readme_rows

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
#: names a result may not carry: the round and sitting that made it (round3s5, engines_s6, s3 …)
ROUND_NAME = re.compile(r"round\d|(^|_)s\d+($|_)")


def test_every_results_folder_has_a_readme_row_and_every_row_a_folder() -> None:
    folders = {p.name for p in RESULTS.iterdir() if p.is_dir()}
    rows = [row["name"] for row in readme_rows()]
    assert len(rows) == len(set(rows)), "a benchmark has two rows in benchmarks/README.md"
    assert sorted(folders - set(rows)) == [], "benchmark folders without a row in benchmarks/README.md"
    assert sorted(set(rows) - folders) == [], "rows of benchmarks/README.md without a folder in benchmarks/results"


def test_results_holds_only_benchmark_folders() -> None:
    assert sorted(p.name for p in RESULTS.iterdir() if not p.is_dir()) == [], "a report belongs in its benchmark's folder"


def test_the_registry_names_the_same_benchmarks_and_their_scripts_and_reports_exist() -> None:
    assert set(BENCHMARKS) == {row["name"] for row in readme_rows()}
    for benchmark in BENCHMARKS.values():
        assert (benchmark.folder / benchmark.report).is_file(), f"{benchmark.name}: no {benchmark.report}"
        for step in benchmark.steps:
            assert (REPO / "benchmarks" / step.script).is_file(), f"{benchmark.name}: no {step.script}"


def test_every_row_says_what_it_measures_how_to_run_it_its_figure_and_its_time() -> None:
    for row in readme_rows():
        assert row["command"] == f"`python -m benchmarks {row['name']}`", row["name"]
        assert f"(results/{row['name']}/)" in row["benchmark"], f"{row['name']}: the name links to its folder"
        for column in ("what it measures", "current figure (commit, date)", "time on 2 cores"):
            assert row.get(column, "").strip(), f"{row['name']}: empty '{column}'"
        assert re.search(r"20\d\d-\d\d-\d\d", row["current figure (commit, date)"]), f"{row['name']}: no date"


def test_nothing_in_results_is_named_by_round_or_sitting() -> None:
    named = [str(p.relative_to(RESULTS)) for p in RESULTS.rglob("*") if ROUND_NAME.search(p.name)]
    assert named == []
    old_folder = re.compile(r"round3(s\d+)?_|round3s\d|engines_s\d")  # the names the folders had before
    cited = [str(p.relative_to(RESULTS)) for p in RESULTS.rglob("*") if p.suffix in (".md", ".txt", ".jsonl")
             and old_folder.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert cited == []


def test_report_links_and_run_paths_resolve() -> None:
    """A report's links to plots and files beside it, and the benchmarks/results/… paths reports and docs cite."""
    cited = re.compile(r"benchmarks/results/[A-Za-z0-9_./-]*[A-Za-z0-9_/]")
    texts = [*RESULTS.glob("*/*.md"), *RESULTS.glob("*/runs_*/*.md"), README, REPO / "README.md",
             *(REPO / "docs").glob("*.md")]
    missing = []
    for path in texts:
        text = path.read_text(encoding="utf-8")
        for link in re.findall(r"\]\(([^)#\s]+)\)", text):
            if "://" not in link and not (path.parent / link).exists():
                missing.append(f"{path.relative_to(REPO)}: ({link})")
        for found in cited.finditer(text):
            if text[found.start() - 1] == ":":  # `git show COMMIT:benchmarks/results/…`: a path in history
                continue
            target = REPO / found.group()
            if not target.exists() and not any(target.parent.glob(target.name + "*")):  # a run's short label
                missing.append(f"{path.relative_to(REPO)}: {found.group()}")
    assert missing == []


def test_list_prints_every_benchmark_and_an_unknown_name_is_refused() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--list"], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    for name in BENCHMARKS:
        assert f"python -m benchmarks {name}\n" in done.stdout
    assert "80.7%" in done.stdout  # the default's accuracy, from the README row
    refused = subprocess.run([sys.executable, "-m", "benchmarks", "no_such_benchmark"], cwd=REPO,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "known: accuracy" in refused.stderr


def test_a_run_forwards_options_and_is_labelled_with_its_commit(tmp_path: Path, monkeypatch) -> None:
    from benchmarks import __main__ as entry
    from benchmarks.registry import Benchmark, Step

    script = tmp_path / "probe.py"  # a script path the registry gives absolute is taken as it is
    script.write_text("import os, sys\nprint(os.environ['GROUNDSQL_BENCH_COMMIT'], *sys.argv[1:])\n")
    monkeypatch.setattr(Benchmark, "folder", property(lambda self: tmp_path / self.name))
    probe = Benchmark("probe", "a probe", (Step(str(script), ("--default",), stdout="out.md"),
                                           Step(str(script), ("--report",), forward=False, stdout="report.md")),
                      "report.md")
    assert entry.run(probe, ["--limit", "3"]) == 0
    commit = current_commit()
    assert (tmp_path / "probe" / "out.md").read_text().split() == [commit, "--default", "--limit", "3"]
    assert (tmp_path / "probe" / "report.md").read_text().split() == [commit, "--report"]
    record = (tmp_path / "probe" / "command.txt").read_text()
    assert record.startswith("python -m benchmarks probe --limit 3\n# code: " + commit)
    assert "# finished: after" in record and "exit status 0" in record


def test_the_commit_label_is_the_head_with_dirty_when_tracked_files_differ(monkeypatch) -> None:
    monkeypatch.delenv("GROUNDSQL_BENCH_COMMIT", raising=False)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert current_commit().removesuffix("-dirty") == head.stdout.strip()
    monkeypatch.setenv("GROUNDSQL_BENCH_COMMIT", "abc1234-dirty")
    assert current_commit() == "abc1234-dirty"


def test_a_report_of_one_commit_passes_and_names_it() -> None:
    assert check_row_commits([("| baseline | 72.0 |", "85585ec"), ("| auto | 82.0 |", "85585ec")]) == "85585ec"
    assert check_row_commits([]) is None


def test_rows_of_different_commits_are_refused_unless_each_names_its_own() -> None:
    with pytest.raises(MixedCommits, match="2 commits"):
        check_row_commits([("| refine | 77.3 |", "71e3cdf"), ("| auto | 80.7 |", "bd33f5f")])
    with pytest.raises(MixedCommits):  # one row silent is enough
        check_row_commits([("| refine (`71e3cdf`) | 77.3 |", "71e3cdf"), ("| auto | 80.7 |", "bd33f5f")])
    with pytest.raises(MixedCommits):  # an unknown commit beside a known one cannot be told apart
        check_row_commits([("| refine (`71e3cdf`) |", "71e3cdf"), ("| auto (`?`) |", None)])
    assert check_row_commits([("| refine (`71e3cdf`) | 77.3 |", "71e3cdf0a1b2c3"),
                              ("| auto [records in bd33f5f; catalog context on] |", "bd33f5f")]) is None


def test_mixed_labels_get_their_commit_and_then_pass_the_check() -> None:
    rows = [("sqlite", "874d69b"), ("duckdb", "9039152"), ("spark", None)]
    labels = label_if_mixed(rows)
    assert labels == ["sqlite @ 874d69b", "duckdb @ 9039152", "spark @ commit unknown"]
    with pytest.raises(MixedCommits):  # an unknown commit still cannot be vouched for
        check_row_commits(list(zip(labels, [c for _, c in rows])))
    assert check_row_commits(list(zip(label_if_mixed(rows[:2]), ["874d69b", "9039152"]))) is None
    assert label_if_mixed([("sqlite", "874d69b"), ("mariadb", "874d69b")]) == ["sqlite", "mariadb"]


def test_a_run_commit_is_read_from_its_command_file(tmp_path: Path) -> None:
    (tmp_path / "command.txt").write_text("python benchmarks/engines.py\n# machine: x\n# code: 874d69b (pinned)\n")
    assert commit_of_run(tmp_path) == "874d69b"
    (tmp_path / "command.txt").write_text("python benchmarks/engines.py\n")
    assert commit_of_run(tmp_path) is None


def test_the_engines_report_names_each_rows_commit_or_refuses(tmp_path: Path, monkeypatch) -> None:
    """Runs of two commits in one engines table: refused while one records no commit, labelled once both do."""
    import argparse
    import importlib.util
    import shutil

    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))  # the scripts import their siblings
    spec = importlib.util.spec_from_file_location("engines_benchmark", REPO / "benchmarks" / "engines.py")
    engines = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engines)
    name = "__auto_model_dialect-sqlite__local_qwen2.5-coder-1.5b__n150_seed2026"
    runs = tmp_path / "runs"
    shutil.copytree(RESULTS / "engines" / "runs" / f"sqlite{name}", runs / f"sqlite{name}")  # 874d69b
    shutil.copytree(RESULTS / "engines" / "runs_9039152" / f"duckdb{name}", runs / f"duckdb{name}")  # no commit line
    args = argparse.Namespace(n=150, seed=2026, runs_dir=runs, results=tmp_path / "report")
    with pytest.raises(ValueError, match=r"2 commits .* do not say which"):  # the script's own MixedCommits
        engines.write_results(args)
    with (runs / f"duckdb{name}" / "command.txt").open("a") as record:
        record.write("# code: 9039152\n")
    text = engines.write_results(args)
    assert "| sqlite @ 874d69b | 150 |" in text and "| duckdb @ 9039152 | 144 |" in text
