"""Execute docs/examples/notebook.ipynb with a real Jupyter kernel and write it back with its outputs.

    python scripts/run_example_notebook.py            # refresh the committed outputs (needs groundsql[local,notebook])
    python scripts/run_example_notebook.py OUT.ipynb  # write the executed copy elsewhere

The notebook runs in a temporary folder (the demo database and its export are written there, not in the
repository); tests/e2e/test_notebook.py runs it the same way on every test run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notebook.ipynb"


def execute(source: Path = NOTEBOOK, workdir: Path | None = None, timeout_s: int = 900):
    """The executed notebook (an nbformat node): every cell run in order in `workdir` (a temporary folder when
    None), per-run timing metadata dropped so a refresh changes only what the cells show."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(source, as_version=4)
    with tempfile.TemporaryDirectory() as temporary:
        folder = workdir or Path(temporary)
        NotebookClient(notebook, timeout=timeout_s, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    return notebook


def main(argv: list[str]) -> int:
    import nbformat

    out = Path(argv[0]) if argv else NOTEBOOK
    nbformat.write(execute(), out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
