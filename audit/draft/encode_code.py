"""Code listings a text shows, encoded as code claims (each parameter's role, shown calls and their printed
results), statistics sentences as statistic claims, and the TODO of a statement left a draft.
"""

from __future__ import annotations

import re

from audit.text.python_code import parse_code
from audit.errors import AuditError
from audit.text.literals import literal as read_literal
from audit.model.values import parse_claimed
from audit.draft.encode_fixtures import _MEASURE_NEEDS_CUTOFF
from audit.text.scan import NUM, Statement
from audit.draft.code_roles import returns_mapping, roles_from_body


_ROLES = {"ranking": ("ranking", "retrieved", "run", "results", "docs", "ranked", "doc_ids", "ids", "ranked_ids",
                      "predicted", "predictions", "ranked_list", "retrieved_ids", "preds", "recommended",
                      "recommendations", "recs"),
          "relevant set": ("relevant", "qrels", "gold", "relevant_ids", "truth", "positives", "actual", "relevant_docs",
                           "actuals", "targets", "target", "ground_truth", "relevant_items"),
          "cutoff": ("k", "cutoff", "depth", "n", "top_k"),
          "ranked grades": ("grades", "rels", "relevances", "gains", "graded", "relevance_scores", "labels", "rel",
                            "relevance", "ranked_grades", "scores_true"),
          "qrels": ("qrels", "judgments", "judgements", "grades_by_doc", "relevance", "rel_map", "labels"),
          "judged grades": ("judged", "judged_grades", "all_grades", "pool_grades", "ideal_grades"),
          "relevant count": ("total_relevant", "num_relevant", "n_relevant", "relevant_count", "num_rel", "n_rel",
                             "total_rel", "number_relevant", "num_relevant_docs", "total_relevant_docs",
                             "n_relevant_docs", "relevant_total"),
          "cutoffs": ("ks", "cutoffs", "k_values", "k_list", "depths", "cutoff_list"),
          "scores": ("scores", "score_map", "doc_scores", "scored", "scores_by_doc", "predictions_scores"),
          "scored pairs": ("pairs", "scored_pairs", "ranked_pairs", "scored_docs", "results_with_scores"),
          "ranked grades by query": ("rs", "relevance_lists", "rels_by_query", "grades_by_query", "ranked_grades_list"),
          "per-query values": ("per_query", "values_by_query", "ap_by_query", "aps", "rr_by_query", "scores_by_query",
                               "per_query_values", "per_query_scores"),
          "constant": ("p", "persistence", "patience", "base", "beta", "gamma", "max_grade")}


#: Name fragments → the measure, tried in order: the longer names first ("average_precision_at_k" is AP, not P@k).
_FUNCTION_MEASURES = (("gmap", "GMAP"), ("geometric", "GMAP"), ("rbp", "RBP"), ("rank_biased", "RBP"),
                      ("reciprocal", "RR"), ("mrr", "RR"), ("average_precision", "AP"), ("mean_ap", "AP"),
                      ("map_", "AP"), ("mapk", "AP"), ("apk", "AP"), ("ndcg", "nDCG"), ("dcg", "DCG"), ("r_precision", "Rprec"),
                      ("rprec", "Rprec"), ("recall", "R"), ("precision_at", "P"), ("success", "Success"),
                      ("hit", "Success"), ("precision", "P"))

#: Whole words of a name (split at underscores) → the measure, where no fragment above says it: ``rr_at_k``,
#: ``err_at_k``, ``ap_by_query``, ``p_at_k``. ``p`` and ``r`` count only before ``at`` (``p_at_10``).
_NAME_WORDS = {"rr": "RR", "mrr": "RR", "err": "ERR", "ap": "AP", "map": "AP", "ndcg": "nDCG", "dcg": "DCG",
               "rbp": "RBP", "prec": "P", "rprec": "Rprec"}


def _measure_of(name: str) -> str | None:
    """The measure a function's name says it computes (``average_precision_at_k`` AP, ``rr_at_k`` RR), or None."""
    low = name.lower()
    words = [w for w in low.split("_") if w]
    # whole words first where one names a measure the fragments would misread ("err" holds "rr")
    if "err" in words or "expected_reciprocal" in low:
        return "ERR"
    base = next((b for key, b in _FUNCTION_MEASURES if key in low), None)
    if base is not None:
        return base
    for i, w in enumerate(words):
        if w in _NAME_WORDS:
            return _NAME_WORDS[w]
        if w in ("p", "r") and i + 1 < len(words) and words[i + 1] == "at":
            return "P" if w == "p" else "R"
    return None


