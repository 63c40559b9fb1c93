"""Checks that need more than one claim's fields: a code claim against its listing (roles, returns, shown
calls, parameter defaults), a statistic claim against its quote, and the references' reach for each claim.
"""

from __future__ import annotations

import re

from audit.text.python_code import parse_code
from audit.errors import AuditError, RegisterError, ValueParseError
from audit.text.literals import literal
from audit.measures.catalogue import CATALOGUE
from audit.measures.syntax import at_cutoff, parse as parse_measure
from audit.model.limits import MAX_CUTOFF, MAX_GRADE, shorten, trim
from audit.model.rankings import check_ranking
from audit.model.values import parse_claimed
from audit.model.expressions import parse_expression
from audit.register.fields import Fixture
from audit.register.kinds import (
    ANY_ROLES,
    Chapter,
    CODE_ROLES,
    CodeClaim,
    MULTI_ROLES,
    SCORED_ROLES,
    StatisticClaim,
    UNPAIRED,
)


def role_problem(roles: set[str], shape: str = "number") -> str:
    """What is wrong with a listing's set of argument roles and its return shape, in words ("" when they fit): one
    query's input, or one of the input shapes of several queries (``MULTI_ROLES``), with perhaps a cutoff, cutoffs
    and constants; ``cutoffs`` go with the shape ``at each k``; ``per query`` needs several queries' input."""
    multi = roles & set(MULTI_ROLES)
    rest = roles - set(ANY_ROLES)
    if multi and not (rest <= {"run", "scored run", "qrels by query"} and "qrels by query" in rest
                      and rest & {"run", "scored run"} and len(rest & {"run", "scored run"}) == 1
                      or rest == {"ranked grades by query"} or rest == {"per-query values"}):
        return ("a listing over several queries takes a run (run or scored run) with qrels by query, ranked grades "
                "by query, or per-query values — perhaps with a cutoff, cutoffs and constants — and nothing of one "
                "query")
    if len(roles & set(SCORED_ROLES)) + ("ranking" in roles) + ("ranked grades" in roles) > 1:
        return "one query's ranking is given once: as a ranking, ranked grades, scores or scored pairs"
    if "cutoff" in roles and "cutoffs" in roles:
        return "a function takes a cutoff or a list of cutoffs, not both"
    if "relevant count" in roles and not roles & {"ranked grades"}:
        return ("relevant count (|R|, the number of relevant documents of the query) goes with ranked grades, which "
                "cannot count the relevant documents not retrieved")
    if "cutoffs" in roles and shape != "at each k":
        return f"shape {shape!r}: a function taking a list of cutoffs returns the measure at each k (shape: at each k)"
    if shape == "per query" and not multi - {"per-query values"}:
        return ("shape 'per query': a function returning the measure per query takes several queries' input (a run "
                "with qrels by query, or ranked grades by query)")
    return ""


_NONE = object()


def _same_value(a: object, b: object) -> bool:
    """Whether two literal values are the same to a function (``0`` and ``False`` are: a register writes no bool)."""
    try:
        return bool(a == b)
    except Exception:  # an array literal compares item by item
        return False


def shown_values(claim, shown, params: list[str], defaults: dict) -> dict:
    """The arguments by parameter of one of the claim's ``calls`` (empty when they are not literals)."""
    try:
        return shown_arguments(claim, shown.call, params, defaults, shown.given)
    except AuditError:
        return {}


def _check_stat_listing(chapter: Chapter, claim: CodeClaim, fail, params: list[str], defaults: dict,
                        source: str) -> None:
    """A listing said to compute a statistic (``listing_rules.LISTING_TESTS``): its roles, what it returns, and the
    calls the text shows."""
    from audit.register.listing_rules import register_problem
    from audit.text.doctests import given_problem

    problem = register_problem(claim, params, defaults, source)
    if problem:
        raise fail(*problem)
    for i, shown in enumerate(claim.calls):
        try:
            shown_arguments(claim, shown.call, params, defaults, shown.given)
        except AuditError as exc:
            raise fail(f"calls[{i}].given" if exc.field == "given" else f"calls[{i}].call", exc.message)
        if shown.call not in chapter.snapshot.text:
            raise fail(f"calls[{i}].call", f"{shorten(shown.call, 80)!r} is not printed in the snapshot; write the "
                                          "call exactly as the text shows it")
        problem = given_problem(chapter.snapshot.text, shown.call, shown.given)
        if problem:
            raise fail(f"calls[{i}].given", problem)


