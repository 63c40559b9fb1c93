"""What a listing does beyond computing, read from its syntax tree before its verdict can be certified.

A code claim certifies a listing's function for what an ordinary caller gets from it. Metric code computes: it
imports the modules metric code uses (``ALLOWED``), calls functions, loops and returns numbers. A listing that
reaches the interpreter's or the process's machinery — files and descriptors, ``os``/``sys``/``ctypes``/``struct``/
``gc``/``inspect``/``importlib``/``builtins``, frames, dunder and private attributes, ``eval``/``exec``/``open``,
attribute names chosen at run time, patching another module — could behave one way for the audit and another for
a reader, and needs none of it to compute a measure. ``findings`` names each such thing with its line; a listing
with any finding is not certified (its verdict is an error naming them), whatever it returns.

The check is syntactic and deliberately strict: it reads names, not behaviour, so a listing is judged by what it
could reach, and the modules it may import are an allow-list, not a deny-list.
"""

from __future__ import annotations

import ast
import re

#: Top-level modules metric code imports: the standard library's numeric and data-structure modules, the scientific
#: stack, and the three references.
ALLOWED = frozenset({
    "math", "cmath", "fractions", "decimal", "statistics", "numbers", "collections", "itertools", "functools",
    "operator", "heapq", "bisect", "typing", "dataclasses", "random", "enum", "abc", "string", "re", "copy",
    "__future__", "numpy", "scipy", "pandas", "sklearn", "ir_measures", "pytrec_eval", "ranx",
})
#: Modules whose results are NumPy scalars or arrays (the sandbox's runner loads NumPy before the listing runs, so
#: the types it reads results as are NumPy's own, not whatever the listing names so).
NUMERIC = frozenset({"numpy", "scipy", "pandas", "sklearn", "ranx", "ir_measures"})

#: Built-in names that reach code, files, the interpreter or attributes by run-time name.
BUILTINS = {
    "open": "opens a file", "eval": "evaluates text as code (eval)", "exec": "executes text as code (exec)",
    "compile": "compiles text as code", "__import__": "imports by name (__import__)",
    "globals": "reads its global namespace (globals())", "locals": "reads a namespace (locals())",
    "vars": "reads an object's namespace (vars())", "dir": "lists an object's attributes (dir())",
    "setattr": "sets an attribute by name (setattr)", "delattr": "deletes an attribute by name (delattr)",
    "breakpoint": "starts a debugger (breakpoint)", "input": "reads the console (input)",
    "help": "starts the help system", "memoryview": "takes a raw view of memory (memoryview)",
    "exit": "ends the interpreter (exit)", "quit": "ends the interpreter (quit)",
}
#: ``getattr``/``hasattr`` are read as ``obj.name`` when the name is a literal, and refused otherwise.
BY_NAME = {"getattr", "hasattr"}

#: Module names (attributes of that name lead to the module: ``numpy.lib.npyio.os``).
MODULES = frozenset({
    "os", "sys", "posix", "nt", "ctypes", "ctypeslib", "struct", "gc", "inspect", "importlib", "builtins", "io",
    "subprocess", "socket", "signal", "shutil", "pathlib", "tempfile", "mmap", "fcntl", "resource", "select",
    "selectors", "threading", "multiprocessing", "concurrent", "asyncio", "pickle", "marshal", "shelve", "types",
    "code", "codeop", "runpy", "pty", "platform", "glob", "weakref", "atexit", "faulthandler", "tracemalloc",
    "site", "sysconfig", "pydoc", "webbrowser", "urllib", "http", "ftplib", "smtplib", "zipimport", "pkgutil",
    "linecache", "traceback", "warnings", "logging", "dis", "opcode", "ast", "symtable", "tokenize", "_thread",
})
#: Attributes of frames, tracebacks, generators and code objects (introspection without a dunder).
FRAMES = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended", "cr_frame", "cr_code", "cr_await",
    "cr_origin", "cr_running", "ag_frame", "ag_code", "ag_await", "ag_running", "tb_frame", "tb_next", "tb_lasti",
    "tb_lineno", "f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_trace", "f_lasti", "f_lineno",
    "f_trace_lines", "f_trace_opcodes", "exc_info", "last_traceback", "modules",
})
#: Attributes of the allowed libraries that read or write files, map memory or alias it.
FILES = frozenset({
    "tofile", "fromfile", "load", "loadtxt", "save", "savez", "savez_compressed", "savetxt", "genfromtxt", "memmap",
    "open_memmap", "fromregex", "DataSource", "as_strided", "stride_tricks", "from_file", "to_csv", "to_json",
    "to_pickle", "to_parquet", "to_excel", "to_hdf", "to_sql", "to_feather", "to_stata", "to_orc", "to_xml",
    "to_clipboard", "to_latex", "to_html", "to_markdown", "to_string", "dump", "dumps", "loads",
})
FILE_PREFIXES = ("read_", "fetch_", "load_", "save_", "write_", "from_file")
#: Functions that evaluate annotations (a string annotation is code they run) or reach attributes by a dotted name
#: held in a string (``operator.attrgetter("contextlib.os.path")``).
EVALUATES = frozenset({"get_type_hints", "ForwardRef", "_eval_type", "evaluate_forward_ref", "get_annotations"})
BY_STRING = frozenset({"attrgetter", "methodcaller"})
#: A format template reading an attribute the rules above refuse (``"{0.gi_frame}".format(g)``).
_TEMPLATE = re.compile(r"\{[^{}]*?[.\[]\s*(_|(?:" + "|".join(sorted(FRAMES)) + r")\b)")


