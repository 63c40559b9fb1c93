"""A corrected listing for a code claim: the function rewritten from the chapter's definition of its measure under
the chapter's conventions, in the listing's own signature (the parameter names, order and type hints it prints),
with a parameter added only where the signature cannot see what the definition needs (the judged grades behind an
ideal DCG, the number of relevant documents behind recall, when the function takes only the ranked grades).

What is written (``write``): one query's P, R, RR, AP, Success, DCG and nDCG, at a cutoff or over the whole
ranking, over a ranking (or its scores) with a relevant set or a {document: grade} mapping, or over the ranked grades;
the same over a run with qrels by query, as the mean or per query (``averaging``, ``no_qrels``, ``no_relevant``); under the
conventions ``repeated_ids``, ``precision_denominator``, ``ap_denominator``, ``rr_cutoff``, ``gain``, ``discount`` and
``ideal`` (each value the chapter's evaluator models, except ``ideal: retrieved only``), with unjudged documents
non-relevant and relevance level 1 for graded measures. Anything else raises ``NotWritten`` naming it. The result is
not trusted: the proposal runs it through the same differential test as the listing before it is printed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from audit.register.claims import CodeClaim, parameter_defaults
from audit.measures.syntax import parse as parse_measure

_SINGLE = {"ranking", "relevant set", "qrels", "ranked grades", "judged grades", "relevant count", "cutoff", "scores",
           "scored pairs"}
#: The parameter added when only the ranked grades are given and the measure needs every judged grade.
JUDGED = "judged"


class NotWritten(Exception):
    """No corrected listing is written for this claim; the message says why."""


@dataclass
class Rewrite:
    """The corrected function's source (no indentation), the roles of its parameters (the claim's, plus an added
    one), the name of an added parameter (or ""), and whether it needs ``import math``."""

    source: str
    arguments: dict[str, str]
    added: str = ""
    needs_math: bool = False
    notes: list[str] = field(default_factory=list)


def _signature(node: ast.FunctionDef, added: str) -> str:
    """The function's parameters as printed, with ``added`` appended as an optional list of grades."""
    args = node.args
    text = ast.unparse(args)
    if added:
        extra = f"{added}: list[int] | None = None" if any(a.annotation for a in args.args) else f"{added}=None"
        text = f"{text}, {extra}" if text else extra
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"def {node.name}({text}){returns}:"


