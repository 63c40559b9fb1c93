"""The source ledger's bibliography: the shipped file, its schema and sources_for."""

from __future__ import annotations

import textwrap
from datetime import date

import pytest

from audit.research.sources import (
    CONVENTIONS,
    METADATA_FIELDS,
    BibliographyError,
    load_bibliography,
    shipped_bibliography,
    sources_for,
)


def _write(tmp_path, body: str):
    path = tmp_path / "bibliography.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


#: A minimal valid entry; tests append one faulty line or entry to it.
GOOD = """\
sources:
  - id: good
    kind: paper
    title: A title
    year: 2002
    verified:
      - fields: [title, year]
        against: the publisher's page
        url: https://example.org/record
        accessed: 2026-11-30
    reading: abstract only
    limits: none stated
    bears_on:
      measures: {nDCG: defines it}
      conventions: {gain: graded gain}
"""


# --- the shipped file -----------------------------------------------------------------------

def test_shipped_bibliography_loads_with_unique_ids():
    bib = shipped_bibliography()
    ids = [s.id for s in bib.sources]
    assert len(ids) >= 15
    assert len(ids) == len(set(ids))


def test_every_filled_in_field_is_verified_with_a_url_and_date_or_marked_unverified():
    for source in shipped_bibliography().sources:
        for name in METADATA_FIELDS:
            status = source.status(name)
            if status == "verified":
                for check in source.checks_for(name):
                    assert check.url.startswith(("http://", "https://")), (source.id, name)
                    assert isinstance(check.accessed, date), (source.id, name)
            elif status == "UNVERIFIED":
                assert name in source.unverified, (source.id, name)
            else:
                assert name not in source.unverified, (source.id, name)
        assert source.title and source.reading and source.limits, source.id


def test_jarvelin_kekalainen_entry_carries_its_doi():
    # DOI as given by the research brief (section 4) and by the ACM Digital Library page checked.
    jk = shipped_bibliography().get("jarvelin-kekalainen-2002")
    assert jk.doi == "10.1145/582415.582418"
    assert jk.status("doi") == "verified"


def test_sources_for_ndcg_and_gain_include_jarvelin_kekalainen_and_burges():
    ids = [s.id for s in sources_for({"nDCG"}, {"gain"})]
    assert "jarvelin-kekalainen-2002" in ids
    assert "burges-2005" in ids


def test_sources_for_keeps_the_bibliography_order_and_only_bearing_entries():
    bib = shipped_bibliography()
    found = sources_for({"RR@10"}, {"rr_cutoff"})
    order = [s.id for s in bib.sources]
    assert [s.id for s in found] == sorted((s.id for s in found), key=order.index)
    assert "msmarco-eval" in [s.id for s in found]
    for source in found:
        assert "RR" in source.bears_on.measures or "rr_cutoff" in source.bears_on.conventions
    assert "jarvelin-kekalainen-2002" not in [s.id for s in found]  # bears on nDCG and gain only


def test_sources_for_accepts_measure_names_with_cutoff_and_aliases():
    assert [s.id for s in sources_for({"nDCG@4"}, set())] == [s.id for s in sources_for({"nDCG"}, set())]
    assert [s.id for s in sources_for({"MRR"}, set())] == [s.id for s in sources_for({"RR"}, set())]


def test_sources_for_refuses_unknown_names():
    with pytest.raises(ValueError, match="nDGC"):
        sources_for({"nDGC"}, set())
    with pytest.raises(ValueError, match="tie_rule"):
        sources_for(set(), {"tie_rule"})


def test_convention_names_are_the_evaluator_model_keys():
    from audit.measures.conventions import CONVENTIONS as MODEL
    assert CONVENTIONS == tuple(MODEL)
    assert CONVENTIONS[:10] == ("prefix", "precision_denominator", "repeated_ids", "ties", "unjudged", "gain",
                                "discount", "ideal", "relevance_level", "rr_cutoff")


# --- the schema refuses bad entries, naming the file, the entry and the field -----------------

