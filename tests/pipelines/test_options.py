"""Typed options: validation with one-line errors, composition of preset and linker options, typed reads."""

from __future__ import annotations

import pytest
from pydantic import Field

from groundsql.context import Context
from groundsql.db import Database
from groundsql.errors import ConfigError
from groundsql.linking import LINKERS, LinkOptions
from groundsql.linking.vector import VectorOptions
from groundsql.models import ScriptedModel
from groundsql.options import Options, OptionsError, combine, options_table, parse_options, register
from groundsql.pipelines import INFO, options_model, preset_options, run
from groundsql.pipelines.apex import ApexOptions
from groundsql.pipelines.ssev import SsevOptions

pytestmark = pytest.mark.unit


def test_unknown_option_lists_the_valid_ones_with_a_did_you_mean():
    with pytest.raises(OptionsError) as error:
        preset_options("refine", {"refine_round": 3})
    assert str(error.value) == ("unknown option 'refine_round' for preset 'refine' (did you mean 'refine_rounds'?); "
                                "valid options: catalog_context, dialect_notes, embedding_model, knowledge, knowledge_budget_tokens, "
                                "knowledge_retriever, max_dialect_notes, max_items, model_dialect, refine_rounds, sample_rows, schema_budget_tokens, "
                                "tree_repair, tree_repair_rounds")
    with pytest.raises(OptionsError, match="unknown option 'refine_rounds' for preset 'baseline'"):
        preset_options("baseline", {"refine_rounds": 1})


def test_bad_values_name_the_expected_type_and_range():
    with pytest.raises(OptionsError, match=r"option 'samples' for preset 'ssev': expected an integer ≥ 1 \(or none\), "
                                           r"got 0"):
        preset_options("ssev", {"samples": 0})
    with pytest.raises(OptionsError, match="option 'vote'.*expected one of: majority, wma, rwma, got 'maj'"):
        preset_options("ssev", {"vote": "maj"})
    with pytest.raises(OptionsError, match="option 'validate'.*expected true or false, got 'perhaps'"):
        preset_options("ssev", {"validate": "perhaps"})
    with pytest.raises(OptionsError, match=r"confidence_threshold.*a number ≥ 0 and ≤ 1"):
        preset_options("apex", {"confidence_threshold": 2})


def test_text_from_the_command_line_is_converted():
    options = preset_options("ssev", {"validate": "false", "refine_rounds": "3", "experts": "a:x, b:y"})
    ssev = SsevOptions.model_validate(options.given())
    assert ssev.validate is False and ssev.refine_rounds == 3 and ssev.experts == ["a:x", "b:y"]


def test_linker_options_compose_with_the_preset_options():
    # ssev links from its own drafts: a linker's options only with that linker
    with pytest.raises(OptionsError, match="it is an option of linker 'vector'; choose that linker with --linker"):
        preset_options("ssev", {"vector_k": 3})
    options = preset_options("ssev", {"linker": "vector,apex", "vector_k": 3, "verify_tables": 2, "link_max_hops": 1})
    assert options.vector_k == 3 and options.verify_tables == 2 and options.refine_rounds == 2
    # apex runs its own linker by default, so its options (and link()'s) hold without --linker
    assert preset_options("apex", {"verify_tables": 4, "link_connect": False}).verify_tables == 4
    with pytest.raises(OptionsError, match="vector_k"):
        preset_options("apex", {"vector_k": 4})
    with pytest.raises(ConfigError, match="unknown linker 'nope'"):
        preset_options("apex", {"linker": "nope"})


def test_every_preset_composes_with_every_linker():
    for name, info in INFO.items():
        chains = list(LINKERS) if "linker" in info.options.model_fields else [None]
        for chain in chains:
            model = options_model(name, chain)
            model()  # every option has a default
            assert all(row["description"] for row in options_table(model)), (name, chain)


def test_equal_settings_have_equal_identities_however_spelled():
    assert preset_options("ssev", {"refine_rounds": "2"}).identity() == preset_options("ssev", {}).identity() == {}
    assert preset_options("ssev", {"samples": "3"}).identity() == preset_options("ssev", {"samples": 3}).identity() \
        == {"samples": 3}
    assert preset_options("apex", {"vote": "wma", "tips": 0}).identity() == {"tips": 0, "vote": "wma"}


