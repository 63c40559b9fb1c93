"""The roles a listing's body settles for parameters whose names and type hints leave them open (``qrels``, ``run``
and ``r`` without a hint), read from how the body uses them. A role is given only when every use agrees with it;
any other use leaves the role open, and the listing stays a draft that asks the author."""

from __future__ import annotations

import ast

from audit.text.python_code import parse_code
from audit.errors import AuditError

#: Methods whose result holds the documents of the ranking they are given (``dict.fromkeys(ranking)``,
#: ``np.asarray(ranking)``).
_SAME_DOCUMENTS = {"fromkeys", "asarray", "array", "copy"}
#: Calls whose result is not a document of the ranking they are given (a count, a sum, an index range).
_NOT_DOCUMENTS = {"len", "sum", "min", "max", "range", "any", "all", "bool", "int", "float"}


def roles_from_body(text: str, quote: str, name: str, roles: dict[str, str | None]) -> dict[str, str | None]:
    """Roles the function's body settles where its parameters' names and hints do not:

    - judgements named without a hint (``qrels``) that the body looks documents of the ranking up in
      (``qrels.get(doc, 0)``, ``qrels[ranking[i - 1]]``, for ``doc`` in the ranking or in a list cut from it,
      ``top = ranking[:k]``) or reads grades from (``qrels.values()``) are one query's ``qrels``;
    - a bare list name (``r``) that the body cuts at the cutoff, sorts or hands on with the cutoff alone
      (``r[:k]``, ``sorted(r, reverse=True)``, ``dcg_at_k(r, k)``), beside nothing but a cutoff, is the ranked
      grades;
    - a ``run`` whose items the body walks query by query (``for qid, ranking in run.items()``) is a run of ranked
      lists when each query's value is cut or enumerated, a scored run when it is looked up or sorted by its scores;
      the ``qrels`` it looks each of those queries up in (``qrels.get(qid, {})``) are qrels by query.
    """
    open_ = [p for p, role in roles.items() if role is None]
    fn = _function(text, quote, name) if open_ else None
    if fn is None:
        return roles
    parents = {child: node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
    out = dict(roles)
    out.update(_one_query_qrels(fn, roles, open_, text))
    out.update(_ranked_grades(fn, roles, open_, parents, text))
    out.update(_by_query(fn, roles, open_))
    return out


def _helper(text: str, call, depth: int):
    """The ``def`` of the function ``call`` calls by name, when the text defines it (a helper the listing or an
    earlier one holds: ``grades_for(ranking, qrels)``, ``_hits(r)``); None beyond ``depth`` helpers deep."""
    if depth <= 0 or not text or not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    import re
    m = re.search(rf"^[ \t]*def\s+{re.escape(call.func.id)}\s*\([^\n]*", text, re.MULTILINE)
    return _function(text, m.group(0).strip(), call.func.id) if m else None


def _parameter_at(helper, call, node) -> str | None:
    """The helper's parameter that ``node``, an argument of ``call``, is passed to."""
    params = [a.arg for a in helper.args.args]
    for i, arg in enumerate(call.args):
        if arg is node and i < len(params):
            return params[i]
    return next((k.arg for k in call.keywords if k.value is node), None)


def returns_mapping(text: str, quote: str, name: str) -> bool:
    """Whether the function returns a mapping it builds (``out = {}`` … ``out[qid] = …`` … ``return out``, or a dict
    comprehension): one value per query, not their mean."""
    fn = _function(text, quote, name)
    if fn is None:
        return False
    mappings = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Dict, ast.DictComp))
                for t in n.targets if isinstance(t, ast.Name)}
    returned = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    return bool(returned) and all(isinstance(v, ast.DictComp) or isinstance(v, ast.Name) and v.id in mappings
                                  for v in returned)


def _function(text: str, quote: str, name: str):
    """The ``def`` of ``name`` the listing at ``quote`` holds, parsed; None when the text holds none that parses."""
    from audit.text.listings import function_source
    if not text:
        return None
    try:
        _, source = function_source(text, quote, name)
        tree = parse_code(source)
    except (AuditError, SyntaxError, ValueError):
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
                None)


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _loops(fn):
    """(target, iterable) of every loop and comprehension in ``fn``."""
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            yield node.target, node.iter
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for g in node.generators:
                yield g.target, g.iter


