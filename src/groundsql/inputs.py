"""Checks on what a user asks: the question and its evidence are text of a bounded, documented length."""

from __future__ import annotations

from groundsql.errors import ConfigError

#: The longest question accepted, in characters (about 2,500 prompt tokens).
MAX_QUESTION_CHARS = 10_000
#: The longest evidence text accepted, in characters.
MAX_EVIDENCE_CHARS = 50_000
#: The most candidates one question may sample.
MAX_SAMPLES = 64


def check_question(question: object) -> str:
    """The question, stripped, or a one-line `ConfigError` when it is empty, not text, or too long."""
    return _check_text(question, "question", MAX_QUESTION_CHARS, required=True) or ""


def check_evidence(evidence: object) -> str | None:
    """The evidence, stripped (None when absent), or a one-line `ConfigError`."""
    return _check_text(evidence, "evidence", MAX_EVIDENCE_CHARS, required=False)


def check_samples(samples: object) -> int:
    """The number of candidates to sample: a whole number from 1 to MAX_SAMPLES."""
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ConfigError(f"samples must be a whole number from 1 to {MAX_SAMPLES}, got {samples!r}")
    return samples


def check_text(value: object, name: str) -> str:
    """`value` as text that can be encoded as UTF-8 (no length limit), else a one-line `ConfigError`."""
    return _check_text(value, name, limit=10**12, required=False) or ""


def _check_text(value: object, name: str, limit: int, *, required: bool) -> str | None:
    if value is None and not required:
        return None
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"the {name} is not valid UTF-8 text (bad byte at position {exc.start})") from None
    if not isinstance(value, str):
        raise ConfigError(f"the {name} must be text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # undecodable bytes from the command line arrive as lone surrogates
        raise ConfigError(f"the {name} is not valid UTF-8 text (bad byte at position {exc.start})") from None
    text = value.strip()
    if required and not text:
        raise ConfigError(f"the {name} is empty")
    if len(text) > limit:
        raise ConfigError(f"the {name} is {len(text):,} characters long; the limit is {limit:,}")
    return text or None
