"""What a listing can import in the listing sandbox, and what to say when it imports something it cannot.

The sandbox offers the interpreter's standard library and the audit's own environment read-only (``bwrap.py``):
NumPy, SciPy, pandas, the three references (pytrec_eval, ir-measures, ranx), and scikit-learn when chapter-audit is
installed with its ``sklearn`` extra. Whether a package is offered is decided by looking for it in exactly those
folders (``importable``), not in the audit's own ``sys.path``, which may hold more (the working directory, a
``PYTHONPATH``). A chapter names the packages its listings need in chapter.yaml's ``environment:``; the load checks
each is importable here, so a missing one stops the load rather than every listing's check.

A listing whose import the sandbox cannot satisfy was not run: its verdict is an error naming the module and how to
provide it (``missing_module``, ``how_to_provide``), never a finding about the listing.
"""

from __future__ import annotations

import ast
import importlib.machinery
import re
import sys
from functools import lru_cache

#: Modules the runner imports once, before the calls' processes are forked, when the listing imports them: each call
#: then starts with them loaded (importing NumPy costs about 0.1 s, scipy.stats about 1 s, a call). A fixed list the
#: audit chose, from its own read-only environment; never a name the listing chose.
PRELOAD = ("numpy", "scipy", "scipy.special", "scipy.stats", "pandas", "sklearn", "sklearn.metrics")

#: Import names whose distribution has another name, for the advice on how to provide one.
DISTRIBUTIONS = {"sklearn": "scikit-learn", "yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python",
                 "pytrec_eval": "pytrec-eval-terrier", "ir_measures": "ir-measures", "bs4": "beautifulsoup4"}
#: Import names chapter-audit offers through one of its optional extras.
EXTRAS = {"sklearn": "sklearn"}

_NO_MODULE = re.compile(r"^(?:ModuleNotFoundError|ImportError): No module named '([^']+)'")


def imported_modules(code: str) -> list[str]:
    """Every module ``code`` imports (absolute imports, anywhere in it), dotted, in order, once each; for
    ``from a import b`` both ``a`` and ``a.b`` (``b`` may be a submodule). Empty for code that is not Python."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
    return list(dict.fromkeys(out))


def preload(code: str) -> list[str]:
    """The modules of ``PRELOAD`` that ``code`` imports, and the package of each module it imports from a package of
    ``PRELOAD`` (``scipy`` for ``scipy.optimize``), in ``PRELOAD``'s order."""
    imported = set(imported_modules(code))
    wanted = {m for m in PRELOAD if m in imported} | {m.split(".")[0] for m in imported}
    return [m for m in PRELOAD if m in wanted]


def uses_packages(code: str) -> bool:
    """Whether ``code`` imports anything beyond the standard library (a listing that then needs the memory of the
    packages it loads, ``PACKAGES_MB``)."""
    return any(m.split(".")[0] not in sys.stdlib_module_names for m in imported_modules(code))


#: Address space a listing that imports packages is given beyond its own limit: NumPy, SciPy and pandas together map
#: about 300 MB (measured: VmPeak of an interpreter after importing all three, single-threaded).
PACKAGES_MB = 512


@lru_cache(maxsize=1)
def _folders() -> tuple[str, ...]:
    """The folders the sandbox imports from: the interpreter's standard library (its own site-packages hidden) and
    the audit's package folders."""
    from audit.evaluation.sandbox.bwrap import _interpreter, _view, site_folders
    _, folders, _ = _view(_interpreter())
    return (*folders, *site_folders())


@lru_cache(maxsize=256)
def importable(name: str) -> bool:
    """Whether the top-level module ``name`` can be imported in the listing sandbox: built into the interpreter, or
    found in its standard library or the audit's package folders."""
    top = name.split(".")[0]
    if not top.isidentifier():
        return False
    if top in sys.builtin_module_names:
        return True
    try:
        return importlib.machinery.PathFinder.find_spec(top, list(_folders())) is not None
    except (ImportError, ValueError, OSError):
        return False


def missing_module(said: str) -> str | None:
    """The top-level module an exception's text (``Type: message``) says could not be imported, when the sandbox
    does not offer it; None for any other exception, or for a module the sandbox has (a submodule a package no
    longer ships is the listing's own fault)."""
    match = _NO_MODULE.match(said.strip())
    if not match:
        return None
    top = match.group(1).split(".")[0]
    # a name no module can have (the listing built it) is the listing's own fault, as is a module the sandbox has
    return None if not top.isidentifier() or importable(top) else top