def _element_target(target, iterable):
    """The names a loop binds to the elements of its iterable: ``doc`` in ``for i, doc in enumerate(xs)``."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return _names(target.elts[1])
    return _names(target)


def _one_query_qrels(fn, roles, open_, text: str = "", depth: int = 2) -> dict[str, str]:
    rankings = {p for p, role in roles.items() if role == "ranking"}
    if not rankings:
        return {}
    derived = set(rankings)   # lists cut or copied from the ranking: ``top = _unique(ranking)[:k]``

    def from_ranking(value) -> bool:
        if isinstance(value, ast.Name):
            return value.id in derived
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
            return from_ranking(value.value)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id not in _NOT_DOCUMENTS:
            return any(from_ranking(a) for a in value.args)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SAME_DOCUMENTS:
            return any(from_ranking(a) for a in value.args)   # dict.fromkeys(ranking): its documents, repeats dropped
        return False

    changed = True
    while changed:
        changed = False
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id not in derived and from_ranking(node.value):
                derived.add(node.targets[0].id)
                changed = True
    documents = set()   # loop variables bound to documents of the ranking
    for target, source in _loops(fn):
        inner = source.args[0] if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) \
            and source.func.id == "enumerate" and source.args else source
        if from_ranking(inner):
            documents |= _element_target(target, source)

    def a_document(node) -> bool:
        if isinstance(node, ast.Name):
            return node.id in documents
        return isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice) and from_ranking(node.value)

    out = {}
    for param in open_:
        if param.lower() not in ("qrels", "judgments", "judgements", "rels", "relevance"):
            continue
        uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == param]
        ok = bool(uses)
        for use in uses:
            holder = next((n for n in ast.walk(fn) if isinstance(n, (ast.Attribute, ast.Subscript)) and n.value is use),
                          None)
            if isinstance(holder, ast.Attribute) and holder.attr == "values":
                continue
            if isinstance(holder, ast.Attribute) and holder.attr == "get":
                call = next((n for n in ast.walk(fn) if isinstance(n, ast.Call) and n.func is holder), None)
                if call is not None and call.args and a_document(call.args[0]):
                    continue
            if isinstance(holder, ast.Subscript) and a_document(holder.slice):
                continue
            if _through_helper(fn, use, from_ranking, text, depth):
                continue
            ok = False
        if ok:
            out[param] = "qrels"
    return out


#: Calls that hand a list on as an array of the same elements (``np.asarray(r)``, ``np.asfarray(r)``, ``list(r)``):
#: a use of their result is a use of the list.
_AS_ARRAY = {"asarray", "array", "asfarray", "asanyarray", "list", "tuple"}
#: What a list of numbers is asked (``r.size``, ``r.nonzero()``) that a list of document IDs is not.
_NUMERIC_ATTRIBUTES = {"size", "shape", "nonzero", "sum", "mean", "cumsum", "astype", "max", "min"}


def _as_array(node, parents):
    """``node``, or the call that converts it to an array or list (``np.asarray(node)``), outermost first."""
    while True:
        parent = parents.get(node)
        func = getattr(parent, "func", None)
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if isinstance(parent, ast.Call) and name in _AS_ARRAY and parent.args and parent.args[0] is node:
            node = parent
            continue
        return node


def _through_helper(fn, use, from_ranking, text: str, depth: int) -> bool:
    """Whether ``use`` (judgements) is handed, beside the ranking, to a helper the text defines that looks the
    ranking's documents up in them (``grades_for(ranking, qrels)`` with ``qrels.get(doc, 0)`` for each ``doc``)."""
    call = next((n for n in ast.walk(fn) if isinstance(n, ast.Call) and (use in n.args or any(k.value is use
                                                                                          for k in n.keywords))), None)
    helper = _helper(text, call, depth)
    if helper is None:
        return False
    judged = _parameter_at(helper, call, use)
    ranked = [_parameter_at(helper, call, a) for a in [*call.args, *(k.value for k in call.keywords)]
              if a is not use and from_ranking(a)]
    if judged is None or len(ranked) != 1 or ranked[0] is None:
        return False
    inner = {p: None for p in (a.arg for a in helper.args.args)}
    inner[ranked[0]] = "ranking"
    return _one_query_qrels(helper, inner, [judged], text, depth - 1).get(judged) == "qrels" if judged.lower() in (
        "qrels", "judgments", "judgements", "rels", "relevance") else False


