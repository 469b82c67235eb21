"""Documents cut into chunks at their headings (Markdown) or paragraphs (plain text)."""

from __future__ import annotations

from pathlib import Path

from groundsql.knowledge.items import DocChunk

#: A section longer than this many words is cut into pieces of about this size.
CHUNK_WORDS = 160


def chunk_document(path: Path, label: str) -> list[DocChunk]:
    """The chunks of one .md or .txt file; `label` is the name sources are given (e.g. ``docs/faq.md``)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".md":
        sections = _markdown_sections(text)
    else:
        sections = [("", para, line) for para, line in _paragraphs(text)]
    chunks = []
    for title, body, line in sections:
        for piece in _pieces(body):
            chunks.append(DocChunk(title=title, text=piece, source=f"{label}:{line}"))
    return chunks


def _markdown_sections(text: str) -> list[tuple[str, str, int]]:
    """(heading path, body, first line) per section; headings nest ("Orders > Statuses")."""
    sections: list[tuple[str, str, int]] = []
    path: list[tuple[int, str]] = []
    body: list[str] = []
    start = 1
    fenced = False

    def flush() -> None:
        content = "\n".join(body).strip()
        if content:
            sections.append((" > ".join(t for _, t in path), content, start))

    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and stripped.startswith("#"):
            level = len(stripped) - len(stripped.lstrip("#"))
            title = stripped[level:].strip()
            if title and level <= 6:
                flush()
                body = []
                start = number
                path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
                continue
        body.append(line)
    flush()
    return sections


def _paragraphs(text: str) -> list[tuple[str, int]]:
    found, current, start = [], [], 1
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            found.append((" ".join(current), start))
            current = []
    return found


def _pieces(body: str) -> list[str]:
    words = body.split()
    if len(words) <= CHUNK_WORDS * 1.5:
        return [" ".join(words)] if words else []
    return [" ".join(words[i:i + CHUNK_WORDS]) for i in range(0, len(words), CHUNK_WORDS)]
