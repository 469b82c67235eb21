"""Speed of the presets on the embedded model, against llama.cpp's own throughput measured in the same run.

Three steps, each resumable and each writing under benchmarks/results/speed/ (one folder per code label):

    # 1. per preset: wall time, calls, evaluated prompt tokens, generated tokens and tokens/s per question,
    #    beside llama.cpp's own prompt and generation throughput for the model (measured first, same process)
    GROUNDSQL_THREADS=1 taskset -c 1 python benchmarks/speed.py run --label 39de551 --presets apex,recap \\
        --limit 5
    # 2. prompt lookup: every recorded request replayed with and without it, in alternating order from the
    #    same KV prefix: byte-identical replies? generation tokens/s per kind of reply (SQL, JSON, text)
    GROUNDSQL_THREADS=1 taskset -c 1 python benchmarks/speed.py lookup --label 39de551 --presets baseline
    # 3. the report: speed.md and speed.png from every label folder
    python benchmarks/speed.py report

`run` records each model request (messages, sampling settings, reply) in `requests.jsonl`, so `lookup` replays
the very prompts the presets sent. The model is loaded (and llama.cpp's limit measured) before the first question,
so every question counts. Timings are only comparable within one run unless the machine is otherwise idle.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "speed"
DEFAULT_SPIDER = REPO.parent / "shared" / "data" / "spider"
NOTES_MARKER = "<!-- analysis: written by hand, kept when the tables above are regenerated -->"


# -- timing hooks -------------------------------------------------------------------------------------------


class EvalClock:
    """Times the prompt read of every completion: the first `Llama.eval` of each `Llama.generate` (patched on
    the class, so the instance wrappers of the prefix cache and prompt lookup call through it)."""

    def __init__(self) -> None:
        self.prompt_s = 0.0
        self._first = False

    def install(self) -> None:
        from llama_cpp import Llama

        clock, original_eval, original_generate = self, Llama.eval, Llama.generate

        def generate(llama: Any, *args: Any, **kwargs: Any) -> Any:
            clock._first = True
            return original_generate(llama, *args, **kwargs)

        def evaluate(llama: Any, tokens: Any) -> None:
            if not clock._first:
                return original_eval(llama, tokens)
            clock._first = False
            started = time.perf_counter()
            try:
                return original_eval(llama, tokens)
            finally:
                clock.prompt_s += time.perf_counter() - started

        Llama.generate, Llama.eval = generate, evaluate


CLOCK = EvalClock()
STEP: list[str] = [""]  # the trace step of the model call in progress (set by the patched Context.chat)


def record_steps() -> None:
    """Name each recorded call by its trace step (`Context.chat`'s first argument)."""
    from groundsql.context import Context

    original = Context.chat

    def chat(ctx: Any, step: str, *args: Any, **kwargs: Any) -> Any:
        STEP[0] = step
        return original(ctx, step, *args, **kwargs)

    Context.chat = chat


def kind_of(settings: dict[str, Any], text: str) -> str:
    """What a reply is: `json` (under a JSON schema), `sql` (a query), or `text` (a plan, a critique, notes)."""
    if settings.get("json_schema") is not None:
        return "json"
    head = text.strip().lstrip("`").removeprefix("sql").strip().lower()
    return "sql" if head.startswith(("select", "with")) else "text"


def recording_model(inner: Any) -> Any:
    """`inner` with every `complete` call recorded (request, reply, tokens, prompt and generation time)."""
    from groundsql.models.base import Model

    class Recording(Model):
        def __init__(self) -> None:
            super().__init__(timeout_s=inner.timeout_s, retry=inner.retry)
            self.spec, self.serial, self.calls = inner.spec, inner.serial, []

        def _generate(self, messages, **settings):  # never reached: complete is delegated whole
            return inner._generate(messages, **settings)

        def complete(self, messages, **settings):
            prompt_before = CLOCK.prompt_s
            stats = getattr(inner, "lookup_stats", None)
            before = (stats.batches, stats.drafted, stats.accepted) if stats is not None else (0, 0, 0)
            completion = inner.complete(messages, **settings)
            prompt_s = CLOCK.prompt_s - prompt_before
            after = (stats.batches, stats.drafted, stats.accepted) if stats is not None else (0, 0, 0)
            self.calls.append({
                "step": STEP[0], "messages": messages, "settings": settings, "texts": completion.texts,
                "kind": kind_of(settings, completion.text), "prompt_tokens": completion.prompt_tokens,
                "cached_tokens": completion.cached_tokens,
                "evaluated_tokens": completion.prompt_tokens - completion.cached_tokens,
                "completion_tokens": completion.completion_tokens, "latency_s": round(completion.latency_s, 3),
                "prompt_s": round(prompt_s, 3), "generation_s": round(max(0.0, completion.latency_s - prompt_s), 3),
                "drafts": [a - b for a, b in zip(after, before)],
            })
            return completion

        def __getattr__(self, name: str) -> Any:
            return getattr(inner, name)

    return Recording()


# -- llama.cpp's own throughput -------------------------------------------------------------------------------


def llama_limit(model: Any, *, prompt_tokens: int = 512, generate_tokens: int = 64, repeats: int = 2,
                tail_tokens: int = 64, tail_after: int = 768) -> dict:
    """llama-bench's two figures through llama-cpp-python: reading `prompt_tokens` tokens from an empty context
    in n_batch chunks (logits of the last only), and decoding `generate_tokens` tokens one at a time; and a third,
    the shape of a warm call: reading a `tail_tokens` tail after `tail_after` tokens already in the KV cache (a
    short batch deep in the context reads slower per token than a long one from the start)."""
    llama = model._load()
    text = (REPO / "src" / "groundsql" / "prompts" / "sql_system.txt").read_text(encoding="utf-8")
    spider = DEFAULT_SPIDER / "tables.json"
    if spider.exists():
        text += spider.read_text(encoding="utf-8")[:20000]
    everything = llama.tokenize(text.encode("utf-8"), add_bos=False)
    tokens = everything[:prompt_tokens]
    prefix, tail = everything[:tail_after], everything[tail_after: tail_after + tail_tokens]
    pp, tg, tails = [], [], []
    for _ in range(repeats):
        llama.reset()
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        started = time.perf_counter()
        llama.eval(tokens)
        pp.append(len(tokens) / (time.perf_counter() - started))
        if len(tail) == tail_tokens:
            llama.reset()
            llama._ctx.kv_cache_seq_rm(-1, 0, -1)
            llama.eval(prefix)
            started = time.perf_counter()
            llama.eval(tail)
            tails.append(len(tail) / (time.perf_counter() - started))
        llama.reset()
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        llama.eval(tokens[:1])
        started = time.perf_counter()
        for token in tokens[1: generate_tokens + 1]:
            llama.eval([token])
        tg.append(generate_tokens / (time.perf_counter() - started))
    llama.reset()
    llama._ctx.kv_cache_seq_rm(-1, 0, -1)
    return {"prompt_tokens": len(tokens), "generate_tokens": generate_tokens, "repeats": repeats,
            "prompt_tok_s": round(max(pp), 2), "generation_tok_s": round(max(tg), 2),
            "prompt_tok_s_all": [round(x, 2) for x in pp], "generation_tok_s_all": [round(x, 2) for x in tg]} | (
        {"tail_tokens": tail_tokens, "tail_after": tail_after, "tail_tok_s": round(max(tails), 2),
         "tail_tok_s_all": [round(x, 2) for x in tails]} if tails else {})


# -- run --------------------------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from groundsql.evaluation import evaluate
    from groundsql.models import load_model

    CLOCK.install()
    record_steps()
    label_dir = RESULTS / args.label
    label_dir.mkdir(parents=True, exist_ok=True)
    inner = load_model(args.model)
    model = recording_model(inner)
    limit_path = label_dir / "limit.json"
    limits = json.loads(limit_path.read_text()) if limit_path.exists() else []
    limits.append(llama_limit(inner) | {"when": time.strftime("%Y-%m-%d %H:%M:%S"), "model": args.model,
                                        "threads": getattr(inner, "threads", None)})
    limit_path.write_text(json.dumps(limits, indent=1))
    presets_run = [p.strip() for p in args.presets.split(",") if p.strip()]
    for preset in presets_run:  # the limit measured in the same process as the preset's questions
        (label_dir / preset).mkdir(parents=True, exist_ok=True)
        (label_dir / preset / "limit.json").write_text(json.dumps(limits[-1], indent=1))
    print(f"llama.cpp limit: {limits[-1]}", flush=True)
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(value)
        options[key] = value
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        run_dir = label_dir / preset
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "command.txt").write_text(
            f"{command_line()}\n# machine: {machine()}\n# code: {head_commit()} (label {args.label})\n",
            encoding="utf-8")
        requests = run_dir / "requests.jsonl"

        def progress(record, finished, total, _requests=requests, _preset=preset):
            with _requests.open("a", encoding="utf-8") as handle:
                for call in model.calls:
                    handle.write(json.dumps({"id": record["id"], **call}) + "\n")
            model.calls.clear()
            usage = record.get("usage") or {}
            print(f"  {_preset} [{finished}/{total}] q{record['id']} {'✓' if record.get('correct') else '✗'} "
                  f"{record.get('elapsed_s', 0):.1f}s calls={usage.get('llm_calls')} "
                  f"eval={usage.get('prompt_tokens', 0) - usage.get('cached_prompt_tokens', 0)} "
                  f"gen={usage.get('completion_tokens')}", flush=True)

        selection = {"sample": args.n, "seed": args.seed, "limit": args.limit,
                     "ids": args.ids.split(",") if args.ids else None}
        if args.warm:  # other questions of the same databases first, untimed: each schema prefix is in the cache
            warm_ids = warm_up_ids(args.dataset, selection)
            print(f"  {preset}: warm-up on {len(warm_ids)} other questions of the same databases (not recorded)",
                  flush=True)
            evaluate(args.dataset, preset=preset, model=model, out=run_dir / "warmup", options=options, report=False,
                     ids=warm_ids)
            model.calls.clear()
            shutil.rmtree(run_dir / "warmup", ignore_errors=True)
            with (run_dir / "command.txt").open("a", encoding="utf-8") as handle:
                handle.write(f"# warm: questions {','.join(warm_ids)} of the same databases answered first, untimed "
                             "(each schema prefix in the state cache, the timed questions never asked before; no "
                             "reply store)\n")
        evaluate(args.dataset, preset=preset, model=model, out=run_dir, progress=progress, options=options,
                 report=False, **selection)
    return 0