_MAPPING_HINT = re.compile(r"\b(?:dict|Dict|Mapping|MutableMapping)\b")


_SEQUENCE_HINT = re.compile(r"\b(?:list|List|Sequence|tuple|Tuple|Iterable)\s*\[\s*(?:int|float)\b")


_SET_HINT = re.compile(r"\b(?:set|Set|frozenset|AbstractSet|Collection)\b")


_NESTED_MAPPING = re.compile(r"\b(?:dict|Dict|Mapping)\s*\[\s*str\s*,\s*(?:dict|Dict|Mapping)\b")


_MAPPING_TO_LIST = re.compile(r"\b(?:dict|Dict|Mapping)\s*\[\s*str\s*,\s*(?:list|List|Sequence|tuple)\b")


def _role(name: str, hint: str) -> str | None:
    """A parameter's role from its name and type hint: a mapping hint makes a judgements name ``qrels``, a list of
    numbers a grades name ``ranked grades``; a cutoff, a ranking and a relevant set by name. ``run`` and ``qrels``
    name one query's input in some texts and several queries' in others, so only a type hint decides them:
    ``dict[str, dict[…]]`` is a scored run or qrels by query, ``dict[str, list[…]]`` a run of ranked lists."""
    low = name.lower()
    if low in _ROLES["cutoff"]:
        return "cutoff"
    if low in _ROLES["relevant count"] and (not hint or hint.strip() in ("int", "int | None", "Optional[int]")):
        return "relevant count"
    for role in ("cutoffs", "scored pairs", "ranked grades by query", "per-query values"):
        if low in _ROLES[role]:
            return role
    if low in _ROLES["scores"] and (not hint or _MAPPING_HINT.search(hint)):
        return "scores"
    if low in ("run", "runs", "run_dict", "results", "qrels", "judgments", "judgements"):
        if _NESTED_MAPPING.search(hint):
            return "qrels by query" if low in ("qrels", "judgments", "judgements") else "scored run"
        if _MAPPING_TO_LIST.search(hint) and low in ("run", "runs", "run_dict", "results"):
            return "run"
        if not hint and low in ("run", "runs", "run_dict", "qrels"):
            return None
    if _MAPPING_HINT.search(hint) and (low in _ROLES["qrels"] or low in _ROLES["relevant set"]):
        return "qrels"
    if low in _ROLES["ranked grades"] and (not hint or _SEQUENCE_HINT.search(hint)):
        return "ranked grades"
    if low in _ROLES["judged grades"] and (not hint or _SEQUENCE_HINT.search(hint) or "None" in hint):
        return "judged grades"
    if low in _ROLES["ranking"]:
        return "ranking"
    if low in _ROLES["relevant set"] and (not hint or _SET_HINT.search(hint) or "list" in hint.lower()):
        return "relevant set"
    return _role_by_words(low, hint)


#: Words of a parameter's name (split at underscores) that say what it holds, where the whole name is not one of
#: ``_ROLES``: ``ranked_doc_ids``, ``retrieved_docs``, ``relevant_doc_ids``, ``gold_set``.
_RANKING_WORDS = frozenset({"ranked", "ranking", "retrieved", "predicted", "returned", "results"})
_RELEVANT_WORDS = frozenset({"relevant", "gold", "truth", "positives", "qrel"})
_ID_WORDS = frozenset({"id", "ids", "doc", "docs", "documents", "items", "list", "set", "passages"})
_GRADE_WORDS = frozenset({"grade", "grades", "rel", "rels", "relevance", "relevances", "gain", "gains", "score",
                          "scores", "label", "labels", "judgments", "judgements"})