def test_stages_read_their_own_typed_view(music_db):
    ctx = Context(question="q", db=Database(str(music_db)), models={}, options={"vector_k": 4, "tips": 0})
    assert ctx.settings(VectorOptions).vector_k == 4 and ctx.settings(VectorOptions).vector_groups == 0
    assert ctx.settings(ApexOptions).tips == 0 and ctx.settings(ApexOptions).repair_rounds == 2
    assert ctx.settings(LinkOptions) == LinkOptions()
    with pytest.raises(TypeError, match=r"ctx.settings\(YourOptions\)"):
        ctx.options.get("vector_k")
    with pytest.raises(OptionsError, match="unknown option 'vector_kk'.*did you mean 'vector_k'"):
        Context(question="q", db=Database(str(music_db)), models={}, options={"vector_kk": 4})


def test_run_validates_the_context_options_for_the_preset(music_db):
    model = ScriptedModel(default="```sql\nSELECT count(*) FROM singer\n```")
    ctx = Context(question="How many singers?", db=Database(str(music_db)), models={"default": model},
                  options={"tips": 0})  # an apex option, not a refine one
    with pytest.raises(OptionsError, match="unknown option 'tips' for preset 'refine'"):
        run(ctx, "refine")
    ctx = Context(question="How many singers?", db=Database(str(music_db)), models={"default": model},
                  options={"refine_rounds": 0})
    assert run(ctx, "refine").result.rows == [(4,)] and ctx.options.refine_rounds == 0


def test_models_must_be_strict_and_documented():
    class Loose(Options):
        size: int = 3

    with pytest.raises(TypeError, match="needs a one-line description"):
        register(Loose, "test")

    class One(Options):
        depth: int = Field(1, description="d")

    class Two(Options):
        depth: int = Field(2, description="d")

    with pytest.raises(TypeError, match="declared differently by One and Two"):
        combine(One, Two)
    with pytest.raises(OptionsError, match="expected an integer"):
        parse_options(One, {"depth": "deep"})
    with pytest.raises(Exception, match="frozen"):
        One().depth = 3


def test_no_stage_reads_options_by_string_key():
    from pathlib import Path

    import groundsql

    root = Path(groundsql.__file__).parent
    offenders = [f"{path.relative_to(root)}:{number}"
                 for path in root.rglob("*.py")
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if any(f"ctx.options{access}" in line for access in (".get(", "[", ".setdefault(", ".items("))]
    assert not offenders, f"read options with ctx.settings(YourOptions): {offenders}"


def test_a_new_stage_and_preset_declare_their_options_in_one_place(music_db, monkeypatch):
    """The pattern documented at the top of context.py, end to end."""
    from groundsql import options as options_module
    from groundsql.answer import Answer
    from groundsql.pipelines import registry

    for name in ("INFO", "PRESETS", "DESCRIPTIONS"):
        monkeypatch.setattr(registry, name, dict(getattr(registry, name)))
    monkeypatch.setattr(options_module, "REGISTERED", dict(options_module.REGISTERED))

    class DepthOptions(Options):
        depth: int = Field(2, ge=0, description="how deep the stage goes")

    def stage(ctx, *, options=None):
        return (options or ctx.settings(DepthOptions)).depth

    class TryOptions(DepthOptions):
        tries: int = Field(1, ge=1, description="attempts")

    seen = []

    @registry.preset("try", "a test preset", options=TryOptions)
    def try_preset(ctx, options: TryOptions) -> Answer:
        seen.append((options.tries, stage(ctx, options=options), stage(ctx)))
        return Answer(question=ctx.question, sql="", result=None, preset="", model="", trace=ctx.trace)

    ctx = Context(question="q", db=Database(str(music_db)), models={}, options={})
    ctx.options = preset_options("try", {"depth": "5"})
    run(ctx, "try")
    assert seen == [(1, 5, 5)]
    with pytest.raises(OptionsError, match=r"unknown option 'dept' for preset 'try' \(did you mean 'depth'\?\); "
                                           r"valid options: catalog_context, depth, dialect_notes, .*, tries"):
        preset_options("try", {"dept": 1})
