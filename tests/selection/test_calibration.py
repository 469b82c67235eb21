"""The confidence model: its literal and complexity signals read from the SQL tree, its fitted weights, and the
fit script that writes them (on records of a real evaluation run of real SQLite files, no model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from groundsql.selection.calibration import Signals, compared_literals, confidence, features, weights


@pytest.mark.unit
@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT name FROM singer WHERE country = 'France' AND age > 20", (1, 1)),
    ("SELECT name FROM singer WHERE country IN ('France', 'Spain')", (2, 0)),
    ("SELECT name FROM singer WHERE age BETWEEN 20 AND 30 ORDER BY age LIMIT 3", (0, 2)),
    ("SELECT 'a' || name, 1 FROM singer LIMIT 5", (0, 0)),  # output literals and LIMIT are not filters
    ("SELECT name FROM singer WHERE name LIKE '%an%' AND -age < -(20)", (1, 1)),
    ("SELECT count(*) FROM singer AS s JOIN concert AS c ON s.id = c.singer_id HAVING count(*) >= 2", (0, 1)),
    ("not sql at all (", (0, 0)),
])
def test_compared_literals_counts_the_filters_only(sql: str, expected: tuple[int, int]) -> None:
    assert compared_literals(sql, "sqlite") == expected


@pytest.mark.unit
def test_confidence_is_a_probability_that_orders_the_signals() -> None:
    fitted = weights()
    assert "bias" in fitted and set(fitted) - {"bias"} <= set(features(Signals(ran=True, rows=True)))
    agreed = confidence(Signals(ran=True, rows=True, agree=True))
    disagreed = confidence(Signals(ran=True, rows=True, agree=False))
    flagged = confidence(Signals(ran=True, rows=True, agree=True, findings=2))
    empty = confidence(Signals(ran=True, rows=False, agree=True))
    assert 0.0 < flagged < agreed <= 1.0 and disagreed < agreed
    assert empty < agreed and confidence(Signals(ran=False, rows=False, agree=True)) == 0.0


@pytest.mark.unit
def test_an_answer_reached_through_escalation_stays_below_the_confident_band() -> None:
    from groundsql.selection.calibration import ESCALATED_CEILING

    agreed = Signals(ran=True, rows=True, agree=True, support=1.0, candidates=4)
    assert confidence(agreed) >= 0.8  # the same signals without escalation are confident
    escalated = Signals(ran=True, rows=True, agree=True, support=1.0, candidates=4, escalated=True)
    assert confidence(escalated) == ESCALATED_CEILING < 0.8
    weak = Signals(ran=True, rows=False, agree=False, findings=2, escalated=True)
    assert confidence(weak) == confidence(Signals(ran=True, rows=False, agree=False, findings=2))  # below: as is


@pytest.mark.integration
def test_the_fit_script_refits_the_weights_from_recorded_answers(tmp_path: Path) -> None:
    """Records of two databases, right where the answers agree and wrong where they do not: the fit learns that
    agreement is worth trusting, reports held-out figures, and writes weights the module can read."""
    repo = Path(__file__).resolve().parents[2]
    run = tmp_path / "auto__m__n8_seed1"
    run.mkdir()
    records = []
    for i in range(40):
        agree = i % 4 != 0
        records.append({"id": i, "db_id": f"db{i % 2}", "question": "q", "sql": "SELECT name FROM t",
                        "correct": agree if i % 10 else not agree, "confidence": 0.85 if agree else 0.3,
                        "signals": Signals(ran=True, rows=True, agree=agree, candidates=2).to_dict()})
    (run / "results.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    weights_file = tmp_path / "weights.json"
    script = (f"import sys; sys.argv = {['fit', '--runs', str(run), '--write', '--out', str(tmp_path / 'c.md')]!r}\n"
              "import groundsql.selection.calibration as c\n"
              f"c.WEIGHTS_FILE = __import__('pathlib').Path({str(weights_file)!r})\n"
              f"sys.path.insert(0, {str(repo / 'benchmarks')!r})\n"
              "import calibration_fit; raise SystemExit(calibration_fit.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    fitted = json.loads(weights_file.read_text())["weights"]
    assert fitted["agree"] > 0.5 and fitted["disagree"] == -2.0  # agreement pays; the disagreement weight is fixed
    report = (tmp_path / "c.md").read_text()
    assert "held out" in report and "| all | held out | 40 |" in report
    assert (tmp_path / "c.png").stat().st_size > 1000


@pytest.mark.unit
def test_the_first_drafts_likelihood_is_a_signal() -> None:
    """The likelihood comes from the run's first `generate` call on the trace (not a later repair's), and a
    draft the model was less sure of scores lower under a weight that penalises doubt."""
    from groundsql.answer import Candidate
    from groundsql.db.result import Result
    from groundsql.selection.calibration import draft_likelihood, signals_for
    from groundsql.trace import ModelCall, Trace

    trace = Trace()
    assert draft_likelihood(trace) is None
    trace.add(ModelCall(role="generator", model="m", step="link", prompt_tokens=1, completion_tokens=1,
                        latency_s=0.0, likelihoods=[{"mean": -0.9, "least": -6.0, "tokens": 3}]))
    trace.add(ModelCall(role="generator", model="m", step="generate", prompt_tokens=1, completion_tokens=1,
                        latency_s=0.0, likelihoods=[{"mean": -0.2, "least": -3.0, "tokens": 9, "content_mean": -0.1,
                                                     "content_least": -0.9}]))
    trace.add(ModelCall(role="generator", model="m", step="generate", prompt_tokens=1, completion_tokens=1,
                        latency_s=0.0, likelihoods=[{"mean": -1.5, "least": -8.0, "tokens": 9}]))
    candidate = Candidate(sql="SELECT name FROM singer", result=Result(columns=["name"], rows=[("a",)]))
    signals = signals_for(candidate, trace=trace)
    assert (signals.draft_logprob, signals.draft_least) == (-0.2, -3.0)
    assert (signals.draft_content_logprob, signals.draft_content_least) == (-0.1, -0.9)
    assert features(signals)["draft_sure"] == 0.0  # one token at -3.0: not sure
    sure = Signals(ran=True, rows=True, draft_logprob=-0.05, draft_least=-0.4)
    assert features(sure)["draft_sure"] == 1.0
    assert signals_for(candidate).draft_logprob is None and features(signals_for(candidate))["draft_sure"] == 0.0
    assert confidence(sure) > confidence(signals)  # the fitted weights trust a sure draft more