def _check_returns(claim: CodeClaim, fail, measure) -> None:
    """A code claim's ``returns``: one number per element, each a measure (``measure``'s syntax) or a quantity the
    claim's measure defines (``RETURNED``); one query's input; shape ``number``."""
    from audit.register.listing_rules import RETURNED, element_problem

    if len(claim.returns) < 2:
        raise fail("returns", "returns names the elements of a returned tuple; a function returning one value of "
                              "its measure needs no returns")
    if claim.shape != "number":
        raise fail("returns", "a function returning a tuple of values returns one value per element: leave shape "
                              "out (number) and name each element in returns")
    if set(claim.arguments.values()) & set(MULTI_ROLES):
        raise fail("returns", "a function returning a tuple of values is checked on one query's input")
    for i, element in enumerate(claim.returns):
        problem = element_problem(claim, element)
        if problem:
            raise fail(f"returns[{i}]", problem)
        if element.strip() not in RETURNED:
            measure(f"returns[{i}]", element.replace("@k", "@1"))


def parameter_defaults(source: str, function: str) -> dict[str, object]:
    """The literal default of each parameter of ``function`` in ``source`` that has one (``k=10`` → ``{"k": 10}``,
    ``judged=None`` → ``{"judged": None}``); a default that is not a literal is left out."""
    import ast

    node = next((n for n in parse_code(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if node is None:
        return {}
    positional = node.args.posonlyargs + node.args.args
    out: dict[str, object] = {}
    for arg, default in zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults):
        try:
            out[arg.arg] = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def shown_arguments(claim: CodeClaim, call: str, params: list[str],
                    defaults: dict[str, object] | None = None, given: dict[str, str] | None = None) -> dict[str, object]:
    """The arguments of a call the text shows, by parameter name: ``call`` must call ``claim.function`` with literal
    arguments (numbers, strings, lists, tuples, sets, dicts) or names of ``given`` (each the literal the text assigns
    it before the call), positionally or by name, one per parameter; a parameter the call leaves out takes its
    literal default (``defaults``, from ``parameter_defaults``). Raises ``AuditError`` saying what is wrong, its
    ``field`` ``"given"`` when a name the call passes has no literal in ``given``."""
    import ast

    from audit.text.doctests import unwrapped

    given = given or {}
    call = unwrapped(call)  # round(f(…), 4) is checked as f(…), at the printed precision
    try:
        node = parse_code(call.strip(), mode="eval").body
    except SyntaxError as exc:
        raise AuditError(f"{shorten(call, 80)!r} is not a Python call ({exc.msg})")
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id != claim.function:
        raise AuditError(f"{shorten(call, 80)!r} is not a call of {claim.function}()")
    if len(node.args) > len(params) or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        raise AuditError(f"{shorten(call, 80)!r} does not match {claim.function}({', '.join(params)})")
    values: dict[str, object] = {}
    for name, arg in [*zip(params, node.args), *((k.arg, k.value) for k in node.keywords)]:
        if name not in params or name in values:
            raise AuditError(f"{shorten(call, 80)!r}: {claim.function}() takes {', '.join(params)}; {name!r} is "
                             "not one of them or is given twice")
        try:
            values[name] = literal(given[arg.id] if isinstance(arg, ast.Name) and arg.id in given else arg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            if isinstance(arg, ast.Name):
                raise AuditError(f"{shorten(call, 80)!r} passes {arg.id}: give the literal the text assigns it before "
                                 f"the call in given ({{{arg.id}: …}})", field="given")
            raise AuditError(f"{shorten(call, 80)!r}: the argument for {name!r} is not a literal value")
    for p in params:
        if p not in values and p in (defaults or {}):
            values[p] = (defaults or {})[p]
    missing = [p for p in params if p not in values]
    if missing:
        raise AuditError(f"{shorten(call, 80)!r} gives no {', '.join(missing)}")
    return values


#: A quote saying that its bootstrap or randomization test drew random resamples ("10,000 resamples",
#: "5,000 random sign flips", ``n_resamples=9999``, a seeded generator).
_RESAMPLES_SAID = re.compile(r"\b\d[\d,.\u202f ]*\s+(?:random\s+|bootstrap\s+)*(?:re-?samples|resamplings|replicates|"
                             r"permutations|(?:sign[- ])?flips|draws)\b|n_resamples\s*=|default_rng\(\s*\d|"
                             r"random\.seed\(", re.IGNORECASE)


def _check_statistic(claim: StatisticClaim, fail, claimed, fixture, measure) -> None:
    """A statistic claim's data, printed values, alpha and confidence, as the statistic check will read them: numbers
    where numbers are printed, at least two queries (or two p-values), statistics the test computes, and something
    printed to check."""
    from audit.model.values import parse_interval

    for name in ("alpha", "confidence"):
        try:
            level = parse_claimed(getattr(claim, name))
        except AuditError as exc:
            raise fail(name, exc.message)
        if level.nominal is None or level.approximate or not 0 < level.nominal < 1:
            raise fail(name, f"{name} {getattr(claim, name)!r} must be one number between 0 and 1")
    family = claim.test in ("bonferroni", "holm")
    said = _RESAMPLES_SAID.search(claim.quote)
    if said and claim.resamples is None and claim.test in ("bootstrap", "permutation"):
        raise fail("resamples", f"the quote says the test drew random resamples ({said.group(0)!r}): its printed "
                                "value is a Monte Carlo estimate; give resamples (their number) so that it is held to "
                                "the exact value within its Monte Carlo error, not to the exact value alone")
    if claim.resamples is not None and claim.test not in ("bootstrap", "permutation"):
        raise fail("resamples", f"the {claim.test} test draws no random resamples; resamples is for a bootstrap or "
                                "a randomization (permutation) test the text says was run on random resamples")
    from audit.text.t_tests import t_test_mismatch

    mismatch = t_test_mismatch(claim.test, claim.quote)
    if mismatch is not None:
        raise fail("test", f"test is {claim.test}, but {mismatch}")
    if (claim.data is None) == (claim.reported is None):
        raise fail("data", "give the data (data) or, for a t-test reported without it, reported: {t, df, p}")
    if claim.reported is not None:
        if claim.test not in ("paired t", "student t", "welch t"):
            raise fail("reported", "a reported statistic is checked for a t-test (paired t, student t or welch t: "
                       "t, df, p)")
        claimed("reported.t", claim.reported.t)
        claimed("reported.p", claim.reported.p)
        claimed("reported.df", claim.reported.df)
        df = parse_claimed(claim.reported.df)
        if df.nominal is None or df.approximate or not 1 <= df.nominal <= 100_000:
            raise fail("reported.df", f"{claim.reported.df!r} is not one number of degrees of freedom from 1 to "
                       "100,000")
        if claim.test != "welch t" and df.nominal.denominator != 1:
            raise fail("reported.df", f"{claim.test} has whole degrees of freedom, not {claim.reported.df!r}; a "
                       "decimal df is Welch's (test: welch t)")
        if claim.expect:
            raise fail("expect", "with reported, the printed t and p are the reported ones; leave expect out")
        return
    d = claim.data
    if family != (d.p_values is not None):
        raise fail("data", f"{claim.test} corrects a family of printed p-values: give data.p_values"
                   if family else "data.p_values is for a correction (test: bonferroni or holm)")
    if family:
        if len(d.p_values) < 2:
            raise fail("data.p_values", "a correction needs at least two comparisons")
        for name, v in d.p_values.items():
            claimed(f"data.p_values.{name}", v)
            value = parse_claimed(v)
            if value.nominal is None or not 0 <= value.nominal <= 1:
                raise fail(f"data.p_values.{name}", f"{v!r} is not one p-value between 0 and 1")
        for name in claim.significant or []:
            if name not in d.p_values:
                raise fail("significant", f"{name!r} is not a comparison of data.p_values ({', '.join(d.p_values)})")
        for i, e in enumerate(claim.expect):
            if e.statistic != "adjusted p" or e.comparison not in d.p_values:
                raise fail(f"expect[{i}]", "a correction prints adjusted p-values: statistic: adjusted p, with "
                           f"comparison: one of {', '.join(d.p_values)}")
            claimed(f"expect[{i}].claimed", e.claimed, e.tolerance)
        for field_name in ("sided", "decision", "correction"):
            if getattr(claim, field_name) is not None:
                raise fail(field_name, f"{field_name} belongs to a test on data; a correction says which comparisons "
                           "stay significant (significant: [...])")
        if claim.comparisons != 1:
            raise fail("comparisons", "a correction's family is its p_values")
        if not claim.expect and claim.significant is None:
            raise fail("expect", "give a printed adjusted p (expect) or the comparisons that stay significant")
        return
    if claim.significant is not None:
        raise fail("significant", "significant: [...] names the comparisons of a correction; a test says decision")
    unpaired = claim.test in UNPAIRED
    if unpaired and d.differences is not None:
        raise fail("data.differences", f"{claim.test} compares two independent samples, so it has no per-query "
                   "differences: give data.a and data.b, each system's values as printed (differences belong to a "
                   "paired test: paired t, sign, permutation, wilcoxon, bootstrap)")
    if d.measure is not None:
        if unpaired:
            raise fail("data.measure", f"{claim.test} runs on the two samples as printed: give data.a and data.b as "
                       "lists of per-topic values, not fixtures")
        measure("data.measure", d.measure, reference_only=False)
        sides = [fixture(f"data.{side}", getattr(d, side)) for side in ("a", "b")]
        if sorted(sides[0].run) != sorted(sides[1].run):
            raise fail("data.b", "fixtures a and b must rank the same queries (a paired test pairs them)")
        n = len(sides[0].run)
    else:
        for field_name in ("a", "b", "differences"):
            for i, v in enumerate(getattr(d, field_name) or []):
                try:
                    value = parse_claimed(v)
                except AuditError as exc:
                    raise fail(f"data.{field_name}[{i}]", exc.message)
                if value.nominal is None or value.approximate:
                    raise fail(f"data.{field_name}[{i}]",
                               f"{v!r} is not one number; write each per-query value as printed")
        n = len(d.differences if d.differences is not None else d.a)
        if unpaired:
            n = min(len(d.a), len(d.b))
        elif d.differences is None and len(d.a) != len(d.b):
            raise fail("data.b", f"a paired test pairs each query's a and b, but a has {len(d.a)} values and b "
                       f"{len(d.b)}; for two independent samples the test is student t or welch t")
    if n < 2:
        raise fail("data", "an unpaired test needs at least two values in each sample" if unpaired else
                   "a paired test needs at least two queries")
    if claim.test == "bootstrap" and claim.sided is not None:
        raise fail("sided", "a bootstrap interval has no side; its decision is whether it holds 0")
    if claim.correction == "bonferroni" and claim.comparisons < 2:
        raise fail("correction", "a Bonferroni correction needs the family's size: comparisons: 2 or more")
    if not claim.expect and claim.decision is None:
        raise fail("expect", "give a printed statistic (expect) or the decision the text draws (decision)")
    computes = {"paired t": ("p", "t", "df"), "sign": ("p", "positives"), "permutation": ("p",),
                "wilcoxon": ("p", "W"), "bootstrap": ("interval",), "student t": ("p", "t", "df"),
                "welch t": ("p", "t", "df")}[claim.test] + ("mean difference", "d")
    for i, e in enumerate(claim.expect):
        if e.comparison is not None:
            raise fail(f"expect[{i}].comparison", "comparison names a p-value of a correction's family")
        if e.statistic == "adjusted p":
            if claim.comparisons < 2 or claim.test == "bootstrap":
                raise fail(f"expect[{i}].statistic", "an adjusted p is the Bonferroni-corrected p of a test in a "
                           "family of comparisons: give comparisons: 2 or more")
        elif e.statistic not in computes:
            raise fail(f"expect[{i}].statistic", f"{claim.test} gives {', '.join(computes)}"
                       + (", adjusted p" if claim.test != "bootstrap" else "") + f", not {e.statistic}")
        if e.statistic == "interval":
            try:
                parse_interval(str(e.claimed))
            except AuditError as exc:
                raise fail(f"expect[{i}].claimed", exc.message)
        else:
            claimed(f"expect[{i}].claimed", e.claimed, e.tolerance)


def _check_code(chapter: Chapter, claim: CodeClaim, fail, measure, claimed) -> None:
    """A code claim's listing, function, arguments and measure, as the code checker will read them: the listing
    that holds the quote must be Python and define the function; every parameter must have a role (and every role
    named be one); the measure must be one the chapter's definitions compute."""
    import ast

    from audit.text.listings import function_source

    try:
        _, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on,
                                    claim.occurrence)
    except AuditError as exc:
        raise fail(exc.field if exc.field else "function" if "does not define" in exc.message else
                   "builds_on" if "builds on" in exc.message or "nor one before it contains" in exc.message else "quote",
                   exc.message)
    node = next(n for n in parse_code(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == claim.function)
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    from audit.register.listing_rules import LISTING_TESTS
    if claim.measure in LISTING_TESTS:  # a listing computing a statistic: its own roles and values
        _check_stat_listing(chapter, claim, fail, params, parameter_defaults(source, claim.function), source)
        return
    if claim.resamples is not None:
        raise fail("resamples", "resamples is for a listing computing a bootstrap or a randomization test")
    for p, role in claim.arguments.items():
        if role not in CODE_ROLES:
            raise fail(f"arguments.{p}", f"role {role!r} is not one of {', '.join(CODE_ROLES)}")
        if p not in params:
            raise fail(f"arguments.{p}", f"{claim.function}() has no parameter {p!r}; it takes {', '.join(params)}")
    roles = set(claim.arguments.values())
    problem = role_problem(roles, claim.shape)
    if problem:
        raise fail("arguments" if "shape" not in problem else "shape", problem)
    defaults = parameter_defaults(source, claim.function)
    for p, role in claim.arguments.items():
        if role == "constant" and p not in claim.constants and p not in defaults:
            raise fail(f"arguments.{p}", f"a constant needs its value: give it in constants ({p}: …) or as the "
                                         "listing's literal default")
    from audit.measures.syntax import parse as parse_measure
    try:
        measured = dict(parse_measure(claim.measure.replace("@k", "@1"), reference_only=True)[0].params)
    except AuditError:
        measured = {}  # an unknown measure is reported below, under measure
    for p, role in claim.arguments.items():
        value = claim.constants.get(p, defaults.get(p))
        if role == "constant" and p in measured and isinstance(value, (int, float)) and float(value) != float(measured[p]):
            raise fail(f"constants.{p}" if p in claim.constants else f"arguments.{p}",
                       f"the listing is called with {p} = {value}, but the measure {claim.measure!r} has {p} = "
                       f"{measured[p]}: make them the same")
    from audit.text.doctests import passed_values
    from audit.text.listings import builds_on_lines
    for p, role in claim.arguments.items():
        # a constant that is not the measure's own parameter and overrides the listing's literal default: the check
        # would certify a call no reader makes unless the text prints one passing that value
        if role == "constant" and p in claim.constants and p in defaults and p not in measured \
                and not _same_value(claim.constants[p], defaults[p]) \
                and not any(_same_value(v, claim.constants[p]) for v in [
                    *passed_values(chapter.snapshot.text, claim.function, p, params.index(p)),
                    *(shown_values(claim, c, params, defaults).get(p, _NONE) for c in claim.calls)]):
            raise fail(f"constants.{p}", f"the listing's default is {p} = {defaults[p]!r}, and no call the text "
                                         f"prints passes {p} = {claim.constants[p]!r}: a reader calling "
                                         f"{claim.function}() as printed gets the default. Check it with the default "
                                         f"(leave {p} out of constants), or print a call that passes {p}")
    # an earlier listing's function or class it calls must be named (its code is what the claim analyses with it);
    # an earlier import or constant is brought along by itself (``earlier_bindings``)
    needed = [line for line in builds_on_lines(chapter.snapshot.text, claim.quote, claim.function, claim.occurrence)
              if re.match(r"(?:async\s+)?def\s|class\s", line)
              and not any(line.strip() in b or b.strip() in line for b in claim.builds_on)]
    if needed:
        raise fail("builds_on", f"{claim.function}() uses what an earlier listing defines; add "
                                f"{', '.join(repr(n) for n in needed)} to builds_on")
    for p in claim.constants:
        if claim.arguments.get(p) != "constant":
            raise fail(f"constants.{p}", f"{p!r} is not an argument with the role constant")
    unmapped = [p for p in params if p not in claim.arguments]
    if unmapped:
        raise fail("arguments", f"{claim.function}() takes {', '.join(params)}; give each a role ({', '.join(CODE_ROLES)})"
                                f": {', '.join(unmapped)} has none")
    from audit.text.doctests import given_problem
    for i, shown in enumerate(claim.calls):
        try:
            shown_arguments(claim, shown.call, params, parameter_defaults(source, claim.function), shown.given)
        except AuditError as exc:
            raise fail(f"calls[{i}].given" if exc.field == "given" else f"calls[{i}].call", exc.message)
        if shown.call not in chapter.snapshot.text:
            raise fail(f"calls[{i}].call", f"{shorten(shown.call, 80)!r} is not printed in the snapshot; write the "
                                          "call exactly as the text shows it")
        problem = given_problem(chapter.snapshot.text, shown.call, shown.given)
        if problem:
            raise fail(f"calls[{i}].given", problem)
        if shown.raises is not None and shown.raises.strip() not in chapter.snapshot.text:
            raise fail(f"calls[{i}].raises", f"{shorten(shown.raises, 80)!r} is not printed in the snapshot; write "
                                            "the exception line exactly as the doctest shows it")
        if shown.returns is not None and (claim.shape != "number" or claim.returns):
            from audit.model.values import parse_claimed_parts

            try:
                parse_claimed_parts(shown.returns, tolerance=shown.tolerance)
            except ValueParseError as exc:
                raise fail(f"calls[{i}].returns", exc.message)
        elif shown.returns is not None:
            claimed(f"calls[{i}].returns", shown.returns, shown.tolerance)
    uses_k = bool({"cutoff", "cutoffs"} & roles) or claim.shape == "at each k"
    if uses_k != ("@k" in claim.measure):
        raise fail("measure", f"{claim.measure!r}: a function with a cutoff argument, or one returning the measure "
                              "at each k, computes a measure at k (write it with @k, e.g. R@k); one without computes "
                              "it on the whole ranking")
    measure("measure", claim.measure.replace("@k", "@1"))
    if claim.returns:
        _check_returns(claim, fail, measure)


def _check_references(chapter: Chapter) -> None:
    path = str(chapter.claims_path)
    seen: set[str] = set()
    for claim in chapter.register.claims:
        if claim.id in seen:
            raise RegisterError("claim id is used twice; ids must be unique and stable", file=path,
                                claim=claim.id, field="id")
        seen.add(claim.id)

        def fail(field_name: str, message: str) -> RegisterError:
            return RegisterError(message, file=path, claim=claim.id, field=field_name)

        def fixture(field_name: str, ref, allow_repeats: bool = False) -> Fixture:
            if isinstance(ref, str) and ref not in chapter.register.fixtures:
                known = ", ".join(sorted(chapter.register.fixtures)) or "none"
                raise fail(field_name, f"unknown fixture {ref!r}; fixtures defined: {known}")
            fx = chapter.fixture(ref)
            if not allow_repeats:
                for q, ranking in fx.run.items():
                    try:
                        check_ranking(ranking, query_id=q)
                    except AuditError as exc:
                        raise fail(f"{field_name} (fixture {ref if isinstance(ref, str) else 'inline'}), run.{q}",
                                   exc.message.replace(
                                       "the chapter's evaluator rejects repeated result IDs — remove the duplicate",
                                       "remove the duplicate, or state how a repeated ID counts (repeated_ids: keep "
                                       "first, keep last or count each, with its quote) in chapter.yaml or on the "
                                       "claim"))
            return fx

        # A value or comparison fixture may repeat an ID when the text states how a repeat counts and never says a
        # repeat is rejected.
        declared = chapter.declared_for(claim)
        repeats_allowed = declared.stated("repeated_ids") and "reject" not in declared.values("repeated_ids")

        def measure(field_name: str, text: str, reference_only: bool = False) -> None:
            try:
                m, spec = parse_measure(text, reference_only)
            except AuditError as exc:
                raise fail(field_name, shorten(exc.message, 300))
            cutoff = spec.cutoff if spec is not None else dict(m.params).get("cutoff")
            if cutoff is not None and cutoff > MAX_CUTOFF:
                raise fail(field_name, f"cutoff {cutoff} is larger than the limit of {MAX_CUTOFF}")
            if spec is not None and spec.rel is not None and not 1 <= spec.rel <= MAX_GRADE:
                raise fail(field_name, f"relevance level rel={spec.rel!r} must be a whole number from 1 to {MAX_GRADE}")

        def exercised(field_name: str, fx: Fixture, measures: list[str], query: str | None = None) -> None:
            """Refuse a fixture on which every measure is trivially 0 (nothing ranked, nothing relevant)."""
            queries = [query] if query is not None else list(fx.run)
            if not any(fx.run[q] for q in queries):
                raise fail(field_name, "nothing is ranked (every ranking read is empty), so every measure gives 0 "
                           "and no implementation is exercised; give the fixture a ranking")
            specs = [parse_measure(m, True)[1] for m in measures]
            specs = [s for s in specs if s is not None]  # a measure only the references define: not judged here
            if not specs or all(s.name == "Judged" for s in specs):
                return
            level = min(s.rel or 1 for s in specs)
            relevant = any(g >= level for q in queries for g in fx.qrels[q].values())
            judged_ranked = any(d in fx.qrels[q] for q in queries for d in fx.run[q])
            # A query whose ranked documents are judged but none relevant is a subject in its own right (what a
            # measure gives when nothing is relevant: trec_eval returns it, an empty qrels entry it leaves out).
            # Nothing judged among the ranked and nothing relevant exercises nothing.
            if not relevant and not judged_ranked:
                raise fail(field_name, f"no document has a relevant grade ({level} or more) and no ranked document is "
                           "judged in the queries read, so every measure gives 0 and no implementation is exercised; "
                           "judge a document")

        def claimed(field_name: str, text, tolerance=None, measure_name: str | None = None) -> None:
            try:
                value = parse_claimed(text, tolerance=tolerance)
            except AuditError as exc:
                raise fail(field_name, exc.message)
            if measure_name is not None:
                spec = parse_measure(measure_name, True)[1]
                if spec is not None and CATALOGUE[spec.name].bounded and _beyond_range(value):
                    raise fail(field_name, f"the bound {trim(str(text), 40)} lies outside the range of "
                               f"{measure_name} (0 to 1), so every value {measure_name} can take satisfies it and the "
                               "check could not fail; encode the bound the chapter prints, or the sentence as "
                               "`not checkable`")

        if claim.kind == "value":
            fx = fixture("fixture", claim.fixture, allow_repeats=repeats_allowed)
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure, reference_only=True)
                spec = parse_measure(e.measure, True)[1]
                if e.aggregate in ("pooled", "both") and (e.query is not None or spec is None or spec.name != "R"):
                    raise fail(f"expect[{i}].aggregate", "a pooled reading is defined for recall (R@k) over all "
                               "needs; drop `query` or use aggregate: mean")
                if e.query is not None and e.query not in fx.run:
                    raise fail(f"expect[{i}].query", f"query {e.query!r} is not in the fixture's run; "
                               f"it has {', '.join(map(repr, fx.run))}")
                claimed(f"expect[{i}].claimed", e.claimed, e.tolerance, e.measure)
                exercised("fixture", fx, [e.measure], e.query)
                if e.ideal is not None:
                    if spec is None or "ideal" not in CATALOGUE[spec.name].conventions:
                        raise fail(f"expect[{i}].ideal", f"{e.measure} has no ideal order (only nDCG and IDCG have one)")
                    if e.query is None and len(fx.run) > 1:
                        raise fail(f"expect[{i}].ideal", "an ideal order belongs to one query; give `query`")
        elif claim.kind == "comparison":
            sides = (fixture("before", claim.before, allow_repeats=repeats_allowed),
                     fixture("after", claim.after, allow_repeats=repeats_allowed))
            if sides[0].model_dump() == sides[1].model_dump():
                raise fail("after", "the after fixture is the before fixture: every measure is unchanged, whatever "
                                    "any implementation does, so the check could not fail; give the input after the "
                                    "change")
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure)
                if e.after_measure:
                    measure(f"expect[{i}].after_measure", e.after_measure)
                problems = []
                for side, fx in zip(("before", "after"), sides):
                    try:
                        exercised(side, fx, [e.measure, e.after_measure or e.measure])
                    except RegisterError as exc:
                        problems.append(exc)
                if len(problems) == 2:  # one trivial side is a legitimate starting point, not both
                    raise problems[0]
                for side in ("before", "after"):
                    if getattr(e, side) is not None:
                        claimed(f"expect[{i}].{side}", getattr(e, side), None,
                                e.after_measure or e.measure if side == "after" else e.measure)
        elif claim.kind == "code":
            _check_code(chapter, claim, fail, measure, claimed)
        elif claim.kind == "statistic":
            _check_statistic(claim, fail, claimed, fixture, measure)
        elif claim.kind == "systems":
            from audit.register.listing_rules import systems_problem
            problem = systems_problem(claim)
            if problem:
                raise fail(*problem)
        elif claim.kind == "arithmetic":
            try:
                parse_expression(claim.expression)
            except AuditError as exc:
                raise fail("expression", exc.message)
            claimed("claimed", claim.claimed, claim.tolerance)
            if claim.computes is not None:
                fx = fixture("computes.fixture", claim.computes.fixture)
                measure("computes.measure", claim.computes.measure, reference_only=True)
                if claim.computes.query is not None and claim.computes.query not in fx.run:
                    raise fail("computes.query", f"query {claim.computes.query!r} is not in the fixture's run; "
                               f"it has {', '.join(map(repr, fx.run))}")
                exercised("computes.fixture", fx, [claim.computes.measure], claim.computes.query)
            sm = claim.set_measure
            if sm is not None:
                if sm.cohort not in chapter.register.cohorts:
                    raise fail("set_measure.cohort", f"unknown cohort {sm.cohort!r}; cohorts defined: "
                               f"{', '.join(sorted(chapter.register.cohorts)) or 'none'}")
                decisions = chapter.register.cohorts[sm.cohort].cells
                for part in ("selected", "among"):
                    for d in getattr(sm, part) or []:
                        if d not in decisions:
                            raise fail(f"set_measure.{part}", f"unknown decision {d!r}; the cohort has "
                                       f"{', '.join(decisions)}")
        elif claim.kind == "property":
            whole = claim.at == "whole ranking"  # both sides without a cutoff
            measure("measure", claim.measure if whole else at_cutoff(claim.measure, 1))
            for i, other in enumerate(claim.others):
                measure("other" if len(claim.others) == 1 else f"other[{i}]", other if whole else at_cutoff(other, 1))
            if claim.compare == "next_cutoff":
                _, spec = parse_measure(at_cutoff(claim.measure, 1), True)
                if spec is not None and CATALOGUE[spec.name].cutoff == "none":
                    raise fail("compare", f"{claim.measure} takes no cutoff: it is the same at k and k + 1, so "
                               "comparing the next cutoff tests nothing")
            if claim.bound is not None:
                try:
                    bound = parse_claimed(claim.bound)
                except AuditError as exc:
                    raise fail("bound", exc.message)
                if not bound.exact:
                    raise fail("bound", f"the bound must be an exact number (0, 1, 1/2), found {claim.bound!r}")
        elif claim.kind == "convention":
            probe = fixture("probe", claim.probe, allow_repeats=claim.convention == "repeated_ids")
            for i, m in enumerate(claim.measures):
                measure(f"measures[{i}]", m)
            exercised("probe", probe, claim.measures)
            reason = _probe_gap(claim.convention, probe, [parse_measure(m)[1] for m in claim.measures])
            if reason:
                raise fail("probe", f"the probe cannot tell the {claim.convention.replace('_', ' ')} rules apart: "
                           f"{reason}")


def _beyond_range(value) -> bool:
    """A half-line every value in [0, 1] lies in, whose bound is outside [0, 1] (``<= 999…``, ``> -1``): a claimed
    value that cannot be false for a measure bounded by 0 and 1. (``<= 1`` and ``>= 0`` restate the range, as a
    chapter may; they are checked as printed.)"""
    if value.low is None and value.high is not None:
        return value.high > 1
    if value.high is None and value.low is not None:
        return value.low < 0
    return False


def _probe_gap(convention: str, probe: Fixture, specs) -> str:
    """Why a convention probe exercises nothing (empty when it exercises the convention)."""
    if convention == "ties":
        scores = probe.scores or {}
        tied = any(len({scores[q][d] for d in set(r)}) < len(set(r)) for q, r in probe.run.items() if q in scores)
        return "" if tied else ("no two ranked documents share a score; give tied `scores` (without them every "
                                "document gets a distinct score)")
    if convention == "unjudged":
        unjudged = any(d not in probe.qrels[q] for q, r in probe.run.items() for d in r)
        return "" if unjudged else "every ranked document is judged; rank a document absent from the qrels"
    if convention == "repeated_ids":
        repeated = any(len(set(r)) < len(r) for r in probe.run.values())
        return "" if repeated else "no ranking repeats a document ID"
    if convention == "cutoff":
        cutoffs = [s.cutoff for s in specs if s.cutoff is not None]
        if not cutoffs:
            return "no measure has a cutoff k"
        longest = max((len(r) for r in probe.run.values()), default=0)
        return "" if longest > min(cutoffs) else (f"no ranking is longer than the cutoff {min(cutoffs)}, so scoring "
                                                  "the first k and the whole ranking agree")
    return ""
