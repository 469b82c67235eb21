"""Result voting, WMA/RWMA weights on disk, the judge and confidence, on real query results."""

from __future__ import annotations

import json

import pytest

from groundsql.answer import Candidate
from groundsql.context import Context
from groundsql.db import Database, Result
from groundsql.errors import ConfigError
from groundsql.models import ScriptedModel
from groundsql.selection import WeightStore, confidence, learn, paper_epsilon, select, vote
from groundsql.selection.grouping import group_candidates, result_key
from groundsql.selection.judge import parse_choice

pytestmark = pytest.mark.unit


def _ok(rows, expert="a", sql=None) -> Candidate:
    return Candidate(sql=sql or f"SELECT {rows!r}", result=Result(columns=["x"], rows=rows), expert=expert)


def _bad(sql="SELECT nope", expert="a") -> Candidate:
    return Candidate(sql=sql, error="no such column: nope", expert=expert)


def test_result_key_ignores_order_names_and_number_types():
    a = Result(columns=["a", "b"], rows=[(1, "x"), (2.0, "y")])
    b = Result(columns=["c", "d"], rows=[(2, "y"), (1.0000000001, "x")])
    assert result_key(a) == result_key(b)
    assert result_key(a) != result_key(Result(columns=["a"], rows=[(1, "x")]))


def test_groups_by_result_and_failures_by_sql():
    groups = group_candidates([_ok([(1,)], sql="A"), _ok([(1,)], sql="B"), _bad(), _bad(), _bad("SELECT other")])
    assert [len(g.candidates) for g in groups] == [2, 2, 1]


def test_majority_prefers_working_candidates_over_more_numerous_failures():
    result = vote([_bad(), _bad(), _bad(), _ok([(3,)])])
    assert result.winner.ok and result.share == 0.25


def test_majority_with_only_failures_still_picks_one():
    assert not vote([_bad("SELECT a"), _bad("SELECT b"), _bad("SELECT b")]).winner.ok


def test_ties_are_reported_and_non_empty_wins_the_order():
    result = vote([_ok([], sql="E"), _ok([(1,)], sql="F")])
    assert len(result.tied) == 2 and result.winner.representative.sql == "F"


def test_wma_uses_expert_weights_shared_across_an_experts_samples():
    candidates = [_ok([(1,)], "a"), _ok([(1,)], "a"), _ok([(2,)], "b")]
    assert vote(candidates, method="majority").winner.representative.result.rows == [(1,)]
    weighted = vote(candidates, method="wma", expert_weights={"a": 0.4, "b": 0.6})
    assert weighted.winner.representative.result.rows == [(2,)]
    assert weighted.total == pytest.approx(1.0)


def test_rwma_draws_by_weight_and_is_reproducible():
    candidates = [_ok([(1,)], "a"), _ok([(2,)], "b")]
    weights = {"a": 0.01, "b": 0.99}
    draws = [vote(candidates, method="rwma", expert_weights=weights, seed=s).winner.representative.result.rows
             for s in range(50)]
    assert draws.count([(2,)]) > 40
    assert vote(candidates, method="rwma", seed=3).winner is not None
    first = vote(candidates, method="rwma", expert_weights=weights, seed=7).winner.representative.sql
    assert vote(candidates, method="rwma", expert_weights=weights, seed=7).winner.representative.sql == first


def test_unknown_method_and_empty_input_are_rejected():
    with pytest.raises(ConfigError):
        vote([_ok([(1,)])], method="plurality")
    with pytest.raises(ConfigError):
        vote([])


def test_paper_epsilon():
    assert paper_epsilon(1, 10) == 0.01
    assert paper_epsilon(4, 1) == 0.5
    assert paper_epsilon(2, 100) == pytest.approx((0.6931471805599453 / 100) ** 0.5)


def test_weights_persist_with_history(tmp_path):
    store = WeightStore(tmp_path / "w.json")
    store.record(["a", "b"], {"a": True, "b": False}, epsilon=0.5, label="q1")
    pool = store.record(["b", "a"], {"a": True, "b": True}, epsilon=0.5, label="q2")
    assert pool.experts == {"a": 0.25, "b": 0.5} and pool.rounds == 2 and pool.mistakes == {"a": 2, "b": 1}
    again = WeightStore(tmp_path / "w.json").load(["a", "b"])
    assert again.experts == {"a": 0.25, "b": 0.5}
    assert [h["label"] for h in again.history] == ["q1", "q2"]
    assert json.loads((tmp_path / "w.json").read_text())["version"] == 1
    assert WeightStore(tmp_path / "w.json").load(["a", "c"]).experts == {"a": 1.0, "c": 1.0}  # another pool


def test_corrupt_weight_file_is_a_config_error(tmp_path):
    (tmp_path / "w.json").write_text("{not json")
    with pytest.raises(ConfigError, match="delete the file"):
        WeightStore(tmp_path / "w.json").load(["a"])


def test_confidence():
    assert confidence(vote([_ok([(1,)]), _ok([(1,)]), _ok([(2,)])])) == pytest.approx(0.667, abs=1e-3)
    assert confidence(vote([_ok([(1,)])])) == 0.6  # one candidate is capped
    assert confidence(vote([_bad()])) == 0.0
    assert confidence(vote([_ok([]), _ok([])])) == pytest.approx(0.6)
    tie = vote([_ok([(1,)]), _ok([(2,)])])
    assert confidence(tie, judged=True) > confidence(tie)


@pytest.mark.parametrize("reply, count, expected", [
    ("2", 3, 1), ("Candidate 3 is best", 3, 2), ("I pick 7, no, 1", 3, 0), ("none", 2, None), ("0", 2, None)])
def test_parse_choice(reply, count, expected):
    assert parse_choice(reply, count) == expected


def _ctx(music_db, replies, gold_sql=None, **options):
    return Context(question="Which singers are from France?", db=Database(str(music_db)),
                   models={"default": ScriptedModel(replies)}, options=options, gold_sql=gold_sql)


@pytest.mark.integration
def test_select_asks_the_judge_on_a_tie(music_db):
    ctx = _ctx(music_db, ["Candidate 2"])
    db = ctx.db
    first = Candidate(sql="SELECT name FROM singer", result=db.execute("SELECT name FROM singer"), expert="m")
    second_sql = "SELECT name FROM singer WHERE country = 'France'"
    second = Candidate(sql=second_sql, result=db.execute(second_sql), expert="m")
    chosen = select(ctx, [first, second])
    assert chosen.judged and chosen.chosen.sql == second_sql
    assert "Candidate 2:" in ctx.model().calls[0]["messages"][0]["content"]
    assert ctx.trace.notes("vote")[0]["judged"] is True


@pytest.mark.integration
def test_learn_from_gold_and_from_execution(music_db, tmp_path):
    store = WeightStore(tmp_path / "w.json")
    gold = "SELECT name FROM singer WHERE country = 'France'"
    ctx = _ctx(music_db, [], gold_sql=gold, epsilon=0.5)
    right = Candidate(sql=gold, result=ctx.db.execute(gold), expert="good")
    wrong = Candidate(sql="SELECT name FROM singer", result=ctx.db.execute("SELECT name FROM singer"), expert="bad")
    pool = learn(ctx, [right, wrong], store=store)
    assert pool.experts == {"good": 1.0, "bad": 0.5}
    ctx = _ctx(music_db, [], epsilon=0.5)
    pool = learn(ctx, [right, _bad(expert="bad")], store=store)
    assert pool.experts == {"good": 1.0, "bad": 0.25}
    assert learn(ctx, [right], store=store) is None  # one expert: nothing to learn