def _role_by_words(low: str, hint: str) -> str | None:
    """A ranking or a relevant set from the words of a longer name: a ranking word with an ID word (``ranked_doc_ids:
    List[int]``: integer IDs, not grades), a relevance word with an ID word and a set or list hint, or none."""
    words = set(w for w in low.split("_") if w)
    if words & _GRADE_WORDS or _MAPPING_HINT.search(hint):
        return None
    if words & _RANKING_WORDS and words & _ID_WORDS and not words & _RELEVANT_WORDS and not _SET_HINT.search(hint):
        return "ranking"
    if words & _RELEVANT_WORDS and words & _ID_WORDS and (not hint or _SET_HINT.search(hint) or "list" in hint.lower()):
        return "relevant set"
    return None


def _literal_call(call: str, nparams: int, bound: dict[str, str]) -> bool:
    """Whether ``call`` passes one argument per parameter, each a literal value or a name of ``bound``."""
    import ast

    try:
        node = parse_code(call, mode="eval").body
        if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != nparams:
            return False
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not (isinstance(arg, ast.Name) and arg.id in bound):
                read_literal(arg)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _printed_result(printed: str, structured: bool) -> str | None:
    """The value a doctest's output prints, as a claim's ``returns``: one number, or for a listing returning a list or
    mapping its literal; None for anything else (an array's repr, text)."""
    from audit.model.values import parse_claimed, parse_claimed_parts

    printed = printed.strip()
    if not printed or "\n" in printed:
        return None
    # NumPy 2 prints a scalar with its type (np.float64(0.5)): the number inside is the output
    scalar = re.fullmatch(rf"(?:np|numpy)\.(?:float|int)(?:16|32|64)\((?P<n>{NUM})\)", printed)
    if scalar and not structured:
        printed = scalar.group("n")
    try:
        if structured:
            if printed[:1] in "[{":
                parse_claimed_parts(printed)
                return printed
            return None
        if re.fullmatch(NUM, printed):
            parse_claimed(printed)
            return printed
    except AuditError:
        return None
    return None


def _doctest_calls(text: str, name: str, nparams: int, structured: bool,
                   region: tuple[int, int] | None = None) -> list[dict]:
    """The calls of ``name`` a text's doctests make (read with doctest's own parser, ``audit.text.doctests``), each
    with the output doctest expects (a number, or the literal of a list or mapping) or the exception it expects, and
    the literal each name it passes was last assigned before it."""
    from audit.text.doctests import bindings_before, examples, passed_names, unwrapped

    out = []
    for e in examples(text):
        if region is not None and not region[0] <= e.offset < region[1]:
            continue
        call = e.source
        inner = re.fullmatch(r"print\((?P<call>.*)\)", call, re.S)
        if inner:
            call = inner.group("call")
        # round(f(…), 4) stays as printed (the register quotes the text); it is checked as f(…) at the printed
        # precision
        bare = unwrapped(call)
        if not bare.startswith(f"{name}(") or "\n" in call:
            continue
        names = passed_names(call)
        bound = bindings_before(text, e.offset, names)
        if any(n not in bound for n in names) or not _literal_call(bare, nparams, bound):
            continue
        entry: dict = {"call": call}
        if e.raises is not None:
            entry["raises"] = e.raises
        else:
            printed = _printed_result(e.want, structured)
            if printed is not None:
                entry["returns"] = printed
        if names:
            entry["given"] = {n: bound[n] for n in names}
        out.append(entry)
    return out


