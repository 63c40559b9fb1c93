"""The documentation: the MkDocs site builds with --strict (no broken page, link or anchor, no page outside the
nav), its generated parts hold every schema definition and every declared convention, and the README — the door
page — keeps the Quick start that .ci/run runs, links that resolve, and the book workflow's snippets in step with
the shipped hook and CI recipe."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(site.parent)})


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    done = _build(ROOT / "mkdocs.yml", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_site_builds_strict_with_every_page(site):
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(nav):
        for item in nav:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from (pages(value) if isinstance(value, list) else [value])
    listed = set(pages(config["nav"]))
    assert listed == {p.name for p in DOCS.glob("*.md")}
    for page in listed:
        html = site / ("index.html" if page == "index.md" else page.removesuffix(".md") + "/index.html")
        assert html.is_file(), page
        assert "<!-- generated:" not in html.read_text(encoding="utf-8"), page
    assert (site / "ci" / "github-actions.yml").is_file() and not (site / "hooks.py").exists()


def test_the_register_reference_holds_every_field_of_both_schemas(site):
    html = (site / "register-reference" / "index.html").read_text(encoding="utf-8")
    schemas = {name: json.loads((ROOT / "audit" / "register" / "schemas" / f"{name}.schema.json").read_text("utf-8"))
               for name in ("chapter", "claims")}
    for name, schema in schemas.items():
        for definition, node in [(f"{name}.yaml", schema), *schema["$defs"].items()]:
            anchor = re.sub(r"[^\w-]", "", definition.lower())
            assert f'id="{anchor}"' in html, definition
            for field in node.get("properties", {}):
                assert f"<code>{field}</code>" in html, (definition, field)
    kinds = {d["properties"]["kind"]["const"] for d in schemas["claims"]["$defs"].values()
             if "const" in d["properties"].get("kind", {})}
    assert {"value", "comparison", "arithmetic", "convention", "property", "code", "statistic"} <= kinds
    for kind in kinds:
        assert re.search(rf"<code>(\"|&quot;){re.escape(kind)}(\"|&quot;)</code>", html), kind


def test_the_conventions_page_says_what_every_declared_value_means():
    """Beside the table (whose values and their order tests/test_measure_catalogue.py holds to the declarations), the
    page lists each value with the phrase the reports use for it, from the same declarations."""
    from audit.measures.conventions import CONVENTIONS
    page = (DOCS / "conventions.md").read_text(encoding="utf-8")
    assert "<!-- generated: convention-values -->" in page
    values = _hooks().render("<!-- generated: convention-values -->", "conventions.md")
    for name, convention in CONVENTIONS.items():
        assert f"- `{name}` ({convention.title})" in values, name
        for value in convention.values:
            assert f"`{value}`: {convention.phrase(value)}" in values, (name, value)


def test_the_measures_page_lists_every_catalogue_measure_with_its_conventions():
    from audit.evaluation.evaluator import relevant_to
    from audit.measures.catalogue import CATALOGUE
    assert "<!-- generated: measures -->" in (DOCS / "measures.md").read_text(encoding="utf-8")
    table = _hooks().render("<!-- generated: measures -->", "measures.md")
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines() if line.startswith("| `")}
    assert set(rows) == set(CATALOGUE)
    for name in CATALOGUE:
        listed = [c.strip("` ") for c in rows[name].split(" | ")[3].split(",") if c.strip() != "—"]
        assert listed == relevant_to(name, several_queries=False), name


def test_an_unknown_generated_part_stops_the_build_naming_the_page():
    hooks = _hooks()
    with pytest.raises(hooks.UnknownPart, match=r"measures\.md: unknown generated part 'conventons'"):
        hooks.render("# Measures\n\n<!-- generated: conventons -->\n", "measures.md")


def test_a_broken_anchor_or_a_page_outside_the_nav_fails_the_build(tmp_path):
    """The strict build is what keeps links from breaking: a link to a heading that is not there, and a page no menu
    lists, each fail it, named."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in DOCS.glob("*.md"):
        (docs / page.name).write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "ci").mkdir()
    (docs / "ci" / "github-actions.yml").write_text((DOCS / "ci" / "github-actions.yml").read_text("utf-8"), "utf-8")
    index = docs / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\n[gone](workflow.md#no-such-heading)\n", encoding="utf-8")
    (docs / "stray.md").write_text("# Stray\n", encoding="utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config.update(docs_dir=str(docs), hooks=[str(DOCS / "hooks.py")])
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    done = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-heading" in done.stderr and "stray.md" in done.stderr, done.stderr


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_the_readme_quick_start_is_what_ci_runs():
    """.ci/run runs "the README's two Quick start commands, exactly as written there": the Quick start's two bash
    blocks, each a line of .ci/run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", _section(readme, "Quick start"), re.DOTALL)
    assert len(blocks) == 2 and blocks[0].startswith("python3.11 -m venv .venv && .venv/bin/pip install '.[sklearn]' "), blocks
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in blocks:
        assert command in ci, command


def _slug(heading: str) -> str:
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading.strip().lower()))


def test_the_readme_is_a_door_whose_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 250
    links = re.findall(r"\]\(((?!https?:)[^)#\s]+)(?:#([^)\s]+))?\)", readme)
    assert any(target.startswith("docs/") for target, _ in links)
    for target, anchor in links:
        path = ROOT / target
        assert path.is_file(), target
        if anchor:
            headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)}
            assert anchor in headings, (target, anchor)
    assert "(docs/index.md)" in readme


def test_the_pre_commit_snippets_run_the_shipped_hook():
    """Both `.pre-commit-config.yaml` snippets in docs/workflow.md name the shipped hook; the local one runs its
    entry, exactly, with its settings."""
    shipped = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    page = (DOCS / "workflow.md").read_text(encoding="utf-8")
    configs = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)\n```", page, re.DOTALL) if "repos:" in b]
    assert len(configs) == 2
    local = 0
    for config in configs:
        for repo in config["repos"]:
            for hook in repo["hooks"]:
                assert hook["id"] in shipped, hook["id"]
                if repo["repo"] == "local":
                    local += 1
                    ship = shipped[hook["id"]]
                    assert shlex.split(hook["entry"]) == shlex.split(ship["entry"])
                    assert (hook["pass_filenames"], hook["require_serial"]) == (ship["pass_filenames"],
                                                                                 ship["require_serial"])
    assert local == 1


def test_every_variable_the_ci_recipe_reads_is_documented():
    recipe = (DOCS / "ci" / "github-actions.yml").read_text(encoding="utf-8")
    names = set(re.findall(r"\$\{\{\s*(?:vars|secrets)\.([A-Z0-9_]+)\s*\}\}", recipe))
    assert names, "the recipe reads no variable"
    table = _section((DOCS / "workflow.md").read_text(encoding="utf-8"), "CI: the workflow and its variables")
    for name in names:
        assert f"| `{name}` |" in table, name
