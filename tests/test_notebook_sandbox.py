"""A chapter's notebook runs in the listing sandbox: the listing attacks, written as notebook cells, are contained
as they are for a listing (audit/evaluation/sandbox/notebook.py), and a run says where and how it stopped."""

from __future__ import annotations

import uuid
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from audit.evaluation.notebook import numbers_in, output_texts
from audit.evaluation.sandbox import unavailable_reason
from audit.evaluation.sandbox.notebook import run_notebook

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")


def _notebook(*cells: str) -> str:
    nb = new_notebook()
    nb.cells = [new_markdown_cell("# a notebook")] + [new_code_cell(c) for c in cells]
    return nbformat.writes(nb)


@pytest.fixture
def folder(tmp_path):
    """The notebook's folder, with a data file beside it; asserted unchanged afterwards."""
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    yield tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt"]
    assert (tmp_path / "qrels.txt").read_text(encoding="utf-8") == "q1 0 d1 1\n"


def test_a_notebook_runs_reads_its_folder_and_its_numbers_are_read(folder):
    run = run_notebook(_notebook('print("P@3 =", round(2/3, 4))', 'open("qrels.txt").read().split()[-1]'),
                       str(folder), cell_limit=30, time_limit=120)
    assert run.status == "ran", run.summary()
    assert run.cell is None and run.versions["ipykernel"] and run.kernel.startswith("python3")
    numbers = numbers_in(output_texts(run.notebook))
    assert [(n.cell, n.label, n.value) for n in numbers] == [(2, "P@3", "0.6667"), (3, "", "1")]
    assert run.summary().startswith("ran every cell; kernel python3")


def test_a_failing_cell_is_named_with_its_error(folder):
    run = run_notebook(_notebook("x = 1", "1/0", "print('never')"), str(folder), cell_limit=30, time_limit=120)
    assert (run.status, run.cell, run.error) == ("failed", 3, "ZeroDivisionError: division by zero")
    assert "a cell raised an error in cell 3 (ZeroDivisionError: division by zero)" in run.summary()


@pytest.mark.parametrize("cell", [
    "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(('93.184.216.34', 80))",
    "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53))",
    "import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_STREAM)",
    "import os\nos.system('id')",
    "import subprocess\nsubprocess.run(['/bin/sh', '-c', 'id'])",
    "import os\nos.fork()",
])
def test_network_and_processes_kill_the_kernel_as_they_kill_a_listing(folder, cell):
    run = run_notebook(_notebook("x = 1", cell), str(folder), cell_limit=30, time_limit=120)
    assert (run.status, run.cell) == ("violation", 3), run.summary()
    assert "forbids" in run.summary()


@pytest.mark.parametrize("path", ["/etc/passwd", "/etc/hostname", str(ROOT / "pyproject.toml"),
                                  str(Path.home() / ".bashrc"), "/proc/self/environ"])
def test_host_files_outside_the_notebook_folder_are_not_there(folder, path):
    run = run_notebook(_notebook(f"open({path!r}).read()"), str(folder), cell_limit=30, time_limit=120)
    assert run.status == "failed" and run.cell == 2, run.summary()
    assert run.error.startswith(("FileNotFoundError", "PermissionError")), run.error


def test_the_notebook_folder_is_read_only_and_the_scratch_is_private(folder):
    marker = f"chapter-audit-notebook-{uuid.uuid4().hex}"
    run = run_notebook(_notebook(f"open('/scratch/{marker}', 'w').write('x')", f"open('written-{marker}', 'w')"),
                       str(folder), cell_limit=30, time_limit=120)
    assert run.status == "failed" and run.cell == 3, run.summary()
    assert run.error.startswith("OSError: [Errno 30] Read-only file system"), run.error
    assert not list(Path("/").glob(f"*{marker}*")) and not list(Path("/tmp").glob(f"*{marker}*"))


def test_a_cell_past_its_time_limit_is_stopped(folder):
    run = run_notebook(_notebook("while True:\n    pass"), str(folder), cell_limit=2, time_limit=60)
    assert (run.status, run.cell) == ("timeout", 2), run.summary()
