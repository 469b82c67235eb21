"""Print the sqlglot function classes that `groundsql/db/policy/common.py` does not list yet, for review.

Run it after upgrading sqlglot: every new class is refused until a reviewer adds it to
`COMMON_FUNCTION_CLASSES` (pure computation) or to `REVIEWED_REFUSED` (reads files, sessions, the server,
the network, or calls a model).

    python scripts/gen_function_allowlist.py
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.db.policy.common import COMMON_FUNCTION_CLASSES, REVIEWED_REFUSED


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def main() -> None:
    names = sorted(c.__name__ for c in _subclasses(exp.Func) if c.__module__.startswith("sqlglot"))
    new = [n for n in names if n not in COMMON_FUNCTION_CLASSES and n not in REVIEWED_REFUSED]
    gone = sorted(COMMON_FUNCTION_CLASSES - set(names))
    print(f"{len(names)} function classes in this sqlglot; {len(new)} not reviewed yet:")
    for name in new:
        print(f"  {name}")
    if gone:
        print("listed but no longer in sqlglot: " + ", ".join(gone))


if __name__ == "__main__":
    main()
