"""A register is read in one pass (the node for the claims' line numbers, the data constructed from it): the
data, the line numbers and every refusal must be those of ``yaml.load`` and ``yaml.compose`` with the same
loader, which the register rules were written against."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.errors import RegisterError
from audit.register import claims as register

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=12), st.sampled_from(["1/4", "0.4884", "yes", "~", "2e3", "0x1f", "P@4"]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)), max_leaves=20)


def _two_passes(text: str):
    """What ``yaml.load`` and ``yaml.compose`` give: (data, claim lines), or the problem's text."""
    try:
        register._shape(text, None)
        return (yaml.load(text, Loader=register.UniqueKeyLoader),
                register._claim_lines(yaml.compose(text, Loader=yaml.SafeLoader)))
    except yaml.YAMLError as exc:
        return getattr(exc, "problem", None) or str(exc)
    except RegisterError as exc:
        return exc.message


def _one_pass(path):
    try:
        data, node = register._read_yaml(path)
        return data, register._claim_lines(node)
    except RegisterError as exc:
        return exc.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=documents, style=st.sampled_from([False, True, None]))
def test_one_pass_reads_what_load_and_compose_read(tmp_path, data, style):
    path = tmp_path / "claims.yaml"
    text = yaml.safe_dump({"claims": [data, {"id": "C1"}]}, default_flow_style=style, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    assert _one_pass(path) == _two_passes(text)


BROKEN = [
    "claims:\n  - id: C1\n    id: C2\n",                 # a repeated key
    "claims: [\n",                                       # unclosed flow sequence
    "claims:\n- id: C1\n  quote: 'open\n",               # unclosed quote
    "claims:\n\t- id: C1\n",                             # a tab as indentation
    "? [a, b]\n: 1\n",                                   # a list as key
    "a: &x 1\nb: *y\n",                                  # an undefined alias
    "claims:\n  - id: C1\n   title: x\n",                # bad indentation
    "claims: !!python/object:os.system ls\n",            # an unsafe tag
    "claims:\n  - id: C1\n" + "\x07\n",                  # a control character
    "a: 1\n---\nb: 2\n",                                 # two documents
]


@pytest.mark.parametrize("text", BROKEN)
def test_a_refusal_is_the_loaders_own(tmp_path, text):
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    one, two = _one_pass(path), _two_passes(text)
    assert isinstance(one, str) and isinstance(two, str), (one, two)  # both refuse it
    assert two.split(" (")[0][:40] in one, (one, two)