def write(claim: CodeClaim, reading: dict[str, str], source: str) -> Rewrite:
    """The corrected function for ``claim`` under ``reading`` (the chapter's conventions), in the signature
    ``source`` prints. Raises ``NotWritten`` for what this writer does not cover."""
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == claim.function)
    roles = dict(claim.arguments)
    by_role = {role: p for p, role in roles.items()}
    if set(by_role) & {"run", "scored run"} and "qrels by query" in by_role \
            and set(by_role) <= {"run", "scored run", "qrels by query", "cutoff"} and claim.shape in ("number", "per query"):
        return _over_run(claim, reading, node, by_role)
    if claim.shape != "number":
        raise NotWritten("a listing returning a list or mapping is not rewritten; the finding lists what to change")
    if not set(by_role) <= _SINGLE:
        raise NotWritten("a listing over several queries, or taking cutoffs or a constant, is not rewritten; the "
                         "finding lists what to change")
    _, spec = parse_measure(claim.measure.replace("@k", "@1"))
    if spec is None:
        raise NotWritten(f"{claim.measure} is not one the chapter's definitions write out")
    name = spec.name
    if name not in ("P", "R", "RR", "AP", "Success", "DCG", "nDCG"):
        raise NotWritten(f"no corrected listing is written for {name}")
    level = int(reading.get("relevance_level", "1"))
    graded = name in ("DCG", "nDCG")
    if graded and level != 1:
        raise NotWritten("a graded measure at a relevance level above 1 is not rewritten")
    if reading.get("unjudged", "non-relevant") != "non-relevant":
        raise NotWritten("unjudged documents removed from the ranking is not rewritten")
    if spec.rel is not None:
        level = spec.rel
    k = by_role.get("cutoff")
    needs_judged = name in ("R", "AP", "nDCG") or (name == "P" and reading["precision_denominator"] == "min(k, |R|)")
    if name == "nDCG" and reading["ideal"] in ("all retrieved, cut at k",):
        needs_judged = False
    if name == "nDCG" and reading["ideal"] == "retrieved only":
        raise NotWritten("the ideal DCG “retrieved only” is not rewritten")
    if name == "AP" and reading["ap_denominator"] == "relevant retrieved":
        needs_judged = False

    lines: list[str] = []
    added = optional = ""  # a judged-grades parameter added here; one that is optional (added, or already so)
    # what the measure walks (document IDs or grades, in rank order), how a relevant one is told, and |R|
    if "scores" in by_role or "scored pairs" in by_role:
        lines.append("ranking = " + _by_score(by_role.get("scores"), by_role.get("scored pairs"),
                                              reading.get("ties", "listed order")))
        by_role["ranking"] = "ranking"
    if "ranking" in by_role:
        ranking = by_role["ranking"]
        rule = reading["repeated_ids"]
        if rule == "reject":
            lines.append(f"if len(set({ranking})) != len({ranking}):")
            lines.append("    raise ValueError(\"a ranking may not repeat a document ID\")")
        elif rule == "keep first":
            lines.append(f"{ranking} = list(dict.fromkeys({ranking}))  # a repeated ID counts once, where it first appears")
        elif rule == "keep last":
            lines.append(f"{ranking} = list(dict.fromkeys(reversed({ranking})))[::-1]  # a repeated ID counts where it "
                         "last appears")
        item, walked = "d", ranking
        if "qrels" in by_role:
            qrels = by_role["qrels"]
            grade, judged = f"{qrels}.get(d, 0)", f"{qrels}.values()"
            is_relevant = f"{grade} >= {level}"
            count_r = f"sum(1 for g in {qrels}.values() if g >= {level})"
        elif "relevant set" in by_role:
            relevant_set = by_role["relevant set"]
            if graded:
                raise NotWritten(f"{name} needs grades; the function takes a relevant set")
            grade, judged = f"(1 if d in {relevant_set} else 0)", None
            is_relevant = f"d in {relevant_set}"
            count_r = f"len({relevant_set})"
        else:
            raise NotWritten("a ranking with neither a relevant set nor judgements")
    elif "ranked grades" in by_role:
        grades = by_role["ranked grades"]
        item, walked, grade = "g", grades, "g"
        is_relevant = f"g >= {level}"
        if "relevant count" in by_role and name != "nDCG":  # |R| is given: no judged grade is needed
            judged = None
        elif "judged grades" in by_role:
            judged = by_role["judged grades"]
            defaults = parameter_defaults(source, claim.function)
            if judged in defaults and defaults[judged] is None:  # an optional judged-grades argument
                lines.append(f"if {judged} is None:  # every judged grade; None: the ranked grades are all of them")
                lines.append(f"    {judged} = {grades}")
                optional = judged
        elif needs_judged:
            added = JUDGED
            roles[JUDGED] = "judged grades"
            lines.append(f"if {JUDGED} is None:  # every judged grade; None: the ranked grades are all of them")
            lines.append(f"    {JUDGED} = {grades}")
            judged = optional = JUDGED
        else:
            judged = grades
        count_r = by_role["relevant count"] if judged is None else f"sum(1 for g in {judged} if g >= {level})"
    else:
        raise NotWritten("the function takes neither a ranking nor ranked grades")
    if k is not None and k in parameter_defaults(source, claim.function) \
            and parameter_defaults(source, claim.function)[k] is None:
        # the signature's own default: no cutoff given means the whole ranking (its callers may rely on it)
        lines += [f"if {k} is None:  # no cutoff: the whole ranking", f"    {k} = len({walked})"]
    top = f"{walked}[:{k}]" if k is not None else walked
    hits = f"sum(1 for {item} in {top} if {is_relevant})"
    needs_math = False
    if name == "P":
        denominator = reading["precision_denominator"] if k is not None else "number returned"
        if denominator == "k":
            lines += [f"if {k} < 1:", f"    raise ValueError(\"the cutoff {k} must be at least 1\")",
                      f"return {hits} / {k}"]
        elif denominator == "number returned":
            lines += [f"returned = len({top})", f"return {hits} / returned if returned else 0.0"]
        else:
            lines += [f"R = {count_r}  # the relevant documents judged",
                      f"return {hits} / min({k}, R) if min({k}, R) else 0.0"]
    elif name == "R":
        lines += [f"R = {count_r}  # the relevant documents judged", f"return {hits} / R if R else 0.0"]
    elif name == "Success":
        lines.append(f"return 1.0 if any({is_relevant} for {item} in {top}) else 0.0")
    elif name == "RR":
        scan = top if reading["rr_cutoff"] == "applied" or k is None else walked
        lines += [f"for rank, {item} in enumerate({scan}, start=1):", f"    if {is_relevant}:",
                  "        return 1 / rank", "return 0.0"]
    elif name == "AP":
        denominator = {"|R|": "R", "relevant retrieved": "hits", "min(k, |R|)": f"min({k}, R)" if k else "R"}[
            reading["ap_denominator"]]
        if denominator != "hits":
            lines.append(f"R = {count_r}  # the relevant documents judged")
        lines += ["hits, total = 0, 0.0",
                  f"for rank, {item} in enumerate({top}, start=1):",
                  f"    if {is_relevant}:",
                  "        hits += 1",
                  "        total += hits / rank  # precision at each relevant rank",
                  f"return total / {denominator} if {denominator} else 0.0"]
    else:  # DCG, nDCG
        needs_math = True
        gain = "(2 ** g - 1)" if reading["gain"] == "exponential" else "g"
        discount = _DISCOUNT[reading.get("discount", "log2(i + 1)")]
        lines = [f"def dcg(grades_in_order):  # gain {gain.strip('()')}, discount {discount}",
                 f"    return sum({gain} / math.{discount} for rank, g in enumerate(grades_in_order, start=1))",
                 ""] + lines
        in_order = top if item == "g" else f"[{grade} for d in {top}]"
        if name == "DCG":
            lines.append(f"return dcg({in_order})")
        else:
            retrieved = walked if item == "g" else f"[{grade} for d in {walked}]"
            ideal_from = {"judged, cut at k": f"sorted({judged}, reverse=True)" + (f"[:{k}]" if k else ""),
                          "judged, whole list": f"sorted({judged}, reverse=True)",
                          "all retrieved, cut at k": f"sorted({retrieved}, reverse=True)" + (f"[:{k}]" if k else "")}[
                reading["ideal"]]
            lines += [f"ideal = dcg({ideal_from})", f"return dcg({in_order}) / ideal if ideal > 0 else 0.0"]
    doc = _docstring(name, claim.measure, reading, k, optional)
    body = "\n".join(("    " + line) if line else "" for line in [doc, *lines])
    return Rewrite(f"{_signature(node, added)}\n{body}\n", roles, added, needs_math)