def warm_up_ids(dataset: Path, selection: dict[str, Any], per_database: int = 2) -> list[str]:
    """Ids of `per_database` other questions on each database of the timed ones: asked first, they leave each
    database's prompt prefix in the state cache without answering a timed question in advance."""
    from groundsql.evaluation.datasets import load_dataset, select

    questions = load_dataset(dataset).questions
    timed = select(select(questions, sample=selection["sample"], seed=selection["seed"]), ids=selection["ids"],
                   limit=selection["limit"])
    timed_ids, picked = {str(q.id) for q in timed}, []
    for database in dict.fromkeys(q.db_id for q in timed):
        picked += [str(q.id) for q in questions if q.db_id == database and str(q.id) not in timed_ids][:per_database]
    return picked


# -- prompt lookup A/B ---------------------------------------------------------------------------------------------


def cmd_lookup(args: argparse.Namespace) -> int:
    """Replay recorded requests with prompt lookup off and on, alternating which goes first, each from the same
    KV prefix (the second is read from where the first began), and record replies and generation times."""
    from groundsql.models import load_model
    from groundsql.models.prefix_cache import common_prefix

    CLOCK.install()
    os.environ["GROUNDSQL_PROMPT_CACHE_MB"] = "0"  # the KV prefix is managed here
    model = load_model(args.model)
    llama = model._load()
    out = RESULTS / args.label / "lookup.jsonl"
    done = {(r["preset"], r["index"]) for r in _read_jsonl(out)}
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        requests = _read_jsonl(RESULTS / (args.source or args.label) / preset / "requests.jsonl")
        if args.kinds:
            requests = [r for r in requests if r["kind"] in args.kinds.split(",")]
        for index, request in enumerate(requests[: args.max_requests]):
            if (preset, index) in done:
                continue
            settings = dict(request["settings"])
            before = llama.input_ids[: llama.n_tokens].tolist()
            order = (False, True) if index % 2 == 0 else (True, False)
            rows: dict[bool, dict[str, Any]] = {}
            keep = None
            for mode in order:
                if keep is not None:  # read the prompt again from where the first call began
                    llama.n_tokens = keep
                    llama._ctx.kv_cache_seq_rm(-1, keep, -1)
                model.prompt_lookup = mode
                stats = model.lookup_stats
                drafts = (stats.batches, stats.drafted, stats.accepted)
                prompt_before = CLOCK.prompt_s
                started = time.perf_counter()
                completion = model.complete(request["messages"], **settings)
                wall = time.perf_counter() - started
                prompt_s = CLOCK.prompt_s - prompt_before
                if keep is None:
                    prompt = llama.input_ids[: completion.prompt_tokens].tolist()
                    keep = min(common_prefix(before, prompt), completion.prompt_tokens - 1)
                rows[mode] = {"texts": completion.texts, "completion_tokens": completion.completion_tokens,
                              "prompt_s": round(prompt_s, 3), "generation_s": round(wall - prompt_s, 3),
                              "drafts": [a - b for a, b in zip((stats.batches, stats.drafted, stats.accepted),
                                                               drafts)]}
            row = {"preset": preset, "index": index, "id": request["id"], "kind": request["kind"],
                   "max_tokens": settings.get("max_tokens"), "first": "on" if order[0] else "off",
                   "same": rows[True]["texts"] == rows[False]["texts"],
                   "same_as_recorded": rows[False]["texts"] == request["texts"], "off": rows[False],
                   "on": rows[True]}
            with out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
            off, on = rows[False], rows[True]
            print(f"{preset}#{index} {request['kind']:4} same={row['same']} gen {off['completion_tokens']} tok: "
                  f"off {off['generation_s']:.2f}s on {on['generation_s']:.2f}s drafts {on['drafts']}", flush=True)
    return 0


