"""benchmarks/linking.py --after: a chain's later stage starts from the subsets a recorded run kept, on the real
Spider dev databases, with the recorded stage's cost added to each record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import linking

pytestmark = pytest.mark.integration

SPIDER = linking.DATA / "spider"


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    if not (SPIDER / "dev.json").is_file():
        pytest.skip("the Spider dev split (../shared/data/spider) is not here")
    path = tmp_path / "first.jsonl"
    assert linking.main(["--dataset", str(SPIDER), "--n", "3", "--linkers", "full", "--jsonl", str(path)]) == 0
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 3
    for record in records:  # the recorded stage kept one table with one column, at a cost
        table = sorted(record["linked"])[0]
        record.update(linked={table: record["linked"][table][:1]}, llm_calls=7, tokens=700, seconds=5.0)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_next_stage_starts_from_the_recorded_subset_and_adds_its_cost(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "after.jsonl"
    assert linking.main(["--dataset", str(SPIDER), "--n", "3", "--linkers", "full", "--after", f"{recorded}=full",
                         "--jsonl", str(out)]) == 0
    first = {r["id"]: r for r in map(json.loads, recorded.read_text().splitlines())}
    after = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(after) == 3
    for record in after:
        assert record["linker"] == "full + full" and record["after"] == "full"
        kept = first[record["id"]]["linked"]
        assert set(record["linked"]) == set(kept)  # `full` keeps the tables the previous stage kept, no other
        assert all(set(columns) <= set(record["linked"][table]) for table, columns in kept.items())
        assert record["llm_calls"] == 7 and record["tokens"] == 700 and record["seconds"] >= 5.0


def test_a_linker_label_the_file_does_not_hold_is_refused(recorded: Path) -> None:
    with pytest.raises(SystemExit, match="no records of linker 'apex'"):
        linking.main(["--dataset", str(SPIDER), "--n", "3", "--linkers", "full", "--after", f"{recorded}=apex"])


def test_training_questions_over_the_large_schema(tmp_path: Path) -> None:
    if not (SPIDER / "dev.json").is_file() or not (linking.DATA / "spider_train" / "train_spider.json").is_file():
        pytest.skip("the Spider dev and training splits (../shared/data) are not here")
    large, out = tmp_path / "large", tmp_path / "train.jsonl"
    assert linking.main(["--large", "--large-dir", str(large), "--train-questions", "1,2,7", "--n", "4",
                         "--linkers", "full", "--no-catalog", "--jsonl", str(out)]) == 0
    questions = json.loads((tmp_path / "large_train_1_2_7" / "dev.json").read_text())
    train = {(q["db_id"], q["question"]) for q in json.loads(
        (linking.DATA / "spider_train" / "train_spider.json").read_text())}
    assert len(questions) == 10 and all((q["source_db_id"], q["question"]) in train for q in questions)
    assert all(f'"{q["source_db_id"]}__' in q["query"] for q in questions)  # gold tables carry their database
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(r["scores"]["table"]["srr"] == 1.0 for r in records)  # full keeps all 797
    assert {r["question"] for r in records} <= {q["question"] for q in questions}


def test_parts_split_one_sample_between_processes(tmp_path: Path) -> None:
    if not (SPIDER / "dev.json").is_file():
        pytest.skip("the Spider dev split (../shared/data/spider) is not here")
    whole, first, second = (tmp_path / f"{name}.jsonl" for name in ("whole", "first", "second"))
    common = ["--dataset", str(SPIDER), "--n", "5", "--linkers", "full", "--no-catalog"]
    assert linking.main([*common, "--jsonl", str(whole)]) == 0
    assert linking.main([*common, "--part", "0/2", "--jsonl", str(first)]) == 0
    assert linking.main([*common, "--part", "1/2", "--jsonl", str(second)]) == 0

    def ids(path: Path) -> list:
        return [json.loads(line)["id"] for line in path.read_text().splitlines()]

    assert ids(first) == ids(whole)[0::2] and ids(second) == ids(whole)[1::2]