def _shown_calls(text: str, name: str, nparams: int, structured: bool = False,
                 region: tuple[int, int] | None = None) -> list[dict]:
    """The calls of ``name`` the text prints: each doctest example calling it (``_doctest_calls``), then each call
    in backticks with literal arguments, with the value printed after it in the same sentence ("returns 0.867",
    "gives 1/3", "→ 0.5"); only calls that pass one argument per parameter. A call printed twice with the same
    names bound to the same literals is drafted once. ``region``: only the calls printed between these offsets (the
    text where one of several versions of the function is the one in force)."""
    import ast

    out, seen = [], set()
    for c in _doctest_calls(text, name, nparams, structured, region):
        key = (c["call"], tuple(sorted(c.get("given", {}).items())))
        if key not in seen:
            seen.add(key)
            out.append(c)
    pattern = re.compile(rf"`(?P<call>{re.escape(name)}\((?:[^`\n()]|\([^`\n()]*\))*\))")
    for m in pattern.finditer(text):
        call = m.group("call")
        if (call, ()) in seen or (region is not None and not region[0] <= m.start() < region[1]):
            continue
        try:
            node = parse_code(call, mode="eval").body
            if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != nparams:
                continue
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                read_literal(arg)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        seen.add((call, ()))
        after = text[m.end():m.end() + 160]
        returned = re.match(rf"\)?`?[^.\n;]{{0,40}}?\b(?:returns?|gives?|prints?|evaluates\s+to|is)\s+"
                            rf"(?P<v>≈\s*)?(?P<n>{NUM})", after) or re.match(rf"\)?`?\s*(?:→|->|=)\s*(?P<v>≈\s*)?(?P<n>{NUM})",
                                                                          after)
        found = returned
        entry = {"call": call}
        if structured:  # a list or mapping printed after the call ("returns [1.0, 0.5]", "→ {'q1': 0.5}")
            found = None
            literal = re.match(r"\)?`?[^.\n;]{0,40}?(?:\b(?:returns?|gives?|prints?|evaluates\s+to|is)\s+|(?:→|->|=)\s*)"
                               r"`?(?P<lit>[\[{][^\n`]*?[\]}])", after)
            if literal:
                from audit.model.values import parse_claimed_parts
                try:
                    parse_claimed_parts(literal.group("lit"))
                    entry["returns"] = literal.group("lit")
                except AuditError:
                    pass
        if found:
            entry["returns"] = ("≈ " if found.groupdict().get("v") else "") + found.group("n")
        out.append(entry)
    return out


def _whole_signature(line: str, text: str) -> str:
    """A ``def`` line with its signature on one line: one whose parameters run over several lines (one per line, as
    formatters write long signatures) is read on from where ``text`` prints it to the colon that ends it, blanks
    collapsed and a trailing comma dropped; any other line as it is."""
    line = line.strip()
    at = text.find(line) if text else -1
    if at < 0 or not re.match(r"(?:async\s+)?def\s+\w+\s*\(", line) or line.count("(") == line.count(")"):
        return line
    depth, end = 0, None
    for i, ch in enumerate(text[at:at + 4000]):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == ":" and depth == 0:
            end = at + i + 1
            break
    if end is None:
        return line
    whole = re.sub(r"\s+", " ", text[at:end])
    whole = re.sub(r"\(\s+", "(", whole)
    return re.sub(r",\s*\)", ")", whole)