# -- report ---------------------------------------------------------------------------------------------------------


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def preset_rows(label_dir: Path, common: dict[str, set] | None = None) -> list[dict[str, Any]]:
    """One row per preset run of a label; with `common`, only the questions every label answered."""
    rows = []
    for run_dir in sorted(p for p in label_dir.iterdir() if p.is_dir()):
        records = _read_jsonl(run_dir / "results.jsonl")
        if common is not None and run_dir.name in common:
            records = [r for r in records if r["id"] in common[run_dir.name]]
        if not records:
            continue
        calls = _read_jsonl(run_dir / "requests.jsonl")
        timed = records  # the model was loaded before the first question (by the limit measurement)
        walls = [float(r.get("elapsed_s") or 0.0) for r in timed]
        usage = [r.get("usage") or {} for r in timed]
        ids = {r["id"] for r in timed}
        mine = [c for c in calls if c["id"] in ids]
        prompt_s = sum(c["prompt_s"] for c in mine)
        gen_s = sum(c["generation_s"] for c in mine)
        evaluated = sum(c["evaluated_tokens"] for c in mine)
        generated = sum(c["completion_tokens"] for c in mine)
        n = len(timed)
        rows.append({
            "preset": run_dir.name, "n": len(records), "timed": n,
            "ex": 100.0 * sum(1 for r in records if r.get("correct")) / len(records),
            "p50": percentile(walls, 0.5), "p90": percentile(walls, 0.9),
            "calls": sum(int(u.get("llm_calls", 0)) for u in usage) / n,
            "evaluated": sum(int(u.get("prompt_tokens", 0)) - int(u.get("cached_prompt_tokens", 0))
                             for u in usage) / n,
            "generated": sum(int(u.get("completion_tokens", 0)) for u in usage) / n,
            "prompt_tok_s": evaluated / prompt_s if prompt_s else float("nan"),
            "gen_tok_s": generated / gen_s if gen_s else float("nan"),
            "model_share": (prompt_s + gen_s) / sum(walls) if sum(walls) else float("nan"),
            "ids": sorted(r["id"] for r in records),
            "limit": run_limit(label_dir, run_dir),
            "command": "\n".join((run_dir / "command.txt").read_text(encoding="utf-8").splitlines()[:3])
            if (run_dir / "command.txt").exists() else "",
        })
    return rows


