"""Typed options: every preset, linker and tunable stage declares its settings as one frozen pydantic model.

    class VectorOptions(Options):
        vector_k: int = Field(10, ge=1, description="columns kept by the vector search")

- `Options` is the base: frozen, unknown fields refused, every field with a default and a one-line description.
- `parse_options(model, raw)` validates what a user typed (`--option KEY=VALUE`, the API's `options=`) and fails
  with one line: an unknown key lists the valid ones with a "did you mean", a bad value names the expected type
  and range.
- `combine(*models)` merges the fields of several models into one (a preset's options plus its linkers').
- `options_table(model)` lists name, type, default and description (`groundsql presets --options`, docs).

Option names are flat (`refine_rounds`, `vector_k`), so a stage's model can be mixed into any preset's.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import types
import typing
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic.fields import FieldInfo

from groundsql.errors import ConfigError

T = TypeVar("T", bound="Options")

_LEGACY = ("options are typed now: read them with ctx.settings(YourOptions) (see groundsql/context.py), "
           "not by string key")


class OptionsError(ConfigError):
    """An unknown option or a value of the wrong type or range."""


class Options(BaseModel):
    """Base of every options model: frozen, unknown keys refused. Subclasses add fields with defaults,
    bounds (`Field(ge=…)`) and a `description`."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    def given(self) -> dict[str, Any]:
        """The values that were set explicitly (the rest are the defaults)."""
        return {name: getattr(self, name) for name in self.model_fields_set}

    def identity(self) -> dict[str, Any]:
        """The settings that differ from the defaults, as JSON values, sorted: equal settings give equal
        identities however they were spelled (`refine_rounds=2` or omitted, `"3"` or `3`)."""
        defaults = type(self)().model_dump(mode="json")
        values = self.model_dump(mode="json")
        return {k: values[k] for k in sorted(values) if values[k] != defaults[k]}

    # A string-keyed read of the old options dict fails with a pointer to the typed way.
    def get(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(_LEGACY)

    def items(self) -> Any:
        raise TypeError(_LEGACY)

    def setdefault(self, *args: Any) -> Any:
        raise TypeError(_LEGACY)

    def __getitem__(self, key: str) -> Any:
        raise TypeError(_LEGACY)


class NoOptions(Options):
    """For presets and linkers without settings."""


#: Every registered options model with who owns it ("preset 'ssev'", "linker 'vector'"), for hints.
REGISTERED: dict[type[Options], str] = {}


def register(model: type[T], owner: str) -> type[T]:
    """Record `model` as the options of `owner` (the preset and linker registries call this)."""
    if model.model_config.get("extra") != "forbid":
        raise TypeError(f"{model.__name__} must refuse unknown fields: derive it from groundsql.options.Options")
    for name, info in model.model_fields.items():
        if not info.description:
            raise TypeError(f"{model.__name__}.{name} needs a one-line description (Field(description=…))")
    REGISTERED.setdefault(model, owner)
    return model


def known_options() -> type[Options]:
    """One model holding every registered option (first declaration wins), for contexts built from a dict
    before a preset is chosen. The registries are filled by whoever imports them: `groundsql` (through `api`)
    imports the pipelines, so every built-in preset and linker is registered before this is called."""
    return combine(*REGISTERED, strict=False)


@functools.cache
def combine(*models: type[Options], strict: bool = True) -> type[Options]:
    """A model with the fields of all `models` (each once). With `strict`, a field declared by two models must
    have the same type and default in both."""
    unique = list(dict.fromkeys(models))
    if len(unique) == 1:
        return unique[0]
    fields: dict[str, tuple[Any, FieldInfo]] = {}
    owners: dict[str, type[Options]] = {}
    for model in unique:
        for name, info in ordered_fields(model).items():
            if name in fields:
                first = fields[name][1]
                if strict and (first.annotation != info.annotation or first.default != info.default):
                    raise TypeError(f"option {name!r} is declared differently by {owners[name].__name__} and "
                                    f"{model.__name__}; declare it once in a shared model")
                continue
            fields[name] = (info.annotation, info)
            owners[name] = model
    name = "".join(m.__name__.removesuffix("Options") for m in unique) + "Options"
    with shadowing_allowed():
        return create_model(name, __base__=Options, **fields)  # type: ignore[call-overload]


@contextlib.contextmanager
def shadowing_allowed() -> Iterator[None]:
    """Declare options inside this block when a name shadows a deprecated pydantic method (ssev's `validate`
    shadows `BaseModel.validate`, which nothing here calls)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Field name .* shadows an attribute", category=UserWarning)
        yield


def ordered_fields(model: type[Options]) -> dict[str, FieldInfo]:
    """The model's fields, its own first, then those of its mixins in the order they are listed."""
    names: list[str] = []
    for klass in model.__mro__:
        if isinstance(klass, type) and issubclass(klass, Options):
            names += [n for n in klass.__dict__.get("__annotations__", {}) if n in model.model_fields]
    names += list(model.model_fields)
    return {name: model.model_fields[name] for name in dict.fromkeys(names)}


def parse_options(model: type[T], raw: Mapping[str, Any] | Options | None, *, what: str = "") -> T:
    """Validate user-given options against `model`.

    Args:
        model: the options model (a preset's, possibly combined with its linkers').
        raw: key → value (strings from the CLI are converted: "3" → 3, "true" → True), or an `Options`
            whose explicitly given values are re-validated.
        what: who the options are for, for messages ("preset 'ssev'").

    Returns:
        The validated, frozen options object.

    Raises:
        OptionsError: one line naming the bad key and what is allowed.
    """
    values = raw.given() if isinstance(raw, Options) else dict(raw or {})
    where = f" for {what}" if what else ""
    valid = sorted(model.model_fields)
    for key in values:
        if key not in model.model_fields:
            raise OptionsError(unknown_message(key, valid, where))
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error.get("loc") else "?"
        info = model.model_fields.get(key)
        expected = type_text(info) if info is not None else ""
        raise OptionsError(f"option {key!r}{where}: expected {expected}, got {error.get('input')!r} "
                           f"({error['msg'][:1].lower() + error['msg'][1:]})") from None


def unknown_message(key: str, valid: list[str], where: str = "") -> str:
    """'unknown option …; did you mean …? valid options: …' (with the owner when another model has the key)."""
    message = f"unknown option {key!r}{where}"
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    owner = next((who for m, who in REGISTERED.items() if key in m.model_fields), None)
    if owner and not close:
        message += f" (it is an option of {owner}" + ("; choose that linker with --linker)"
                                                       if owner.startswith("linker") else ")")
    message += f"; valid options: {', '.join(valid)}" if valid else "; it takes no options"
    return message


def type_text(info: FieldInfo) -> str:
    """The accepted values of a field in words: 'an integer ≥ 0', 'true or false', 'one of: wma, rwma'."""
    annotation = info.annotation
    nullable = typing.get_origin(annotation) in (typing.Union, types.UnionType) and \
        type(None) in typing.get_args(annotation)
    if nullable:
        rest = tuple(a for a in typing.get_args(annotation) if a is not type(None))
        annotation = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007
    text = _annotation_text(annotation)
    bounds = []
    for item in info.metadata:
        for attribute, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(item, attribute, None)  # annotated_types.Ge(ge=0) and friends, from Field(ge=0)
            if value is not None:
                bounds.append(f"{sign} {value}")
    text = f"{text} {' and '.join(bounds)}" if bounds else text
    return f"{text} (or none)" if nullable else text


def _annotation_text(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "one of: " + ", ".join(str(v) for v in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_annotation_text(a) for a in typing.get_args(annotation))
    if origin in (list, tuple):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return f"a list of {_annotation_text(args[0]) if args else 'values'}"
    if annotation is Any:
        return "values"
    names = {bool: "true or false", int: "an integer", float: "a number", str: "text", dict: "an object"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def options_table(model: type[Options]) -> list[dict[str, str]]:
    """One row per option: name, accepted values, default, description."""
    rows = []
    for name, info in ordered_fields(model).items():
        default = info.get_default(call_default_factory=True)
        rows.append({"option": name, "type": type_text(info), "default": _default_text(default),
                     "description": info.description or ""})
    return rows


def _default_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)) and not value:
        return "[]"
    return str(value)


def markdown_table(model: type[Options]) -> str:
    rows = options_table(model)
    if not rows:
        return "No options."
    lines = ["| option | values | default | description |", "|---|---|---|---|"]
    lines += [f"| `{r['option']}` | {r['type']} | {r['default']} | {r['description']} |" for r in rows]
    return "\n".join(lines)
