"""Options every linker run shares (budget, grounding, connectivity, concurrency) and the `linker` choice."""

from __future__ import annotations

from pydantic import Field

from groundsql.options import Options

#: A sensible `link_full_budget` for presets that opt in: half the embedded models' 8k-token context.
DEFAULT_FULL_BUDGET = 4000
DEFAULT_MAX_HOPS = 3
DEFAULT_BATCH_TOKENS = 3000


class LinkerChoice(Options):
    """Mixed into the options of presets that link a schema."""

    linker: str | None = Field(None, description="schema linker or comma chain, e.g. apex or vector,apex "
                                                  "(the preset's own linking when unset; see docs/linking.md)")


class LinkOptions(Options):
    """Settings of `link()` that hold whichever linkers run."""

    link_full_budget: int | None = Field(None, ge=0, description="skip linking when the whole schema's DDL fits "
                                                                 "this many tokens (none: always link; prospy "
                                                                 "without --linker then uses 4000)")
    link_ground: bool = Field(True, description="add the columns that store values named in the question")
    ground_max_owners: int = Field(2, ge=1, description="a literal adds a new table only when at most this "
                                                        "many tables store it")
    ground_max_tables: int = Field(60, ge=1, description="tables read for the value index when no catalog is "
                                                         "available")
    link_connect: bool = Field(True, description="add bridge tables and join keys so linked tables join")
    link_max_hops: int = Field(DEFAULT_MAX_HOPS, ge=1, description="longest join path connectivity repair adds")
    link_json_schema: bool = Field(True, description="constrain linking replies to a JSON schema (false: parse "
                                                     "leniently, faster on CPU)")
    link_batch_tokens: int = Field(DEFAULT_BATCH_TOKENS, ge=1, description="schema tokens per linking prompt "
                                                                             "batch")
    concurrency: int = Field(4, ge=1, description="parallel linking calls for API models (the embedded model "
                                                  "runs one at a time)")