def run_limit(label_dir: Path, run_dir: Path) -> dict[str, Any] | None:
    """llama.cpp's figures measured in the same process as a preset's run: its own limit.json, else the label's
    last measurement made before the run started."""
    if (run_dir / "limit.json").exists():
        return json.loads((run_dir / "limit.json").read_text())
    limits = json.loads((label_dir / "limit.json").read_text()) if (label_dir / "limit.json").exists() else []
    if not limits or not (run_dir / "command.txt").exists():
        return limits[-1] if limits else None
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime((run_dir / "command.txt").stat().st_mtime))
    before = [x for x in limits if x["when"] <= started]
    return before[-1] if before else limits[0]


def lookup_rows(label_dir: Path) -> list[dict[str, Any]]:
    rows = _read_jsonl(label_dir / "lookup.jsonl")
    table = []
    for kind in ("sql", "json", "text", "all"):
        chosen = [r for r in rows if kind in ("all", r["kind"])]
        if not chosen:
            continue
        tokens = sum(r["off"]["completion_tokens"] for r in chosen)
        off_s = sum(r["off"]["generation_s"] for r in chosen)
        on_s = sum(r["on"]["generation_s"] for r in chosen)
        drafted = sum(r["on"]["drafts"][1] for r in chosen)
        accepted = sum(r["on"]["drafts"][2] for r in chosen)
        table.append({"kind": kind, "n": len(chosen), "same": sum(1 for r in chosen if r["same"]),
                      "tokens": tokens, "off": tokens / off_s if off_s else float("nan"),
                      "on": tokens / on_s if on_s else float("nan"), "drafted": drafted, "accepted": accepted,
                      "presets": sorted({r["preset"] for r in chosen})})
    return table


