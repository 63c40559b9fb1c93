"""Registers are read with libyaml where PyYAML has it: the data, the claims' line numbers and every refusal
(with its wording) must be those of the pure-Python loader the register rules were written against."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.errors import RegisterError
from audit.register import claims as register

pytestmark = pytest.mark.skipif(register._FastLoader is None, reason="PyYAML was built without libyaml")

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=12), st.sampled_from(["1/4", "0.4884", "yes", "~", "2e3", "0x1f", "P@4"]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)), max_leaves=20)


def _pure(path):
    """What the pure-Python loader alone gives: (data, claim lines) or the RegisterError's text."""
    fast, register._FastLoader = register._FastLoader, None
    try:
        data, node = register._read_yaml(path)
        return data, register._claim_lines(node)
    except RegisterError as exc:
        return str(exc)
    finally:
        register._FastLoader = fast


def _fast(path):
    try:
        data, node = register._read_yaml(path)
        return data, register._claim_lines(node)
    except RegisterError as exc:
        return str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=documents, style=st.sampled_from([False, True, None]))
def test_libyaml_reads_what_the_pure_python_loader_reads(tmp_path, data, style):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [data, {"id": "C1"}]}, default_flow_style=style, allow_unicode=True),
                    encoding="utf-8")
    assert _fast(path) == _pure(path)


BROKEN = [
    "claims:\n  - id: C1\n    id: C2\n",                 # a repeated key
    "claims: [\n",                                       # unclosed flow sequence
    "claims:\n- id: C1\n  quote: 'open\n",               # unclosed quote
    "claims:\n\t- id: C1\n",                             # a tab as indentation
    "? [a, b]\n: 1\n",                                   # a list as key
    "a: &x 1\nb: *y\n",                                  # an undefined alias
    "claims:\n  - id: C1\n   title: x\n",                # bad indentation
    "claims: !!python/object:os.system ls\n",            # an unsafe tag
    "x: " + "[" * 200 + "]" * 200 + "\n",                # deeper than the limit
    "claims:\n  - id: C1\n" + "\x07\n",                  # a control character
    "a: 1\n---\nb: 2\n",                                 # two documents
    "",                                                  # empty
]


@pytest.mark.parametrize("text", BROKEN)
def test_a_refusal_is_worded_as_the_pure_python_loader_words_it(tmp_path, text):
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    assert _fast(path) == _pure(path)