#: The ``discount`` convention's values as the corrected listing computes them (``math.`` before each).
_DISCOUNT = {"log2(i + 1)": "log2(rank + 1)", "log2(max(i, 2))": "log2(max(rank, 2))"}


def _by_score(scores: str | None, pairs: str | None, ties: str) -> str:
    """The expression (and its comment) that ranks one query's documents by score, highest first, equal scores
    ordered by the chapter's tie rule (``ties``: the order listed, or the document ID descending as trec_eval does, or
    ascending)."""
    items = f"{scores}.items()" if scores else pairs
    key = {"listed order": "-pair[1]", "docno descending": "(pair[1], pair[0])",
           "docno ascending": "(-pair[1], pair[0])"}[ties]
    reverse = ", reverse=True" if ties == "docno descending" else ""
    rule = {"listed order": "equal scores in the order listed", "docno descending": "equal scores by document ID, "
            "descending (trec_eval)", "docno ascending": "equal scores by document ID, ascending"}[ties]
    return f"[d for d, _ in sorted({items}, key=lambda pair: {key}{reverse})]  # highest score first; {rule}"


def _over_run(claim: CodeClaim, reading: dict[str, str], node: ast.FunctionDef, by_role: dict[str, str]) -> Rewrite:
    """A listing over a run and qrels by query: the one-query measure (``write`` in a nested function over a ranking
    and that query's judgements), applied to each query the chapter's definitions keep (its ``averaging``,
    ``no_qrels`` and ``no_relevant`` conventions), then the values per query, or their mean."""
    _, spec = parse_measure(claim.measure.replace("@k", "@1"))
    if spec is None or spec.name not in ("P", "R", "RR", "AP", "Success", "DCG", "nDCG"):
        raise NotWritten(f"no corrected listing is written for {claim.measure}")
    if reading.get("averaging") == "pooled":
        raise NotWritten("pooled averaging is not rewritten")
    k = by_role.get("cutoff")
    inner_params = "ranking, judged" + (f", {k}" if k else "")
    inner = claim.model_copy(update={"function": "one_query", "shape": "number",
                                     "arguments": {"ranking": "ranking", "judged": "qrels",
                                                   **({k: "cutoff"} if k else {})}})
    one = write(inner, reading, f"def one_query({inner_params}):\n    pass\n")
    run, qrels = by_role.get("run") or by_role["scored run"], by_role["qrels by query"]
    level = spec.rel if spec.rel is not None else int(reading.get("relevance_level", "1"))
    lines = ['"""' + f"{claim.measure} " + ("of each query" if claim.shape == "per query" else "over the run")
             + ": each query's value from one_query, over the queries "
             + {"queries with results": "that retrieved something", "all judged queries": "judged (one the run "
                "lacks scores as an empty ranking)"}[reading.get("averaging", "queries with results")]
             + ('; the mean over them (0 for none)."""' if claim.shape == "number" else '."""')]
    lines += one.source.rstrip("\n").split("\n") + [""]
    queries = (f"list({run})" if reading.get("averaging", "queries with results") != "all judged queries" else
               f"list({run}) + [q for q in {qrels} if q not in {run}]")
    take = (_by_score(f"{run}.get(q, {{}})", None, reading.get("ties", "listed order"))
            if "scored run" in by_role else f"list({run}.get(q, []))")
    lines += ["values = {}", f"for q in {queries}:", f"    if q not in {qrels}:", "        continue  # not judged",
              f"    ranking = {take}"]
    if reading.get("averaging", "queries with results") == "queries with results":
        lines += ["    if not ranking:", "        continue  # retrieved nothing"]
    if reading.get("no_qrels", "left out") == "left out":
        lines += [f"    if not {qrels}[q]:", "        continue  # an empty qrels entry"]
    if reading.get("no_relevant", "scores 0") == "left out":
        lines += [f"    if not any(g >= {level} for g in {qrels}[q].values()):",
                  "        continue  # nothing relevant judged"]
    lines.append(f"    values[q] = one_query(ranking, {qrels}[q]" + (f", {k})" if k else ")"))
    lines.append("return values" if claim.shape == "per query" else
                 "return sum(values.values()) / len(values) if values else 0.0")
    body = "\n".join(("    " + line) if line else "" for line in lines)
    return Rewrite(f"{_signature(node, '')}\n{body}\n", dict(claim.arguments), "", one.needs_math)