#: Why a listing that can tell a limited memory from an unlimited one is not certified.
MEMORY = " (the sandbox limits memory; a reader's machine may not)"
#: Exception classes that catch a ``MemoryError``: the sandbox limits a call's memory, so a listing that catches one
#: can tell the audit's run from a reader's (a large allocation fails in one and not the other) and answer each
#: otherwise.
CATCH_MEMORY = frozenset({"MemoryError", "Exception", "BaseException"})
#: Functions and methods that allocate memory of a size given as an argument.
ALLOCATORS = frozenset({"bytearray", "bytes", "zeros", "ones", "empty", "full", "rand", "randn", "random",
                        "standard_normal", "arange"})
#: A size in an allocation, or a repeat count of a sequence, at least this large (100 MB of bytes; more in any other
#: element type) is no metric's: the sandbox's memory limit fails it where a reader's machine may not.
LARGE = 10**8


def _constant(node: ast.AST) -> int | None:
    """The whole number a constant expression gives (``600_000_000``, ``6 * 10**8``, ``1 << 30``, ``int(6e8)``), or
    None; bounded so that reading it costs nothing (``10**10**10`` is None)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        value = node.value
        return int(value) if isinstance(value, int) or (value == value and abs(value) < 10**30) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _constant(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float") \
            and len(node.args) == 1 and not node.keywords:
        return _constant(node.args[0])
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:  # a shape: its element count
        sizes = [_constant(e) for e in node.elts]
        if any(v is None for v in sizes):
            return None
        total = 1
        for v in sizes:
            total *= v
        return total if abs(total) < 10**40 else None
    if isinstance(node, ast.BinOp):
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right if abs(left) < 10**20 and abs(right) < 10**20 else None
        if isinstance(node.op, ast.Pow) and 0 <= right <= 64 and abs(left) <= 10**6:
            return left ** right if abs(left) < 2 or right * abs(left).bit_length() <= 140 else None
        if isinstance(node.op, ast.LShift) and 0 <= right <= 128 and abs(left) < 10**20:
            return left << right
    return None


def _catches_memory(handler: ast.ExceptHandler, scopes: "_Scopes") -> str:
    """Why ``handler`` may catch a ``MemoryError`` (empty when it cannot): a bare ``except``, ``except Exception``,
    ``BaseException`` or ``MemoryError`` (by name or as an attribute), or a class the listing names by one of its
    own variables, which may hold any of them."""
    if handler.type is None:
        return "catches every exception (a bare except), MemoryError among them"
    for node in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]):
        if isinstance(node, ast.Name):
            if node.id in CATCH_MEMORY:
                return (f"catches {node.id}" + ("" if node.id == "MemoryError" else ", MemoryError among them"))
            if not scopes.builtin(node):
                return f"catches an exception class held in its own name {node.id}, which may be MemoryError"
        elif isinstance(node, ast.Attribute):
            if node.attr in CATCH_MEMORY:
                return f"catches {node.attr}" + ("" if node.attr == "MemoryError" else ", MemoryError among them")
        else:
            return "catches an exception class computed at run time, which may be MemoryError"
    return ""


def _handler_type(node: ast.AST, scopes: "_Scopes") -> bool:
    """Whether ``node`` is (an element of) the class an ``except`` clause catches, which ``_catches_memory`` reads."""
    parent = scopes.parents.get(id(node))
    if isinstance(parent, ast.Tuple):
        parent = scopes.parents.get(id(parent))
    return isinstance(parent, ast.ExceptHandler)


def _leaves_finally(statements: list[ast.stmt]) -> bool:
    """Whether a ``finally`` block returns, breaks or continues out of itself, which silences any exception its
    ``try`` raised (a ``MemoryError`` among them)."""
    def walk(node: ast.AST, in_loop: bool) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(node, ast.Return) or (isinstance(node, (ast.Break, ast.Continue)) and not in_loop):
            return True
        loop = in_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        return any(walk(child, loop) for child in ast.iter_child_nodes(node))
    return any(walk(statement, False) for statement in statements)


def _attribute(name: str) -> str:
    """Why reading attribute ``name`` is refused (empty when it is not)."""
    if name.startswith("__") and name.endswith("__"):
        return f"reads the dunder attribute {name}"
    if name.startswith("_"):
        return f"reads the private attribute {name}"
    if name in MODULES:
        return f"reaches the module {name} through an attribute"
    if name in FRAMES:
        return f"reads frame or interpreter state ({name})"
    if name in FILES or name.startswith(FILE_PREFIXES):
        return f"reads or writes files or raw memory ({name})"
    if name in EVALUATES:
        return f"evaluates annotations, which may hold any code ({name})"
    return ""


def _dotted(text: str) -> str:
    """Why a dotted name held in a string (``"contextlib.os.path.exists"``, a template's ``0.a[b].c``) is refused:
    any of its parts that ``_attribute`` refuses."""
    for part in re.split(r"[.\[\]]+", text):
        if part and (why := _attribute(part.strip())):
            return why
    return ""


def _template(text: str) -> str:
    """Why a format template is refused: a replacement field that reads an attribute ``_attribute`` refuses
    (``"{0.contextlib.os.environ}"``)."""
    import string
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except (ValueError, TypeError):
        return ""
    for field in fields:
        if (why := _dotted(field)) and ("." in field or "[" in field):
            return why
    return ""


def _module(name: str) -> str:
    return "" if name.split(".")[0] in ALLOWED else f"imports {name}"


#: The allow-list in words, for a report that names an import outside it.
ALLOWED_TEXT = ("a listing may import only " + ", ".join(sorted(ALLOWED - {"__future__"}))
                + " and __future__")


class _Scopes:
    """The names each function, lambda and comprehension binds, so that a parameter called ``input`` or ``dir`` is
    the listing's own and not the built-in."""

    def __init__(self, tree: ast.AST):
        self.bound: dict[int, set[str]] = {}
        self.parents: dict[int, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                                 ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                self.bound[id(node)] = set()
        for node in ast.walk(tree):
            scope = self._scope(node)
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.bound[id(scope)].add(node.id)
            elif isinstance(node, ast.arg):
                self.bound[id(scope)].add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound[id(self._scope(self.parents[id(node)]) if id(node) in self.parents else scope)].add(
                    node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    self.bound[id(scope)].add((alias.asname or alias.name).split(".")[0])

    def _scope(self, node: ast.AST) -> ast.AST:
        """The innermost scope holding ``node`` (a function's own node for its arguments and body)."""
        while id(node) not in self.bound:
            node = self.parents[id(node)]
        return node

    def builtin(self, node: ast.Name) -> bool:
        """Whether the name ``node`` reads is the built-in of that name (no enclosing scope binds it)."""
        scope = self._scope(self.parents[id(node)])
        inner = True
        while True:
            if node.id in self.bound[id(scope)] and (inner or not isinstance(scope, ast.ClassDef)):
                return False
            if isinstance(scope, ast.Module):
                return True
            scope, inner = self._scope(self.parents[id(scope)]), False


def findings(source: str) -> list[tuple[int, str]]:
    """What ``source`` does beyond computing: (line of ``source``, phrase) pairs such as (2, "imports os"), in the
    order they appear, each phrase once (at its first line); empty for a listing that only computes. A listing that
    is not valid Python gives none (it cannot load, which the sandbox reports)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):
        return [(1, "is too deeply nested to be read")]
    scopes = _Scopes(tree)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported |= {a.asname or a.name for a in node.names}
    found: list[tuple[int, int, str]] = []

    def add(node: ast.AST, what: str) -> None:
        found.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if why := _module(alias.name):
                    add(node, why)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                add(node, "imports relative to a package")
            elif why := _module(node.module or ""):
                add(node, why)
            for alias in node.names:
                if alias.name == "*":
                    add(node, f"imports every name of {node.module} (a star import)")
                elif why := _attribute(alias.name):
                    add(node, why.replace("reads the", "imports the").replace("through an attribute",
                                                                                 "from another module"))
        elif isinstance(node, ast.Attribute):
            if why := _attribute(node.attr):
                add(node, why)
            elif isinstance(node.ctx, (ast.Store, ast.Del)):
                root = node.value
                while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                    root = root.func if isinstance(root, ast.Call) else root.value
                if isinstance(root, ast.Name) and root.id in imported:
                    add(node, f"patches the imported {root.id} (sets {node.attr})")
        elif isinstance(node, ast.Name):
            if node.id == "MemoryError" and isinstance(node.ctx, ast.Load) and scopes.builtin(node) \
                    and not _handler_type(node, scopes):
                add(node, "names MemoryError" + MEMORY)
            elif node.id.startswith("__") and node.id.endswith("__") and node.id not in ("__name__", "__doc__"):
                add(node, f"uses the interpreter's name {node.id}")
            elif isinstance(node.ctx, ast.Load) and (node.id in BUILTINS or node.id in BY_NAME) \
                    and scopes.builtin(node):
                if node.id in BUILTINS:
                    add(node, BUILTINS[node.id])
                else:
                    call = scopes.parents.get(id(node))
                    name = (call.args[1] if isinstance(call, ast.Call) and call.func is node and len(call.args) >= 2
                            else None)
                    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                        add(node, f"reads an attribute by a name chosen at run time ({node.id})")
                    elif why := _attribute(name.value):
                        add(node, why)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                _TEMPLATE.search(node.value) or (_template(node.value) and _formatted(node, scopes))):
            add(node, "formats a template that reads a private, frame or module attribute")
        elif isinstance(node, ast.arg) and isinstance(node.annotation, ast.Constant) \
                and isinstance(node.annotation.value, str) and not _plain_annotation(node.annotation.value):
            add(node, "writes an annotation as a string of code, which whatever evaluates annotations runs")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign)) and isinstance(
                annotation := (node.returns if not isinstance(node, ast.AnnAssign) else node.annotation),
                ast.Constant) and isinstance(annotation.value, str) and not _plain_annotation(annotation.value):
            add(node, "writes an annotation as a string of code, which whatever evaluates annotations runs")
        elif isinstance(node, ast.ExceptHandler):
            if why := _catches_memory(node, scopes):
                add(node, why + MEMORY)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) and node.finalbody \
                and _leaves_finally(node.finalbody):
            add(node.finalbody[0], "returns or breaks out of a finally block, which silences any exception, "
                                   "MemoryError among them" + MEMORY)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__exit__", "__aexit__"):
            add(node, f"defines {node.name}, which can silence any exception of its with block, MemoryError among "
                      "them" + MEMORY)
        elif isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id in BY_STRING)
                or (isinstance(node.func, ast.Attribute) and node.func.attr in BY_STRING)):
            names = [*node.args, *(k.value for k in node.keywords)]
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in names[:1]) or any(
                    _dotted(a.value) for a in names[:1]):
                add(node, "reaches an attribute by a name held in a string "
                          f"({node.func.id if isinstance(node.func, ast.Name) else node.func.attr})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("format", "format_map", "vformat") \
                and not (isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)) \
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("str",) and node.args
                         and isinstance(node.args[0], ast.Constant)):
            add(node, "formats a template built at run time, which may read any attribute")
        elif isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id in ALLOCATORS)
                or (isinstance(node.func, ast.Attribute) and node.func.attr in ALLOCATORS)):
            size = max((v for v in map(_constant, [*node.args[:1], *(k.value for k in node.keywords
                                                                    if k.arg in ("shape", "size"))])
                        if v is not None), default=None)
            if size is not None and size >= LARGE:
                add(node, f"allocates {size:,} elements at once, more than the sandbox's memory limit" + MEMORY)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for sequence, count in ((node.left, node.right), (node.right, node.left)):
                size = _constant(count)
                if isinstance(sequence, (ast.List, ast.Tuple, ast.JoinedStr)) or (
                        isinstance(sequence, ast.Constant) and isinstance(sequence.value, (str, bytes))):
                    if size is not None and size >= LARGE:
                        add(node, f"repeats a sequence {size:,} times, more than the sandbox's memory limit"
                                  + MEMORY)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if name.startswith("__") and name.endswith("__"):
                    add(node, f"uses the interpreter's name {name}")
    out: dict[str, int] = {}
    for line, _, what in sorted(found):
        out.setdefault(what, line)
    return [(line, what) for what, line in out.items()]


def _plain_annotation(text: str) -> bool:
    """Whether a string annotation is a plain type (``"list[str]"``, ``"Optional[dict]"``, ``"np.ndarray"``): names,
    attributes, subscripts and ``|``, nothing ``_attribute`` refuses, no call."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List,
                                 ast.Load, ast.BinOp, ast.BitOr, ast.Constant)):
            return False
        if isinstance(node, ast.Attribute) and _attribute(node.attr):
            return False
        if isinstance(node, ast.Name) and (node.id.startswith("_") or node.id in BUILTINS or node.id in MODULES):
            return False
    return True


def _formatted(node: ast.AST, scopes: "_Scopes") -> bool:
    """Whether a string constant is formatted (``"…".format(x)``, ``format_map``) or held in a name, either of which
    a later ``.format`` may use: a template with a refused field that nothing formats is plain text."""
    parent = scopes.parents.get(id(node))
    return not (isinstance(parent, ast.Expr)) and not isinstance(parent, ast.JoinedStr)


def numeric(source: str) -> bool:
    """Whether ``source`` imports a module whose results are NumPy scalars or arrays."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    return bool(roots & NUMERIC)
