"""A reference as a sentence names it, with the options the sentence names: ``by: trec_eval -J``.

"trec_eval -J reports P_10 = 0.625" is about what trec_eval returns when run with -J, not about its default: the
value is checked by running it so. The options a register may name are the ones the references of this audit can
run exactly:

* trec_eval (``trec_eval``/``pytrec_eval``): ``-J`` (judged documents only: unjudged documents are removed after
  the sort and the -M cut, ``form_res_rels.c``; pytrec_eval's ``judged_docs_only_flag``), ``-l N`` (relevance
  level N for binary measures; ``relevance_level``), ``-M N`` (only the first N documents of each ranking, in
  trec_eval's order, are evaluated; ``max_num_docs_per_topic``, applied here by cutting the run in trec_eval's
  order before it is given to pytrec_eval, which does not expose the flag);
* ir-measures (``ir_measures``/``ir-measures``): ``judged_only`` (or ``judged_only=True``) and ``rel=N``, the
  measure parameters of the same names.

ranx has no such options. Anything else is a register error naming the option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: How a register names a reference (``by:``) → the reference's name in the audit.
REFERENCE_NAMES = {"trec_eval": "pytrec_eval", "pytrec_eval": "pytrec_eval", "ir_measures": "ir_measures",
                   "ir-measures": "ir_measures", "ranx": "ranx"}

#: References offered only when installed (an extra), for a convention claim about that library (``by:``): the audit
#: runs them for such a claim alone (``audit.evaluation.references.sklearn_ref``).
OPTIONAL_REFERENCES = {"scikit-learn": "sklearn", "sklearn": "sklearn"}

_TREC = re.compile(r"-J|-l\s*(?P<level>[1-9]\d?)|-M\s*(?P<depth>[1-9]\d{0,5})")
_IRM = re.compile(r"judged_only(?:\s*=\s*True)?|rel\s*=\s*(?P<level>[1-9]\d?)")


@dataclass(frozen=True)
class ReferenceCall:
    """One reference and the options the sentence runs it with."""

    name: str  # the reference's name in the audit (``pytrec_eval``, ``ir_measures``, ``ranx``)
    spelled: str  # as the register wrote it ("trec_eval -J")
    params: dict[str, object] = field(default_factory=dict)  # measure parameters: judged_only, rel
    max_docs: int | None = None  # trec_eval's -M

    @property
    def optioned(self) -> bool:
        return bool(self.params) or self.max_docs is not None

    def conventions(self) -> dict[str, str]:
        """The conventions of the chapter's definitions the options select: -J/judged_only → unjudged documents
        removed; -l N / rel=N → relevance level N."""
        out = {}
        if self.params.get("judged_only"):
            out["unjudged"] = "removed"
        if self.params.get("rel") is not None:
            out["relevance_level"] = str(self.params["rel"])
        return out


def reference_call(by: str | None) -> ReferenceCall | None:
    """The reference ``by`` names with its options, or None when ``by`` names no reference of this audit (another
    library: "ml_metrics"). Raises ``ValueError`` naming an option that reference cannot be run with."""
    if by is None:
        return None
    head, _, rest = by.strip().partition(" ")
    name = REFERENCE_NAMES.get(head.lower())
    if name is None:
        if rest.strip():
            raise ValueError(f"by: {by!r}: options are run only for a reference of this audit "
                             f"({', '.join(REFERENCE_NAMES)}); {head!r} is not one")
        return None
    rest = rest.strip()
    params: dict[str, object] = {}
    depth = None
    pattern = _TREC if name == "pytrec_eval" else _IRM if name == "ir_measures" else None
    while rest:
        m = pattern.match(rest) if pattern is not None else None
        if m is None:
            known = ("-J, -l N, -M N" if name == "pytrec_eval" else "judged_only, rel=N" if name == "ir_measures"
                     else "none")
            raise ValueError(f"by: {by!r}: {rest.split()[0]!r} is not an option {head} can be run with here "
                             f"(known: {known})")
        token = m.group(0)
        if token.startswith("-J") or token.startswith("judged_only"):
            params["judged_only"] = True
        elif m.group("level"):
            params["rel"] = int(m.group("level"))
        else:
            depth = int(m.group("depth"))
        rest = rest[m.end():].lstrip()
    return ReferenceCall(name, by.strip(), params, depth)


def reference_name(by: str | None) -> str | None:
    """The audit's name of the reference ``by`` names (options or not), or None."""
    if by is None:
        return None
    return REFERENCE_NAMES.get(by.strip().partition(" ")[0].lower())