def _docstring(name: str, measure: str, reading: dict[str, str], k: str | None, added: str) -> str:
    parts = []
    if name in ("DCG", "nDCG"):
        parts.append("gain " + ("2^grade − 1" if reading["gain"] == "exponential" else "the grade")
                     + f", discount {_DISCOUNT[reading.get('discount', 'log2(i + 1)')]}")
    if name == "nDCG":
        parts.append({"judged, cut at k": "the ideal DCG sorts every judged grade and keeps the best k",
                      "judged, whole list": "the ideal DCG sorts every judged grade",
                      "all retrieved, cut at k": "the ideal DCG sorts the retrieved grades and keeps the best k"}[
            reading["ideal"]])
    if name == "P" and k:
        parts.append({"k": f"divided by {k}", "number returned": "divided by the number returned",
                      "min(k, |R|)": f"divided by min({k}, |R|)"}[reading["precision_denominator"]])
    if name == "AP":
        parts.append({"|R|": "divided by the number of relevant documents, |R|",
                      "relevant retrieved": "divided by the relevant documents retrieved",
                      "min(k, |R|)": "divided by min(k, |R|)"}[reading["ap_denominator"]])
    if name in ("R", "AP", "nDCG"):
        parts.append("0 when nothing relevant is judged")
    if added:
        parts.append(f"``{added}``: every judged grade of the query (None: the ranked grades are all of them)")
    return '"""' + measure + (": " + "; ".join(parts) if parts else " of the ranking") + '."""'
