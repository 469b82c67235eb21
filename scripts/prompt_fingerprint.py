"""Dump every prompt and answer of the presets under a deterministic scripted model, to compare two versions.

A refactoring that must not change behaviour should leave this dump byte for byte the same. The model double
answers from a hash of the prompt (SQL, JSON or exploration actions), so a changed prompt changes the path too.

    PYTHONPATH=/path/to/old/src python scripts/prompt_fingerprint.py DB.sqlite old.json
    PYTHONPATH=$PWD/src          python scripts/prompt_fingerprint.py DB.sqlite new.json && cmp old.json new.json
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile

SQLS = ["SELECT count(*) FROM singer", "SELECT nme FROM singer", "SELECT name FROM singer WHERE country = 'France'",
        "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id",
        "SELECT * FROM stadium"]
JSONS = ['{"tables": ["singer"], "columns": ["singer.Name"], "entities": ["France"], "keep": ["singer", "concert"], '
         '"relevant": true, "delete": [], "select": ["singer"], "roles": {"singer": "target"}, "queries": []}',
         '{"entities": ["stadium"], "keep": ["stadium.Name"], "relevant": false, "queries": ["SELECT 1"]}']
RUNS = [("refine", {}), ("refine", {"refine_rounds": 1}), ("ssev", {}), ("ssev", {"validate": False, "samples": 2}),
        ("ssev", {"linker": "vector,apex", "verify_tables": 2}), ("apex", {}), ("apex", {"linker": "apex", "samples": 1}),
        ("apex", {"linker": "vector,apex", "max_actions": 3, "tips": 2}), ("apex", {"linker": "progressive", "samples": 1})]
QUESTIONS = ["How many singers are there?", "Which singers are from France?", "Names of stadiums with a concert in 2014?"]


def reply(messages: list[dict]) -> str:
    h = int(hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(), 16)
    body = messages[-1]["content"]
    if "JSON" in body or "json" in body:
        return JSONS[h % 2]
    if "[EXPLORE]" in body or "[CONFIRM]" in body:
        return f"{['[SQL]', '[EXPLORE]', '[CONFIRM]'][h % 3]}\n```sql\n{SQLS[h % len(SQLS)]}\n```"
    return f"```sql\n{SQLS[h % len(SQLS)]}\n```"


def main(db_path: str, out: str) -> None:
    os.environ["GROUNDSQL_STATE_DIR"] = tempfile.mkdtemp()  # expert weights start from scratch
    import groundsql
    from groundsql.models import ScriptedModel

    db = groundsql.connect(db_path)
    dump = []
    for preset, options in RUNS:
        for question in QUESTIONS:
            model = ScriptedModel(default=reply, name="m")
            model.serial = True  # linking agents one at a time: the call order is deterministic
            answer = groundsql.ask(question, db, model=model, preset=preset, options=dict(options))
            dump.append({"preset": preset, "options": options, "question": question, "sql": answer.sql,
                         "stages": answer.stages, "candidates": [c.sql for c in answer.candidates],
                         "confidence": answer.confidence, "linked": answer.linked_schema, "calls": model.calls})
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(dump, handle, indent=1, sort_keys=True, default=str)
    print(f"{len(dump)} runs, {sum(len(d['calls']) for d in dump)} model calls → {out}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:3])