def code(s: Statement, text: str = "") -> tuple[list[dict], str]:
    """A code claim for a listing's ``def`` line: the measure from the function's name, each parameter's role from
    its name and type hint (``_role``), and, given the chapter ``text``, the calls it prints (``_shown_calls``); the
    listing must hold the function as Python. Else no claim, and why."""
    signature = _whole_signature(s.text, text)
    m = re.match(r"\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)", signature)
    if not m:
        return [], "not a def line"
    name = m.group("name")
    base = _measure_of(name)
    if base is None:
        return [], f"the name {name!r} does not say which measure the listing computes"
    roles: dict[str, str | None] = {}
    for raw in _split_params(m.group("params")):
        param, _, rest = raw.partition(":")
        param, hint = param.split("=")[0].strip(), rest.split("=")[0].strip()
        if not param or param.startswith("*"):
            return [], f"{name}() takes variable arguments ({raw.strip()}); give each a role by hand"
        role = _role(param, hint)
        if role is None and param.lower() in _ROLES["constant"] and "=" in raw:
            role = "constant"  # a fixed parameter with its literal default (RBP's p=0.8)
        roles[param] = role
    for param, role in roles.items():
        # judgements named without a type hint: one query's beside one query's scores, by query beside a run
        if role is None and param.lower() in ("qrels", "judgments", "judgements"):
            others = set(roles.values())
            roles[param] = ("qrels" if others & {"scores", "scored pairs"} else
                            "qrels by query" if others & {"run", "scored run"} else None)
    roles = roles_from_body(text, s.text.strip(), name, roles)
    for param, role in roles.items():
        if role is None:
            from audit.register.claims import CODE_ROLES
            return [], (f"the role of parameter {param!r} ({', '.join(CODE_ROLES)}) is not clear from its name and "
                        "type hint")
    kinds = set(roles.values())
    ranked = kinds & {"ranking", "scores", "scored pairs"}
    if not (ranked and kinds & {"relevant set", "qrels"} or "ranked grades" in kinds
            or ("qrels by query" in kinds and kinds & {"run", "scored run"})
            or kinds & {"ranked grades by query", "per-query values"}):
        return [], "the listing takes neither a ranking with a relevant set or judgements, nor ranked grades"
    from audit.register.claims import role_problem
    returns = re.search(r"\)\s*->\s*(?P<hint>[^:]+):", signature)
    returns = returns.group("hint") if returns else ""
    shape = ("at each k" if "cutoffs" in kinds or re.search(r"curve|_at_ks\b|_ks\b", name.lower())
             or (_SEQUENCE_HINT.search(returns) and kinds & {"ranking", "scores", "scored pairs", "ranked grades"})
             else "per query" if re.search(r"per_query|by_query", name.lower())
             or ((_MAPPING_HINT.search(returns) or returns_mapping(text, s.text.strip(), name))
                 and kinds & {"run", "scored run", "ranked grades by query"})
             else "number")
    if role_problem(kinds, shape):
        return [], role_problem(kinds, shape)
    has_k = bool(kinds & {"cutoff", "cutoffs"}) or shape == "at each k"
    if base in _MEASURE_NEEDS_CUTOFF and not has_k:
        return [], f"{base} needs a cutoff parameter"
    if base == "RBP":
        from audit.register.claims import parameter_defaults
        persistence = next((p for p, role in roles.items() if role == "constant" and p.lower() in
                            ("p", "persistence", "patience")), None)
        default = parameter_defaults(s.text.strip() + "\n    pass\n", name).get(persistence) if persistence else None
        if not isinstance(default, float):
            return [], f"{name}() computes RBP; its persistence is not a parameter with a literal default"
        base = f"RBP(p={default})"
    measure = f"{base}@k" if has_k else base
    claim = {"kind": "code", "quote": s.text.strip(), "claim": f"{name}() computes {measure}"
             + {"per query": " for each query", "at each k": " at each cutoff"}.get(shape, ""),
             "function": name, "measure": measure, "arguments": roles}
    if shape != "number":
        claim["shape"] = shape
    if text:
        from audit.text.listings import (
            builds_on_lines,
            candidates,
            defines,
            find_listings,
            function_source,
            occurrence_of,
        )
        listings = find_listings(text)
        line = text.count("\n", 0, s.start) + 1
        at = next((i for i, listing in enumerate(listings) if listing.start <= line <= listing.end), None)
        occurrence = occurrence_of(listings, at, claim["quote"], name) if at is not None else None
        if occurrence is not None:
            claim["occurrence"] = occurrence  # the same def line in several listings: this claim is on this one
        try:
            function_source(text, claim["quote"], name, occurrence=occurrence)
        except AuditError as exc:
            return [], exc.message
        # helpers of earlier listings (a notebook's cells)
        earlier = builds_on_lines(text, claim["quote"], name, occurrence)
        if earlier:
            claim["builds_on"] = earlier
        region = None
        if occurrence is not None:
            # the calls printed while this version is the one in force: from it (from the start, for the first) to
            # the next listing defining the function again
            found = candidates(listings, claim["quote"], name)
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
            first = 0 if occurrence == 1 else starts[listings[found[occurrence - 1]].start - 1]
            following = [i for i in range(at + 1, len(listings)) if defines(listings[i], name)]
            last = starts[listings[following[0]].start - 1] if following else len(text)
            region = (first, last)
        calls = _shown_calls(text, name, len(roles), structured=shape != "number", region=region)
        if calls:
            claim["calls"] = calls
    return [claim], ""


def _split_params(params: str) -> list[str]:
    """A def line's parameters, split at the commas outside brackets (``grades: list[int], k: int``)."""
    out, depth, current = [], 0, ""
    for ch in params:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        current += ch
    if current.strip():
        out.append(current)
    return [p for p in out if p.strip() and p.strip() not in ("self", "/", "*")]


_T_REPORT = re.compile(r"\bt\s*\(\s*(?P<df>\d{1,6}(?:\.\d{1,4})?)\s*\)\s*=\s*(?P<t>[-−]?\d*\.?\d+)\s*[,;]\s*p\s*"
                       r"(?P<rel>=|<|>|≤|≥)\s*(?P<p>0?\.\d+|[01](?:\.\d+)?)")


