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


# --- what a hostile notebook tried, each now contained or reported as it is -------------------------------------

def _tagged(source: str, tag: str | None = None, committed: str | None = None):
    cell = new_code_cell(source)
    if tag:
        cell.metadata["tags"] = [tag]
    if committed:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=committed)]
    return cell


def _run_cells(folder, *cells, **limits):
    nb = new_notebook()
    nb.cells = list(cells)
    return run_notebook(nbformat.writes(nb), str(folder), **{"cell_limit": 30, "time_limit": 120, **limits})


def test_every_cell_runs_whatever_its_tags_and_committed_outputs_are_not_kept(folder):
    """A 'skip-execution' cell would keep its committed 0.4000 as if printed; a blank cell its committed output."""
    run = _run_cells(folder, _tagged("print('P@5 =', 0.5)", "skip-execution", "P@5 = 0.4000\n"),
                     _tagged("   ", committed="MRR = 0.9\n"))
    assert run.status == "ran"
    assert output_texts(run.notebook) == [(1, "P@5 = 0.5"), (2, "")]


def test_a_cell_tagged_raises_exception_still_fails_the_run(folder):
    run = _run_cells(folder, _tagged("raise RuntimeError('boom')", "raises-exception"), _tagged("print('after')"))
    assert (run.status, run.cell, run.error) == ("failed", 1, "RuntimeError: boom")


def test_a_flood_of_output_is_stopped_at_the_runners_bound(folder):
    flood = "import time\ns = 'x' * 20_000_000\nfor i in range(10_000):\n    print(s, flush=True); time.sleep(0.05)"
    run = _run_cells(folder, _tagged(flood))
    assert (run.status, run.cell) == ("too large", 1), run.summary()
    assert run.error == "its outputs passed 32 MB; the run was stopped there"


