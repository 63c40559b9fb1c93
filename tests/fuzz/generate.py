"""Random chapter registers and TREC files, valid and corrupted, for the fuzz campaign.

Everything is drawn from one ``random.Random``, so a case is reproduced from its seed (the CI
test draws the ``Random`` from Hypothesis; ``benchmarks/bench_fuzz.py`` from a counter). A
register comes with what it *must* not be: the claims whose check exercises nothing (an oracle
computed here from the generated data, independently of chapter-audit), so a "supported" verdict
on one of them is caught as vacuous.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import yaml

MEASURES = ["P@1", "P@3", "R@2", "RR", "RR@3", "AP", "AP@3", "nDCG@3", "nDCG", "nDCG(dcg='exp-log2')@3",
            "Success@2", "Judged@2", "SetP", "SetR"]
CLAIMED = ["1/4", "1/3", "0", "1", "1/2", "≈ .4884", "0.33", "80%", "fifty", "a fifth", "< 1", "> 0", "2/3",
           "0.5", "3/4", ".6309"]
HOSTILE_NUMBERS = ["9" * 5000, "1e999", "1e-999999999", "nan", "inf", "-0", "1/0", "½", "0x10", "1_000",
                   "∞", "", " ", "≈", "< ", "1/" + "9" * 40]
HOSTILE_VALUES = [None, [], {}, [[[[]]]], {"a": {"b": {"c": None}}}, True, 2**70, -(2**70), 1.5, float("inf"),
                  "x" * 5000, "\x00", "<script>alert(1)</script>", "? [a]", "*alias", "%", "{", "\u202e", "🙂"]
QUOTES = ["P@4 = 1/4", "a single relevant result", "Recall never falls as k grows",
          "21/43 ≈ .4884", "ties keep the file order", "unjudged documents count as non-relevant"]
SNAPSHOT = ("At cutoff four, a single relevant result gives P@4 = 1/4. Recall never falls as k grows.\n"
            "The mean is 21/43 ≈ .4884, and ties keep the file order.\n"
            "In this chapter unjudged documents count as non-relevant.\n")


@dataclass
class Register:
    """A generated chapter: its files (name → bytes), its id, and the ids of the claims that
    exercise nothing (must never be "supported")."""

    chapter_id: str
    files: dict[str, bytes]
    vacuous: set[str] = field(default_factory=set)
    corrupted: str = ""

    def write(self, root: Path) -> Path:
        folder = root / self.chapter_id
        folder.mkdir(parents=True)
        for name, data in self.files.items():
            (folder / name).write_bytes(data)
        return folder


def _fixture(rng: random.Random) -> dict:
    docs = [f"d{i}" for i in range(rng.randint(1, 6))]
    queries = [f"q{i}" for i in range(1, rng.randint(1, 3) + 1)]
    qrels, run = {}, {}
    for q in queries:
        judged = rng.sample(docs, rng.randint(0, len(docs)))
        qrels[q] = {d: rng.choice([0, 0, 1, 1, 2, 3, -1, -5]) for d in judged}
        if judged and rng.random() < 0.85:  # mostly something relevant, so most checks run
            qrels[q][rng.choice(judged)] = rng.choice([1, 2])
        run[q] = rng.sample(docs, rng.randint(1 if rng.random() < 0.9 else 0, len(docs)))
    fx = {"qrels": qrels, "run": run}
    if rng.random() < 0.2:
        fx["scores"] = {q: {d: float(rng.choice([1, 1, 2, 3])) for d in r} for q, r in run.items()}
        for q, r in run.items():  # scores must not increase along the ranking
            values = sorted(fx["scores"][q].values(), reverse=True)
            fx["scores"][q] = dict(zip(r, values))
    return fx


def _exercises(fx: dict, measures: list[str], query: str | None = None) -> bool:
    """Whether a value check on ``fx`` exercises the implementations: something ranked and, unless every measure is
    Judged@k, something relevant (grade >= 1) or a ranked document judged in the queries read (a query whose ranked
    documents are all judged non-relevant is a subject in its own right: what each implementation returns when
    nothing is relevant)."""
    queries = [query] if query else list(fx.get("run", {}))
    if not any(fx["run"].get(q) for q in queries):
        return False
    if all(m.startswith("Judged") for m in measures):
        return True
    judged_ranked = any(d in fx["qrels"].get(q, {}) for q in queries for d in fx["run"].get(q, []))
    return judged_ranked or any(g >= 1 for q in queries for g in fx["qrels"].get(q, {}).values())


def _claim(rng: random.Random, i: int, fixtures: dict, vacuous: set[str]) -> dict:
    cid = f"C{i}"
    base = {"id": cid, "title": f"claim {i}", "quote": rng.choice(QUOTES), "claim": "a statement"}
    kind = rng.choice(["value", "value", "value", "comparison", "arithmetic", "convention", "property",
                       "not checkable", "draft"])
    names = list(fixtures)
    if kind == "value" and names:
        name = rng.choice(names)
        measure = rng.choice(MEASURES)
        expect = {"measure": measure, "claimed": rng.choice(CLAIMED)}
        if rng.random() < 0.2:
            expect["tolerance"] = rng.choice(["0.05", "0.01", "0.1"])
        if not _exercises(fixtures[name], [measure]):
            vacuous.add(cid)
        return {**base, "kind": "value", "fixture": name, "expect": [expect]}
    if kind == "comparison" and len(names) >= 1:
        before, after = rng.choice(names), rng.choice(names)
        measure = rng.choice(MEASURES)
        if before == after or (not _exercises(fixtures[before], [measure])
                               and not _exercises(fixtures[after], [measure])):
            vacuous.add(cid)  # a fixture compared with itself is unchanged whatever is computed
        return {**base, "kind": "comparison", "before": before, "after": after,
                "expect": [{"measure": measure, "change": rng.choice(["increases", "decreases", "unchanged"])}]}
    if kind == "arithmetic":
        a, b = rng.randint(0, 50), rng.randint(1, 50)
        return {**base, "kind": "arithmetic", "expression": f"{a}/{b}", "claimed": rng.choice(CLAIMED + [f"{a}/{b}"])}
    if kind == "convention" and names:
        convention = rng.choice(["ties", "unjudged", "repeated_ids", "cutoff"])
        rule = {"ties": "reference order", "unjudged": "zero", "repeated_ids": "reject",
                "cutoff": "first k"}[convention]
        probe = rng.choice(names)
        if rng.random() < 0.8:  # mostly a probe that exercises the convention
            probe = {"ties": {"qrels": {"q1": {"a": 0, "b": 1}}, "run": {"q1": ["a", "b", "c"]},
                              "scores": {"q1": {"a": 1.0, "b": 1.0, "c": 0.5}}},
                     "unjudged": {"qrels": {"q1": {"a": 1, "b": 0}}, "run": {"q1": ["x", "a", "b"]}},
                     "repeated_ids": {"qrels": {"q1": {"a": 1}}, "run": {"q1": ["a", "b", "a"]}},
                     "cutoff": {"qrels": {"q1": {"a": 0, "b": 1}}, "run": {"q1": ["a", "c", "d", "b"]}}}[convention]
        return {**base, "kind": "convention", "convention": convention, "rule": rule, "probe": probe,
                "measures": [rng.choice(["P@2", "RR", "AP@3"])]}
    if kind == "property":
        grades = rng.choice([[0, 1], [0, 1, 2], [0], [-1, 0, 1]])
        relation = rng.choice(["never decreases", "never increases", "increases", "unchanged"])
        claim = {**base, "kind": "property", "measure": rng.choice(["P", "R", "RR", "AP", "nDCG"]),
                 "relation": relation, "compare": "next_cutoff",
                 "universe": {"max_length": rng.randint(1, 3), "documents": 4, "grades": grades,
                              "max_k": rng.randint(2, 4)},
                 "search": {"random_cases": rng.choice([0, 20]), "max_length": 6, "time_limit": 5}}
        if max(grades) < 1:
            vacuous.add(cid)
        return claim
    if kind == "draft":
        return {**base, "kind": "draft", "statement": "P@4 = 1/4"}
    return {**base, "kind": "not checkable", "reason": "qualitative"}


def _corrupt_tree(rng: random.Random, data):
    """``data`` with one randomly chosen node replaced by a hostile value."""
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for k, v in enumerate(node):
                walk(v, path + [k])

    walk(data, [])
    path = rng.choice(paths[1:] or [[]])
    hostile = rng.choice(HOSTILE_VALUES + HOSTILE_NUMBERS)
    if not path:
        return hostile
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = hostile
    return data


def _corrupt_text(rng: random.Random, text: bytes) -> bytes:
    choice = rng.randrange(7)
    if choice == 0:
        return text[: rng.randrange(len(text) + 1)]                              # truncated
    if choice == 1:
        at = rng.randrange(len(text) + 1)
        return text[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))) + text[at:]  # noise
    if choice == 2:
        return b""
    if choice == 3:
        return b"null\n"
    if choice == 4:
        return text.decode("utf-8", "replace").encode("utf-16")
    if choice == 5:
        return b"deep: " + b"[" * 200 + b"]" * 200 + b"\n" + text
    return text + b"\n? [a, b]\n: 1\n"


def register(rng: random.Random, index: int = 0) -> Register:
    """A chapter register: valid most of the time, corrupted (tree, text or snapshot) otherwise."""
    chapter_id = f"fuzz-{index}"
    fixtures = {f"fx{i}": _fixture(rng) for i in range(rng.randint(1, 3))}
    vacuous: set[str] = set()
    claims = [_claim(rng, i, fixtures, vacuous) for i in range(1, rng.randint(1, 6) + 1)]
    data = {"fixtures": fixtures, "claims": claims}
    identity = {"id": chapter_id, "title": "Fuzz"}
    snapshot = SNAPSHOT.encode("utf-8")
    corrupted = ""
    roll = rng.random()
    if roll < 0.25:
        data = _corrupt_tree(rng, json.loads(json.dumps(data)))
        corrupted = "claims tree"
    elif roll < 0.35:
        identity = _corrupt_tree(rng, identity)
        corrupted = "chapter tree"
    claims_text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode("utf-8") \
        if not isinstance(data, float) else b"x: .nan\n"
    chapter_text = yaml.safe_dump(identity, allow_unicode=True).encode("utf-8")
    if 0.35 <= roll < 0.45:
        claims_text = _corrupt_text(rng, claims_text)
        corrupted = "claims text"
    elif 0.45 <= roll < 0.5:
        snapshot = _corrupt_text(rng, snapshot)
        corrupted = "snapshot"
    return Register(chapter_id, {"chapter.yaml": chapter_text, "claims.yaml": claims_text, "snapshot.txt": snapshot},
                    vacuous if not corrupted else set(), corrupted)


def trec_pair(rng: random.Random) -> tuple[bytes, bytes]:
    """A qrels and a run file, with some lines malformed, repeated, non-finite or not text."""
    qrels, run = [], []
    for q in range(1, rng.randint(1, 4) + 1):
        for d in range(rng.randint(1, 5)):
            qrels.append(f"q{q} 0 d{d} {rng.choice(['0', '1', '2', '-1'])}")
        for rank, d in enumerate(rng.sample(range(8), rng.randint(1, 6)), start=1):
            run.append(f"q{q} Q0 d{d} {rank} {rng.choice(['1.0', '2.5', '0.5', '3', '1.0'])} tag")
    hostile = ["q1 0 d1 0.5", "q1 0 d1 inf", "q1 0 d1 1e400", "q1 0 d1 nan", "q1 0 d1", "q1 0 d1 1 extra",
               "q1 0 d1 2147483648", "# comment", "q1 Q0 d1 1 nan tag", "q1 Q0 d1 1 inf tag", "q1 Q0 d1 1",
               "q1 Q0 d1 1 high tag", "zz Q0 d9 1 1.0 tag", "q1 0 d0 1", "q1 Q0 d0 9 1.0 tag", "x" * 4096]
    for lines in (qrels, run):
        for _ in range(rng.choice([0, 0, 1, 2])):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(hostile))
    out = []
    for lines in (qrels, run):
        data = ("\n".join(lines) + "\n").encode("utf-8")
        if rng.random() < 0.08:
            data = _corrupt_text(rng, data)
        out.append(data)
    return out[0], out[1]


# --- listings: a recall@k function, right or wrong, with or without hostile behaviour --------------------------

RIGHT_BODIES = [
    "ranking = [str(d) for d in ranking]\nrelevant = {str(d) for d in relevant}\n"
    "if not relevant or k <= 0:\n    return 0.0\nreturn len(set(ranking[:k]) & relevant) / len(relevant)\n",
    "relevant = set(relevant)\nif not relevant or k <= 0:\n    return 0.0\nhits = set()\n"
    "for d in ranking[:k]:\n    if d in relevant:\n        hits.add(d)\nreturn len(hits) / len(relevant)\n",
    "from fractions import Fraction\nrelevant = set(relevant)\nif not relevant or k <= 0:\n    return 0.0\n"
    "return float(Fraction(len(relevant.intersection(ranking[:k])), len(relevant)))\n",
]
# Each returns something other than recall@k on some input the tester generates (or nothing usable at all).
WRONG_BODIES = [
    "return 0.0\n",
    "relevant = set(relevant)\nreturn len(set(ranking[:k + 1]) & relevant) / max(len(relevant), 1)\n",
    "relevant = set(relevant)\nreturn len(set(ranking[:k]) & relevant) / max(k, 1)\n",
    "relevant = set(relevant)\nreturn 1.0 - len(set(ranking[:k]) & relevant) / max(len(relevant), 1)\n",
    "return str(len(set(ranking[:k]) & set(relevant)))\n",
    "return None\n",
    "return float('nan')\n",
    "return 10 ** 400\n",
    "return [len(set(ranking[:k]) & set(relevant))]\n",
    "return complex(1, 1)\n",
    "raise ValueError('\\ud800' * 50 + '\\x00\\x1b[31m' + '<script>alert(1)</script>')\n",
    "raise RuntimeError('x' * 2_000_000)\n",
    "def deep(n):\n    return deep(n + 1)\nreturn deep(0)\n",
    "import time\ntime.sleep(30)\nreturn 0.5\n",
    "while True:\n    pass\n",
    "class Odd(float):\n    def __eq__(self, other):\n        return True\n    def __repr__(self):\n        return '1.0'\n"
    "return Odd(0.0)\n",
]
# Run before the body; none may turn a wrong function into a supported or qualified one.
PREFIXES = [
    "",
    "print('<script>alert(1)</script> | --- | [x](javascript:alert(1)) \\ud800'.encode('utf-8', 'surrogatepass')"
    ".decode('utf-8', 'replace'))\n",
    "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00 not text\\n')\nsys.stdout.flush()\n",
    "print('x' * 5_000_000)\n",
    'print(\'{"kind": "call", "i": 0, "status": "ok", "value": "0x1.0p+0", "output": ""}\')\n'
    "print('{\"kind\": \"done\"}')\n",
    "import json, os, stat, struct\nframe = json.dumps({'kind': 'call', 'i': 0, 'status': 'ok', 'value': (1.0).hex(),"
    " 'output': ''}).encode()\nfor fd in range(64):\n    try:\n        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
    "            os.write(fd, struct.pack('>I', len(frame)) + frame + bytes([1]) + struct.pack('>d', 1.0))\n"
    "    except OSError:\n        pass\n",
    "import os\ntry:\n    os.fork()\nexcept OSError:\n    pass\n",
    "import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 9))\n"
    "except OSError:\n    pass\n",
    "try:\n    open('/etc/passwd').read()\nexcept OSError:\n    pass\n",
    "import sys\nsys.setrecursionlimit(10 ** 6)\n",
]
LISTING_SNAPSHOT = "Recall at k counts the relevant documents among the first k:\n\n"
LISTING_QUOTE = "def recall_at_k(ranking, relevant, k):"


@dataclass
class Listing:
    """A generated code claim: its chapter folder's files and the verdicts its function may earn."""

    chapter_id: str
    files: dict[str, bytes]
    allowed: set[str]
    label: str

    def write(self, root: Path) -> Path:
        return Register.write(self, root)  # type: ignore[arg-type]