def test_a_minimal_valid_file_loads(tmp_path):
    bib = load_bibliography(_write(tmp_path, GOOD))
    assert bib.get("good").status("title") == "verified"
    assert bib.get("good").status("pages") == "absent"


def test_unknown_field_is_refused(tmp_path):
    path = _write(tmp_path, GOOD + "    publisher: ACM\n")
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "publisher")
    assert str(path) in str(info.value) and "unknown field" in str(info.value)


def test_duplicate_id_is_refused(tmp_path):
    twice = GOOD + GOOD.removeprefix("sources:\n")
    with pytest.raises(BibliographyError) as info:
        load_bibliography(_write(tmp_path, twice))
    assert (info.value.entry, info.value.field) == ("good", "id")
    assert "duplicate id 'good'" in str(info.value)


def test_unknown_convention_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("{gain: graded gain}", "{gain: graded gain, tie_rule: docno}"))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "bears_on.conventions")
    assert "tie_rule" in str(info.value)


def test_unknown_measure_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("{nDCG: defines it}", "{NDGC: defines it}"))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "bears_on.measures")


def test_verified_field_without_url_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("        url: https://example.org/record\n", ""))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "verified[0].url")
    assert "required field is missing" in str(info.value)


def test_verified_field_without_access_date_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("        accessed: 2026-11-30\n", ""))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "verified[0].accessed")


def test_filled_in_field_neither_verified_nor_unverified_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("    year: 2002\n", "    year: 2002\n    pages: 422-446\n"))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "pages")


def test_field_both_verified_and_unverified_is_refused(tmp_path):
    path = _write(tmp_path, GOOD.replace("    reading:", "    unverified: [year]\n    reading:"))
    with pytest.raises(BibliographyError) as info:
        load_bibliography(path)
    assert (info.value.entry, info.value.field) == ("good", "year")


def test_unverified_field_reported_as_unverified(tmp_path):
    path = _write(tmp_path, GOOD.replace("    year: 2002\n", "    year: 2002\n    doi: 10.1145/1.2\n")
                  .replace("    reading:", "    unverified: [doi]\n    reading:"))
    source = load_bibliography(path).get("good")
    assert source.status("doi") == "UNVERIFIED"
    assert source.unverified_fields == ["doi"]


def test_repeated_yaml_key_and_missing_file_are_refused(tmp_path):
    with pytest.raises(BibliographyError, match="duplicate key 'title'"):
        load_bibliography(_write(tmp_path, GOOD.replace("    year: 2002\n", "    title: Again\n    year: 2002\n")))
    with pytest.raises(BibliographyError, match="missing"):
        load_bibliography(tmp_path / "absent.yaml")


def test_a_source_that_only_studies_a_measure_supports_no_value_of_it():
    """Buckley and Voorhees 2000 measure the stability of P@k and AP across topic sets (abstract): they define
    neither, so a supported AP claim is not linked to them as "defines the measure the claim computes"; Järvelin and
    Kekäläinen 2002 define nDCG, so a supported nDCG claim is linked to them. (The ledger printed the stability paper as supporting every AP claim of the
    corpus FAQ, each "via measure AP".)"""
    from audit.model.results import ClaimResult
    from audit.research.ledger import links_for

    bib = shipped_bibliography()
    stability = next(s for s in bib.sources if s.id == "buckley-voorhees-2000")
    assert "AP" in stability.bears_on.discusses and "AP" not in stability.bears_on.measures
    assert "buckley-voorhees-2000" not in [s.id for s in sources_for({"AP"}, set())]
    supported = ClaimResult.model_construct(id="A1", kind="value", verdict="supported")  # what links_for reads
    uses = {"A1": (["AP"], [])}
    assert links_for(stability, [supported], uses) == []
    definer = next(s for s in bib.sources if s.id == "jarvelin-kekalainen-2002")
    assert [link.relation for link in links_for(definer, [supported], {"A1": (["nDCG"], [])})] == ["supports"]