_SIDED = re.compile(r"\b(?P<side>one|two)[- ]sided\b|\b(?P<tails>one|two)[- ]tailed\b", re.IGNORECASE)


def statistics(s: Statement) -> list[dict]:
    """A statistic claim for each t-test the sentence reports as t(df) = t, p = …, checked for consistency without
    its data (``statistic`` claims' ``reported``); the sidedness when the sentence states it. The test is the one
    the sentence names: Welch's for a decimal df or when it says Welch (or equal_var=False), Student's unpaired test
    when it names an unpaired one (ttest_ind, two-sample, independent samples), else the paired t-test."""
    from audit.text.t_tests import t_tests_named

    named = t_tests_named(s.text)
    out = []
    side = _SIDED.search(s.text)
    sided = None
    if side:
        word = (side.group("side") or side.group("tails")).lower()
        sided = "two" if word == "two" else None  # a one-sided test's direction is the data's, read from t's sign
    for m in _T_REPORT.finditer(s.text):
        t = m.group("t").replace("−", "-")
        rel = {"=": "", "≤": "<= ", "≥": ">= "}.get(m.group("rel"), m.group("rel") + " ")
        if side and (side.group("side") or side.group("tails")).lower() == "one":
            sided = "less" if t.startswith("-") else "greater"
        df = m.group("df")
        test = ("welch t" if "." in df or "welch t" in named else "student t" if "unpaired" in named else "paired t")
        if test == "welch t" and "paired t" in named and "unpaired" not in named:
            continue  # a paired test with a fractional df: the author says which test it was
        claim = {"kind": "statistic", "quote": s.text[m.start():m.end()].strip(),
                 "claim": f"t({df}) = {t} gives p {m.group('rel')} {m.group('p')}", "test": test,
                 "reported": {"t": t, "df": df if "." in df else int(df), "p": rel + m.group("p")}}
        if sided:
            claim["sided"] = sided
        out.append(claim)
    return out


#: A sentence that reports a significance test: its numbers are the test's, whatever the scanner calls them.
_NAMES_A_TEST = re.compile(r"\bsign\s+test|\bwilcoxon|\bt-?test|\bpermutation\s+test|\brandomi[sz]ation\s+test|"
                           r"\bbootstrap|\bp[-\s]?value|\bp\s*(?:=|<|>|≤|≈)\s*0?\.\d|\bstatistically\s+significant",
                           re.IGNORECASE)


def todo(s: Statement, reason: str) -> str:
    """The TODO a draft carries: what to encode and what the sentence did not give."""
    what = {"arithmetic": "an arithmetic claim (expression and printed value)",
            "count": "an arithmetic claim n/d against the printed share (with set_measure and a cohort to check it "
                     "against the references)",
            "value": "a value claim: a fixture (qrels and run) and each measure with its printed value",
            "universal": "a property claim (measure, relation, compare: next_cutoff | transform | measure) or a "
                         "comparison between two fixtures",
            "definition": "a value claim on a small fixture that exercises the definition",
            "convention": "a convention claim (repeated_ids, ties, unjudged or cutoff) with a probe fixture, if the "
                          "references should be checked against it; what it states belongs in chapter.yaml's "
                          "`conventions:` (init declares the wordings it recognises)",
            "listing": "a code claim (function, measure, argument roles)",
            "statistic": "a statistic claim (the test, its data as printed, the statistics the sentence prints, the "
                         "decision and α)"}.get(s.kind, "a claim")
    tested = s.kind != "listing" and _NAMES_A_TEST.search(s.text)
    if tested and s.kind in ("count", "value", "arithmetic"):
        # "29 of the 50 topics improved (sign test, p = 0.3222)": the counts are a test's data, not a share to check
        what = ("a statistic claim (the test the sentence names, its data or counts as printed, the p it prints and "
                "the decision); the counts are the test's data, not a share to check against the p")
    because = f"; not encoded because {reason}" if reason else ""
    where = "docs/statistics.md" if s.kind == "statistic" or tested else "docs/authoring.md"
    return f"TODO: encode as {what}{because}. See {where}."