def listing(rng: random.Random, index: int = 0) -> Listing:
    """A recall@k listing: a right body (supported, or qualified where a convention the listing does not
    share decides) or a wrong one (never supported or qualified), after a prefix that prints, floods, forges
    protocol frames or tries what the sandbox refuses."""
    wrong = rng.random() < 0.6
    bodies = WRONG_BODIES if wrong else RIGHT_BODIES
    b, p = rng.randrange(len(bodies)), rng.randrange(len(PREFIXES))
    prefix = PREFIXES[p] if wrong or p < 3 else ""  # a right body after a refused act is not the right function
    body = "    " + (prefix + bodies[b]).replace("\n", "\n    ").rstrip() + "\n"
    source = f"{LISTING_QUOTE}\n{body}"
    claims = {"claims": [{"id": "L1", "title": "recall", "kind": "code", "quote": LISTING_QUOTE,
                          "claim": "computes recall at k", "function": "recall_at_k", "measure": "R@k",
                          "arguments": {"ranking": "ranking", "relevant": "relevant set", "k": "cutoff"}}]}
    chapter_id = f"fuzz-listing-{index}"
    files = {"chapter.yaml": yaml.safe_dump({"id": chapter_id, "title": "Listing"}).encode("utf-8"),
             "claims.yaml": yaml.safe_dump(claims, sort_keys=False).encode("utf-8"),
             "snapshot.txt": (LISTING_SNAPSHOT + source).encode("utf-8")}
    # a right body after prefix 2 writes to sys.stdout's buffer: a listing using sys is not certified (an error
    # naming what it does, docs/sandbox.md), whatever it returns
    allowed = {"contradicted", "error"} if wrong else {"error"} if p == 2 else {"supported", "qualified"}
    return Listing(chapter_id, files, allowed, f"{'wrong' if wrong else 'right'} body {b}, prefix {p}")