def _ranked_grades(fn, roles, open_, parents, text: str = "", depth: int = 2) -> dict[str, str]:
    """A bare list (``r``) beside nothing but a cutoff, whose every use is one of a list of grades in rank order:
    cut at the cutoff or sorted (``r[:k]``, ``np.asarray(r)[:k]``, ``sorted(r, reverse=True)``), compared with a
    number (``np.asarray(r) != 0``), asked its size or nonzero positions, indexed, counted in arithmetic or handed on
    with the cutoff alone (``dcg_at_k(r, k)``), also after the body rebinds it to such a use
    (``r = np.asarray(r) != 0``). At least one use must cut, sort or compare it: a list only counted or handed on
    says nothing of what it holds. A membership test, a lookup or a loop over its elements leaves the role open."""
    if len(open_) != 1 or set(roles.values()) - {None} - {"cutoff"}:
        return {}
    param = open_[0]
    cutoffs = {p for p, role in roles.items() if role == "cutoff"}
    names = {param}   # the parameter, and the names the body rebinds to an array of it
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and param in _names(node.value) and _names(node.value) <= {param} | cutoffs | _module_names(fn):
            names.add(node.targets[0].id)
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)]
    evidence = False
    for use in uses:
        node = _as_array(use, parents)
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            evidence |= isinstance(parent.slice, ast.Slice)
            continue
        if isinstance(parent, ast.Compare) and all(isinstance(c, ast.Constant) and isinstance(c.value, (int, float))
                                                   and not isinstance(c.value, bool) for c in parent.comparators) \
                and parent.left is node and all(isinstance(op, (ast.Eq, ast.NotEq, ast.Gt, ast.GtE, ast.Lt, ast.LtE))
                                                 for op in parent.ops):
            evidence = True
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in _NUMERIC_ATTRIBUTES:
            continue
        if isinstance(parent, ast.BinOp) or isinstance(parent, ast.Assign) and parent.value is node:
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            func = parent.func
            if isinstance(func, ast.Name) and func.id == "sorted":
                evidence = True
                continue
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id in _module_names(fn) and func.attr not in ("isin", "in1d", "where"):
                continue   # np.sum(r), np.mean(r), np.count_nonzero(r)
            others = [a for a in parent.args if a is not node]
            # handed on beside numbers the body computes (``precision_at_k(r, i + 1)``), never beside other data
            if isinstance(func, ast.Name) and all(_names(a) <= cutoffs | _bound(fn) for a in others) \
                    and func.id not in _NOT_DOCUMENTS - {"len", "sum", "max", "min"}:
                # a helper the text defines that reads its argument as ranked grades (``_hits(r)`` with
                # ``np.asarray(r) != 0``) says what the list holds
                helper = _helper(text, parent, depth)
                param_there = _parameter_at(helper, parent, node) if helper is not None else None
                if param_there is not None:
                    inner = {p: None for p in (a.arg for a in helper.args.args)}
                    inner.update({_parameter_at(helper, parent, a): "cutoff" for a in others
                                  if isinstance(a, ast.Name) and a.id in cutoffs and _parameter_at(helper, parent, a)})
                    helper_parents = {c: n for n in ast.walk(helper) for c in ast.iter_child_nodes(n)}
                    open_there = [p for p, role in inner.items() if role is None]
                    if open_there == [param_there] and _ranked_grades(helper, inner, open_there, helper_parents, text,
                                                                      depth - 1):
                        evidence = True
                continue
        return {}
    return {param: "ranked grades"} if uses and evidence else {}


def _bound(fn) -> set[str]:
    """The names ``fn``'s loops and comprehensions bind (``k`` in ``for k in range(r.size)``)."""
    return {name for target, _ in _loops(fn) for name in _names(target)}


def _module_names(fn) -> set[str]:
    """The names ``fn`` reads that are modules by the usual aliases (``np``, ``numpy``, ``math``)."""
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in ("np", "numpy", "math")}


def _by_query(fn, roles, open_) -> dict[str, str]:
    runs = [p for p in open_ if p.lower() in ("run", "runs", "run_dict", "results")]
    judgements = [p for p in open_ if p.lower() in ("qrels", "judgments", "judgements")]
    if len(runs) != 1 or len(judgements) > 1:
        return {}
    run = runs[0]
    walks = [(t, s) for t, s in _loops(fn) if isinstance(s, ast.Call) and isinstance(s.func, ast.Attribute)
             and s.func.attr == "items" and isinstance(s.func.value, ast.Name) and s.func.value.id == run
             and isinstance(t, ast.Tuple) and len(t.elts) == 2 and all(isinstance(e, ast.Name) for e in t.elts)]
    if len(walks) != 1:
        return {}
    qid, value = walks[0][0].elts[0].id, walks[0][0].elts[1].id
    kinds = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == value:
            kinds.add("scored run" if node.attr in ("get", "items", "keys", "values") else "?")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == value:
            kinds.add("run" if isinstance(node.slice, ast.Slice) else "?")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == value:
            kinds.add("run")
    if len(kinds) != 1 or "?" in kinds:
        return {}
    out = {run: kinds.pop()}
    for param in judgements:
        lookups = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == "get" and isinstance(n.func.value, ast.Name) and n.func.value.id == param]
        subscripts = [n for n in ast.walk(fn) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                      and n.value.id == param]
        uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == param]
        keyed = [c.args[0] for c in lookups if c.args] + [s.slice for s in subscripts]
        if not uses or len(keyed) != len(uses) or not all(isinstance(k, ast.Name) and k.id == qid for k in keyed):
            return {}
        out[param] = "qrels by query"
    return out