def step_key(call: dict[str, Any]) -> str:
    """A call's step without its per-table or per-sample suffix ('link.verify:singer' → 'link.verify'); the
    agents' own names are kept ('recap:plan-critique')."""
    step = call.get("step") or "generate"
    parts = step.split(":")
    return ":".join(parts[:2]) if parts[0] in ("recap", "agentnlq") else parts[0]


def step_tables(labels: list[Path]) -> list[str]:
    """Per preset, per step: calls, evaluated prompt tokens and generated tokens per question, by label (on the
    questions every label of that preset answered)."""
    lines = ["## Where the tokens go, step by step", "",
             "Per question, on the questions each label answered (first question included: per-step counts do "
             "not depend on loading the model).", ""]
    presets = sorted({p.name for d in labels for p in d.iterdir() if (p / "requests.jsonl").exists()})
    for preset in presets:
        runs = {d.name: _read_jsonl(d / preset / "requests.jsonl") for d in labels
                if (d / preset / "requests.jsonl").exists()}
        if len(runs) < 1:
            continue
        common = set.intersection(*({c["id"] for c in calls} for calls in runs.values()))
        if not common:
            continue
        steps = sorted({step_key(c) for calls in runs.values() for c in calls if c["id"] in common})
        head = " | ".join(f"{label} calls | {label} read | {label} written" for label in runs)
        lines += [f"### {preset} ({len(common)} question(s): {', '.join(str(i) for i in sorted(common))})", "",
                  f"| step | {head} |", "|---|" + "---:|" * (3 * len(runs))]
        for step in [*steps, "total"]:
            cells = []
            for calls in runs.values():
                mine = [c for c in calls if c["id"] in common and step in ("total", step_key(c))]
                n = len(common)
                cells += [f"{len(mine) / n:.1f}", f"{sum(c['evaluated_tokens'] for c in mine) / n:.0f}",
                          f"{sum(c['completion_tokens'] for c in mine) / n:.0f}"]
            lines.append(f"| {step} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def cmd_report(args: argparse.Namespace) -> int:
    labels = [p for p in sorted(RESULTS.iterdir()) if p.is_dir()] if RESULTS.exists() else []
    lines = ["# Speed of the presets on the embedded model", "",
             "Per preset and code label, on the questions every label of that preset answered: wall time per question (p50/p90; the model is loaded before the first "
             "question, by the limit measurement), model calls, prompt tokens the model evaluated (not served by the KV cache) and "
             "tokens it generated per question, and the throughput reached while reading prompts and generating "
             "(summed over the calls), against llama.cpp's own figures for the model measured at the start of the "
             "same run (`llama_limit`: a 512-token prompt read from an empty context, 64 tokens decoded one at a "
             "time). Written by `benchmarks/speed.py report`.", ""]
    plot: dict[str, list[dict[str, Any]]] = {}
    every = [x for d in labels if (d / "limit.json").exists() for x in json.loads((d / "limit.json").read_text())]
    ref = (max(x["prompt_tok_s"] for x in every), max(x["generation_tok_s"] for x in every)) if every else None
    if ref:
        lines += [f"*s at the limit*: the evaluated and generated tokens per question at the best llama.cpp "
                  f"figures measured in any run ({ref[0]:.1f} prompt and {ref[1]:.1f} generated tokens/s), the "
                  "comparison that does not depend on how busy the machine was during each run.", ""]
    answered: dict[str, list[set]] = {}
    for label_dir in labels:
        for run_dir in (p for p in label_dir.iterdir() if (p / "results.jsonl").exists()):
            answered.setdefault(run_dir.name, []).append({r["id"] for r in _read_jsonl(run_dir / "results.jsonl")})
    common = {preset: set.intersection(*sets) for preset, sets in answered.items()}
    for label_dir in labels:
        shared = preset_rows(label_dir, common)
        # a label that answered more questions than every label shares also shows its own full set
        counts = {r["preset"]: r["n"] for r in shared}
        own = [r | {"preset": f"{r['preset']} (all its questions)"} for r in preset_rows(label_dir)
               if r["n"] > counts.get(r["preset"], 0)]
        rows = shared + own
        limits = json.loads((label_dir / "limit.json").read_text()) if (label_dir / "limit.json").exists() else []
        if not rows and not (label_dir / "lookup.jsonl").exists():
            continue
        plot[label_dir.name] = shared
        lines.append(f"## {label_dir.name}")
        lines.append("")
        for limit in limits:
            tail = (f", a {limit['tail_tokens']}-token tail after {limit['tail_after']} cached tokens "
                    f"{limit['tail_tok_s']:.1f} tok/s (runs {limit['tail_tok_s_all']})" if "tail_tok_s" in limit else "")
            lines.append(f"- llama.cpp limit ({limit.get('model')}, {limit.get('threads')} thread(s), "
                         f"{limit.get('when')}): prompt {limit['prompt_tok_s']:.1f} tok/s "
                         f"(runs {limit['prompt_tok_s_all']}){tail}, generation {limit['generation_tok_s']:.1f} "
                         f"tok/s (runs {limit['generation_tok_s_all']})")
        if rows:
            lines += ["", "| preset | questions | EX % | p50 s | p90 s | calls | evaluated prompt tok | "
                          "generated tok | prompt tok/s (limit, share) | generation tok/s (limit, share) | "
                          "model share of wall | s at the limit |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for r in rows:
                best = r["limit"]
                pshare = (f" ({best['prompt_tok_s']:.1f}, {100 * r['prompt_tok_s'] / best['prompt_tok_s']:.0f}%)"
                          if best else "")
                at_limit = (f"{r['evaluated'] / ref[0] + r['generated'] / ref[1]:.0f}" if ref else "")
                gshare = (f" ({best['generation_tok_s']:.1f}, "
                          f"{100 * r['gen_tok_s'] / best['generation_tok_s']:.0f}%)" if best else "")
                lines.append(f"| {r['preset']} | {r['n']} | {r['ex']:.0f} | {r['p50']:.1f} | {r['p90']:.1f} | "
                             f"{r['calls']:.1f} | {r['evaluated']:.0f} | {r['generated']:.0f} | "
                             f"{r['prompt_tok_s']:.1f}{pshare} | {r['gen_tok_s']:.1f}{gshare} | "
                             f"{100 * r['model_share']:.0f}% | {at_limit} |")
            lines.append("")
            lines.append("Questions (ids of the open sample): " + "; ".join(
                f"{r['preset']} {','.join(str(i) for i in r['ids'])}" for r in rows))
            lines += ["", "```", *sorted({r["command"] for r in rows if r["command"]}), "```"]
        lookup = lookup_rows(label_dir)
        if lookup:
            lines += ["", "Prompt lookup, each recorded request replayed off and on from the same KV prefix "
                          "(alternating which goes first):", "",
                      "| reply kind | requests | byte-identical | generated tok | tok/s off | tok/s on | on/off | "
                      "drafted | kept | presets |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
            for r in lookup:
                lines.append(f"| {r['kind']} | {r['n']} | {r['same']} | {r['tokens']} | {r['off']:.1f} | "
                             f"{r['on']:.1f} | {r['on'] / r['off']:.2f}× | {r['drafted']} | {r['accepted']} | "
                             f"{', '.join(r['presets'])} |")
        lines.append("")
    lines += step_tables(labels)
    out = RESULTS / "speed.md"
    RESULTS.mkdir(parents=True, exist_ok=True)
    if plot:
        _plot(plot, RESULTS / "speed.png")
        lines.insert(2, "![p50 wall time per question by preset and code label](speed.png)\n")
    text = "\n".join(lines)
    if out.exists() and NOTES_MARKER in out.read_text(encoding="utf-8"):
        text += "\n" + NOTES_MARKER + out.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
    out.write_text(text, encoding="utf-8")
    print(text)
    return 0


def _plot(plot: dict[str, list[dict[str, Any]]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    presets = sorted({r["preset"] for rows in plot.values() for r in rows})
    labels = [label for label, rows in plot.items() if rows]
    if not presets or not labels:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        rows = {r["preset"]: r for r in plot[label]}
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(presets))]
        axes[0].bar(xs, [rows[p]["p50"] if p in rows else 0 for p in presets], width, label=label)
        axes[1].bar(xs, [rows[p]["evaluated"] + rows[p]["generated"] if p in rows else 0 for p in presets],
                    width, label=label)
    for ax, title in zip(axes, ("p50 wall time per question (s)", "evaluated + generated tokens per question")):
        ax.set_xticks(range(len(presets)), presets, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


# -- helpers ----------------------------------------------------------------------------------------------------------


def command_line() -> str:
    prefix = " ".join(f"{k}={os.environ[k]}" for k in ("GROUNDSQL_THREADS", "GROUNDSQL_PROMPT_LOOKUP",
                                                        "GROUNDSQL_PROMPT_CACHE_MB") if os.environ.get(k))
    return (prefix + " " if prefix else "") + "python benchmarks/speed.py " + " ".join(sys.argv[1:])


def machine() -> str:
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores (this process on {affinity}), "
            f"GROUNDSQL_THREADS={os.environ.get('GROUNDSQL_THREADS', 'default')}")


def head_commit() -> str:
    """The commit of the groundsql code this process runs (a worktree at another commit included)."""
    import groundsql

    code = Path(groundsql.__file__).resolve().parents[2]

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(code), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+changes" if git("status", "--porcelain", "--", "src") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run presets on open-sample questions, recording every call")
    run.add_argument("--label", required=True, help="a code label (commit) naming the results folder")
    run.add_argument("--presets", default="baseline")
    run.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    run.add_argument("--n", type=int, default=150, help="questions sampled from the open Spider split")
    run.add_argument("--seed", type=int, default=2026)
    run.add_argument("--limit", type=int, default=5, help="the first LIMIT questions of the sample")
    run.add_argument("--ids", default=None)
    run.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--warm", action="store_true",
                     help="first answer other questions of the same databases, untimed (a warm prefix cache: each "
                          "database's prompt prefix already read, as for a user's next question)")
    run.add_argument("--dataset", type=Path, default=DEFAULT_SPIDER)
    lookup = sub.add_parser("lookup", help="replay recorded requests with prompt lookup off and on")
    lookup.add_argument("--label", required=True, help="where lookup.jsonl is written")
    lookup.add_argument("--source", default=None, help="the label whose requests are replayed (default: --label)")
    lookup.add_argument("--presets", default="baseline")
    lookup.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    lookup.add_argument("--kinds", default=None, help="only these reply kinds (sql,json,text)")
    lookup.add_argument("--max-requests", type=int, default=None, help="per preset")
    sub.add_parser("report", help="write speed.md and speed.png")
    args = parser.parse_args(argv)
    return {"run": cmd_run, "lookup": cmd_lookup, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