def test_the_kernel_sees_a_copy_of_the_folders_files_only(tmp_path):
    """No .git (a CI's credentials), no socket a host process listens on, no FIFO, no link out of the folder."""
    import os
    import socket
    book = tmp_path / "book"
    (book / ".git").mkdir(parents=True)
    (book / ".git" / "config").write_text("[http] extraheader = AUTHORIZATION: token\n", encoding="utf-8")
    (book / "data").mkdir()
    (book / "data" / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("host secret\n", encoding="utf-8")
    (book / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (book / "inside.txt").symlink_to(book / "data" / "qrels.txt")
    os.mkfifo(book / "fifo")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(book / "sock"))
    listener.listen(1)
    try:
        run = _run_cells(book, _tagged("import os\nprint(sorted(os.listdir('.')), sorted(os.listdir('data')))"),
                         _tagged("print(open('inside.txt').read().strip())"))
    finally:
        listener.close()
    assert run.status == "ran", run.summary()
    assert output_texts(run.notebook) == [(1, "['data', 'inside.txt'] ['qrels.txt']"), (2, "q1 0 d1 1")]


def test_a_link_inside_the_folder_to_a_dot_file_or_into_a_dot_folder_is_not_there(tmp_path):
    """``gitcfg -> .git/config`` stays inside the notebook's folder, but leads into the dot-folder the kernel must
    not read: the kernel read it and printed its bytes into the report. The link is now left out as its target is."""
    from audit.evaluation.sandbox.notebook import book_files
    book = tmp_path / "book"
    (book / ".git").mkdir(parents=True)
    (book / ".git" / "config").write_text("[credential] helper = store --file=/tmp/token\n", encoding="utf-8")
    (book / ".env").write_text("TOKEN=abc\n", encoding="utf-8")
    (book / "data.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    (book / "gitcfg").symlink_to(book / ".git" / "config")
    (book / "env.txt").symlink_to(book / ".env")
    (book / "same.txt").symlink_to(book / "data.txt")
    assert [relative for _, relative in book_files(book)] == ["data.txt", "same.txt"]


def test_a_notebook_error_cannot_write_markdown_into_the_report():
    from audit.report.markdown import notebook_acts, notebook_lines
    from audit.model.results import ChapterReport, NotebookReport
    report = ChapterReport.model_construct(notebook=NotebookReport(
        path="x.ipynb", status="failed", cell=2, error="ValueError: ![i](http://evil.example/e.png)",
        summary="a cell raised an error in cell 2 (ValueError: ![i](http://evil.example/e.png) [evil](https://e.x/))",
        stale=["cell 2: committed '[c](javascript:alert(1))', re-executed 'x'"]))
    text = "\n".join(notebook_lines(report) + notebook_acts(report))
    assert "![i](http" not in text and "[evil](" not in text and "[c](javascript" not in text
    assert "!\\[i\\](http\\://evil.example/e.png)" in text


def test_a_module_beside_the_notebook_imports_as_in_jupyter(tmp_path):
    """``from helper import p5`` with helper.py beside the notebook: a kernel Jupyter starts in the folder has it on
    its path; the sandbox's kernel, started isolated, raised ModuleNotFoundError and the notebook failed."""
    (tmp_path / "helper.py").write_text("def p5():\n    return 2 / 5\n", encoding="utf-8")
    run = run_notebook(_notebook("from helper import p5", 'print("P@5 =", p5())'), str(tmp_path),
                       cell_limit=30, time_limit=120)
    assert run.status == "ran", run.summary()
    assert [(n.label, n.value) for n in numbers_in(output_texts(run.notebook))] == [("P@5", "0.4")]


def test_a_notebook_that_plots_runs_and_shows_its_figures_as_jupyter_does(tmp_path):
    """matplotlib builds its font list on its first import by running ``fc-list`` in a new process, which the
    kernel's filter kills: a notebook drawing one bar chart was reported as a violation (SIGSYS) in its first cell.
    Its figures are the cells' outputs, as Jupyter's inline backend gives them (the kernel drew nothing under Agg),
    so a committed chart is compared with the one the run draws."""
    from audit.evaluation.notebook import stale_outputs
    from nbclient import NotebookClient

    nb = nbformat.reads(_notebook(
        "import matplotlib.pyplot as plt\nplt.bar(['P@5'], [0.4]); plt.title('P@5 = 0.4'); plt.show()",
        "%config InlineBackend.figure_formats = ['svg']\nplt.bar(['R@5'], [0.5]); plt.title('R@5 = 0.5'); plt.show()"),
        as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=60, resources={"metadata": {"path": str(tmp_path)}}).execute()  # as the author saves it
    committed = nbformat.writes(nb)
    run = run_notebook(committed, str(tmp_path), cell_limit=60, time_limit=180)
    assert run.status == "ran", run.summary()
    kinds = [sorted(o.get("data", {})) for cell in run.notebook.cells[1:] for o in cell.outputs]
    assert kinds == [["image/png", "text/plain"], ["image/svg+xml", "text/plain"]], kinds
    assert stale_outputs(nbformat.reads(committed, as_version=4), run.notebook) == []
    edited = nbformat.reads(committed, as_version=4)   # the code changed, the committed figures did not
    edited.cells[2].source = edited.cells[2].source.replace("0.5", "0.7")
    run = run_notebook(nbformat.writes(edited), str(tmp_path), cell_limit=60, time_limit=180)
    stale = stale_outputs(edited, run.notebook)
    assert len(stale) == 1 and stale[0].startswith("cell 3 (its drawing") and "R@5 = 0.7" in stale[0], stale


def test_a_notebook_plotting_through_a_module_beside_it_runs(tmp_path):
    """The notebook names no plotting library; the module it imports does (``charts.py`` imports pyplot)."""
    (tmp_path / "charts.py").write_text("import matplotlib.pyplot as plt\n\n\ndef bar(label, value):\n"
                                        "    plt.bar([label], [value])\n    plt.show()\n", encoding="utf-8")
    run = run_notebook(_notebook("import charts\ncharts.bar('P@5', 0.4)"), str(tmp_path), cell_limit=60,
                       time_limit=180)
    assert run.status == "ran", run.summary()
    assert [sorted(o.get("data", {})) for o in run.notebook.cells[1].outputs] == [["image/png", "text/plain"]]