def how_to_provide(module: str) -> str:
    """How an author gives the sandbox ``module``: install it beside chapter-audit, and declare it."""
    if module in EXTRAS:
        install = f"install chapter-audit with its {EXTRAS[module]} extra (pip install 'chapter-audit[{EXTRAS[module]}]')"
    else:
        install = (f"install {DISTRIBUTIONS.get(module, module)} in chapter-audit's own environment "
                   f"(pip install {DISTRIBUTIONS.get(module, module)})")
    return (f"{install}, where the listing sandbox finds it read-only, and name {module} in chapter.yaml's "
            "environment: so the load checks it is there")


def unavailable(names) -> list[str]:
    """The names of ``names`` (importable top-level package names) the listing sandbox cannot import."""
    return [n for n in names if not importable(n)]


# --- NumPy names a listing uses that the installed NumPy removed ---------------------------------------------------

#: Names NumPy removed, each with the release that removed it, the call to use instead (as a reader writes it) and
#: that replacement as an expression over the module ``_np``, which the listing is checked with in its place. The
#: 2.0 removals are NumPy's own list (``numpy/_expired_attrs_2_0.py``, NEP 52); the builtin aliases expired in 1.24.
REMOVED_NUMPY = {
    "asfarray": ("2.0", "np.asarray(x, dtype=float)", "lambda a, dtype=_np.float64: _np.asarray(a, dtype=dtype)"),
    "float_": ("2.0", "np.float64", "_np.float64"),
    "complex_": ("2.0", "np.complex128", "_np.complex128"),
    "NaN": ("2.0", "np.nan", "_np.nan"),
    "Inf": ("2.0", "np.inf", "_np.inf"),
    "Infinity": ("2.0", "np.inf", "_np.inf"),
    "infty": ("2.0", "np.inf", "_np.inf"),
    "PINF": ("2.0", "np.inf", "_np.inf"),
    "NINF": ("2.0", "-np.inf", "-_np.inf"),
    "alltrue": ("2.0", "np.all", "_np.all"),
    "sometrue": ("2.0", "np.any", "_np.any"),
    "round_": ("2.0", "np.round", "_np.round"),
    "unicode_": ("2.0", "np.str_", "_np.str_"),
    "string_": ("2.0", "np.bytes_", "_np.bytes_"),
    "mat": ("2.0", "np.asmatrix", "_np.asmatrix"),
    "float": ("1.24", "float", "float"),
    "int": ("1.24", "int", "int"),
    "object": ("1.24", "object", "object"),
    "complex": ("1.24", "complex", "complex"),
    "str": ("1.24", "str", "str"),
}


@lru_cache(maxsize=1)
def numpy_version() -> str:
    """The installed NumPy's version (the one the sandbox offers), "" without NumPy."""
    try:
        from importlib.metadata import version
        return version("numpy")
    except Exception:  # not installed
        return ""


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def removed_numpy(code: str) -> list[str]:
    """The names of ``REMOVED_NUMPY`` that ``code`` reads from NumPy (``np.asfarray`` after ``import numpy as np``,
    ``from numpy import NaN``) and the installed NumPy no longer has (its version at or after their removal), in
    order, once each."""
    installed = numpy_version()
    if not installed:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
               if a.name == "numpy"}
    found = [((n.lineno, n.col_offset), n.attr) for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and isinstance(n.value, ast.Name) and n.value.id in aliases and n.attr in REMOVED_NUMPY]
    found += [((n.lineno, n.col_offset), a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
              and n.module == "numpy" and n.level == 0 for a in n.names if a.name in REMOVED_NUMPY]
    names = dict.fromkeys(name for _, name in sorted(found))
    return [name for name in names if _release(installed) >= _release(REMOVED_NUMPY[name][0])]


def with_numpy_replacements(code: str, names: list[str]) -> str:
    """``code`` run with each removed NumPy name of ``names`` given back as its replacement (``REMOVED_NUMPY``), so
    what the listing computes is checked as if it used the replacement; its own lines unchanged, after any
    ``from __future__`` import."""
    lines = code.split("\n")
    at = 0
    while at < len(lines) and lines[at].startswith("from __future__"):
        at += 1
    shim = ["import numpy as _np"] + [f"_np.{name} = {REMOVED_NUMPY[name][2]}" for name in names]
    return "\n".join(lines[:at] + shim + lines[at:])


def removed_numpy_finding(names: list[str]) -> tuple[str, str]:
    """What a listing that uses removed NumPy names is told: (the finding, the fix)."""
    said = "; ".join(f"np.{name}, which NumPy {REMOVED_NUMPY[name][0]} removed (use {REMOVED_NUMPY[name][1]})"
                     for name in names)
    return (f"as printed it does not run with the installed NumPy {numpy_version()}: it uses {said}; it was checked "
            f"with the replacement in its place",
            "Replace " + ", ".join(f"np.{name} by {REMOVED_NUMPY[name][1]}" for name in names)
            + " so the listing runs with NumPy 2")
