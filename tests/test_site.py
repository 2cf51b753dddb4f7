"""The course as a website (``helpers/site.py``, ``python -m helpers site``) and the executed notebooks behind it.

1. **Stored outputs that cannot drift.** ``executed/NN_topic.ipynb`` must match its worked solution
   (cell by cell, hidden tests removed), hold no hidden test and no error, and give every figure a
   text alternative; one ``pytest --nbval`` run over a copy of ``executed/`` checks every stored
   output against a fresh run (sanitizers: ``executed/nbval_sanitize.cfg``) and, in the same run,
   that a copy of one notebook with a single printed digit changed fails at that cell.
2. **The site.** Each edition is built once per session (module fixtures, from a copy of the
   checkout's files, network connections refused and logged); the build times are printed. Then:
   no Sphinx warning, every chapter there, every image with a text alternative, no resource
   outside the site, each worked solution folded in a ``<details>`` element (self-study), and the
   class edition holding no line of a worked solution or hidden test (the self-study edition,
   which does hold them, is the control).
3. **In Chromium** (Debian's, driven by Playwright, as ``tests/test_browser.py``): every page of
   both editions opened from disk renders, its maths is typeset by the site's own MathJax (no raw
   ``$...$`` or ``\\(...\\)`` left), its figures load, the solution toggles open and close, and no
   request leaves the site; at phone width no page is wider than the screen; with JavaScript off a
   chapter still reads and its toggles still work. Screenshots go to ``test-artifacts/site/``.

Needs ``pip install -r requirements-site.txt`` for 2 and 3 (skipped with the reason otherwise,
unless ``COURSE_TEST_SITE_REQUIRED=1``, which ``.ci/run`` sets) and Chromium for 3 (same rule with
``COURSE_TEST_BROWSER_REQUIRED=1``).
"""
from __future__ import annotations

import copy
import html as html_lib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as nbt  # noqa: E402
from browser_tools import chromium  # noqa: E402

from helpers import mathjax, site  # noqa: E402
from helpers.cli import main as cli_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = ROOT / "executed"
ARTIFACTS = ROOT / "test-artifacts" / "site"
ASSIGNMENTS = nbt.discover_assignments()
PAGE_TIMEOUT_MS = 90_000  # one page element or load; generous: a loaded 2-core machine takes 10-15 s a page
BUILD_TIMES: dict[str, float] = {}
STRAIGHT = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})


def _skip(reason: str, env: str = "COURSE_TEST_SITE_REQUIRED"):
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 but {reason}")
    pytest.skip(reason)


def _require_site_packages():
    try:
        site._require_sphinx()
        site.mathjax_dir()
    except site.SiteError as exc:
        _skip(str(exc))


# ============================================================================ the notebook transformations

def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def _code(source, **nbgrader):
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    cell.execution_count = 3
    return cell


SOL = "\n".join([
    "def f(x):",
    '    """Twice x."""',
    f"    {site.BEGIN_SOLUTION}",
    "    secret_answer = 2 * x",
    "    return secret_answer",
    f"    {site.END_SOLUTION}",
])
TEST = "\n".join([
    "assert f(1) == 2",
    'print("visible check")',
    site.BEGIN_HIDDEN,
    "assert f(7) == 14  # hidden line",
    site.END_HIDDEN,
])


def test_class_notebook_removes_solutions_hidden_tests_and_outputs():
    answer = nbformat.v4.new_markdown_cell("My model answer is long enough to be a leak.")
    answer.metadata["nbgrader"] = {"solution": True, "grade": True}
    source = _nb(_code(SOL, solution=True), _code(TEST, grade=True), answer)
    out = site.class_notebook(source)
    code = out.cells[0].source + out.cells[1].source
    assert "secret_answer" not in code and "hidden line" not in code
    assert out.cells[0].source == 'def f(x):\n    """Twice x."""\n    raise NotImplementedError()'
    assert out.cells[1].source == 'assert f(1) == 2\nprint("visible check")'
    assert out.cells[2].source == "YOUR ANSWER HERE"
    assert all(not c.outputs and c.execution_count is None for c in out.cells if c.cell_type == "code")
    assert "secret_answer" in source.cells[0].source  # the input is unchanged


def test_self_study_notebook_keeps_the_solution_and_drops_hidden_tests():
    out = site.self_study_notebook(_nb(_code(SOL, solution=True), _code(TEST, grade=True)))
    assert out.cells[0].source == 'def f(x):\n    """Twice x."""\n    secret_answer = 2 * x\n    return secret_answer'
    assert out.cells[1].source == 'assert f(1) == 2\nprint("visible check")'
    assert not out.cells[0].outputs


def test_strip_region_runs_an_unclosed_region_to_the_end():
    assert site.strip_region(f"a\n{site.BEGIN_HIDDEN}\nb\nc", site.BEGIN_HIDDEN, site.END_HIDDEN) == "a"


def test_describe_figure_says_what_a_histogram_shows():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2)
    left.hist([1, 2, 2, 3], bins=3)
    left.set(title="Lengths", xlabel="length", ylabel="words")
    right.plot([0, 1, 2], [1, 0, 1], label="a curve")
    right.legend()
    fig.suptitle("Two views")
    text = site.describe_figure(fig)
    plt.close(fig)
    assert text.startswith("Shows 2 panels: (1) 3 bars of values from 1 to 2; (2) 1 line of values from 0 to 1. "), text
    assert ('Figure of 2 panels "Two views". Panel 1: "Lengths", 3 bars; horizontal axis: length; '
            "vertical axis: words.") in text, text
    assert "Panel 2: 1 line;" in text and "legend: a curve" in text


@pytest.mark.parametrize("histtype", ["step", "stepfilled"])
def test_describe_figure_counts_the_bins_of_a_step_histogram(histtype):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.hist([1, 2, 2, 3, 3, 3], bins=5, histtype=histtype)
    ax.fill([0, 1, 0.5], [0, 0, 1])  # a polygon that is no histogram
    ax.set(title="Lengths")
    text = site.describe_figure(fig)
    plt.close(fig)
    assert text.endswith('. Figure: "Lengths", a histogram of 5 bins.'), text


def test_alt_text_starts_with_what_the_figure_shows_in_numbers():
    """The first sentence: the histogram's count, range and mode, the observed line; the scatter's r."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.hist([0.5, 1.5, 1.5, 2.5, 3.5, 4.5, 1.6], bins=[0, 1, 2, 3, 4, 5])
    ax.axvline(4.2, label="observed s = 4.2")
    ax.legend()
    text = site.describe_figure(fig)
    plt.close(fig)
    assert text.startswith("Shows a histogram of 7 values from 0 to 5, the tallest bar between 1 and 2, a vertical line at 4.2 "
                           "(observed s = 4.2). Figure:"), text
    fig, ax = plt.subplots()
    ax.scatter([1, 2, 3, 4], [2, 4, 6, 8.5])
    text = site.describe_figure(fig)
    plt.close(fig)
    r = np.corrcoef([1, 2, 3, 4], [2, 4, 6, 8.5])[0, 1]
    assert text.startswith(f"Shows 4 points, horizontal from 1 to 4, vertical from 2 to 8.5, Pearson r = {r:.2f}. "), text


def test_a_long_alt_text_is_cut_between_clauses_never_inside_a_value():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 6)
    for k, ax in enumerate(axes):
        ax.plot([0, 1, 2], [0, 1, 0], label=f"p = 0.000{k}1234 for panel {k}")
        ax.set(title=f"A long title of panel {k} " * 3, xlabel="a long label " * 4)
        ax.legend()
    text, full = site.describe_figure(fig, limit=700), site.describe_figure(fig, limit=10**6)
    plt.close(fig)
    assert len(full) > 700 and len(text) <= 700 and text.endswith("; ..."), text
    kept = text[:-len("; ...")]
    # the text kept ends where a clause of the whole description ends: no value is cut
    assert full.startswith(kept) and full[len(kept):].startswith(("; ", ". ")), (kept[-60:], full[len(kept):][:60])


def test_link_terms_links_the_first_use_in_running_text_only():
    entries = site._glossary_entries("# G\n\n- **Cosine similarity** [01]: the cosine.\n- **WEAT** [03]: a test.\n"
                                     "- **Effect size $d$ (WEAT)** [04]: d.\n")
    assert [e["key"] for e in entries] == ["Cosine similarity", "WEAT", "Effect size d (WEAT)"]
    nb = _nb(nbformat.v4.new_markdown_cell("## Cosine similarity\n\n`cosine similarity` and $cosine similarity$ "
                                           "and [cosine similarity](x.md), then the Cosine similarity, a weat; "
                                           "two WEATs and effect sizes."),
             nbformat.v4.new_markdown_cell("cosine similarity again, the WEAT again"))
    out = site.link_terms(nb, entries)
    assert out.cells[0].source == (
        "## Cosine similarity\n\n`cosine similarity` and $cosine similarity$ and [cosine similarity](x.md), then the "
        "{term}`Cosine similarity <Cosine similarity>`, a weat; two {term}`WEATs <WEAT>` and "
        "{term}`effect sizes <Effect size d (WEAT)>`.")
    assert out.cells[1].source == "cosine similarity again, the WEAT again"
    assert nb.cells[1].source == out.cells[1].source and "{term}" not in nb.cells[0].source


def test_glossary_is_sorted_and_has_no_duplicate_term():
    entries = site._glossary_entries((ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8"))
    keys = [re.sub(r"[*\\]", "", e["key"]).lower() for e in entries]
    assert len(entries) >= 40 and keys == sorted(keys) and len(set(keys)) == len(keys), keys


def test_hub_links_only_when_the_instructor_sets_an_address():
    chapters = {"01_cosine": _nb(nbformat.v4.new_markdown_cell("# One"), nbformat.v4.new_markdown_cell("text"))}
    assert site.hub_links(chapters, "") is chapters
    out = site.hub_links(chapters, "https://hub.example.edu/hub/user-redirect/git-pull?repo=r&urlpath=lab/tree/"
                                   "notebooks/{assignment}/{assignment}.ipynb")
    link = out["01_cosine"].cells[1].source
    assert 'href="https://hub.example.edu/hub/user-redirect/git-pull?repo=r&amp;urlpath=lab/tree/notebooks/' \
           '01_cosine/01_cosine.ipynb"' in link and "Open this notebook in JupyterHub" in link
    assert len(chapters["01_cosine"].cells) == 2  # unchanged
    for bad in ("hub.example.edu/{assignment}", "https://hub.example.edu/", 'https://x/{assignment}"><script>'):
        with pytest.raises(site.SiteError, match="COURSE_SITE_HUB_URL"):
            site.hub_links(chapters, bad)


def test_licence_and_citation_are_stated_in_the_repository():
    import yaml

    from helpers import __version__

    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert "CC BY 4.0" in (ROOT / "LICENSE-TEXT.md").read_text()
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["version"] == __version__, (cff["version"], __version__)
    assert set(cff["license"]) == {"MIT", "CC-BY-4.0"} and cff["references"][0]["doi"] == "10.1126/science.aal4230"


def test_course_map_totals_are_the_notebooks_points():
    """The home page's totals are summed from docs/STUDENTS.md; they must equal the graded cells' points."""
    table, totals = site._course_map((ROOT / "docs" / "STUDENTS.md").read_text(), ASSIGNMENTS)
    points = 0
    for a in ASSIGNMENTS:
        nb = nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{a}.ipynb")
        points += sum(nbt.nbgrader_meta(c).get("points", 0) for c in nb.cells if nbt.nbgrader_meta(c).get("grade"))
    assert totals["notebooks"] == len(ASSIGNMENTS)
    assert totals["points"] == points
    for a in ASSIGNMENTS:
        assert f"[`{a}`]({a}.ipynb)" in table


def test_references_list_each_work_once():
    chapters = {a: nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{a}.ipynb") for a in ASSIGNMENTS}
    text = site._references(chapters)
    items = [ln for ln in text.splitlines() if ln.startswith("- ")]
    dois = [m.group(1).lower().rstrip(".") for ln in items for m in [site._REF_ID.search(ln)] if m]
    assert len(dois) == len(items) == len(set(dois)), items
    science = [ln for ln in items if "10.1126/science.aal4230" in ln]
    assert len(science) == 1 and science[0].count(".ipynb)") == sum(
        "10.1126/science.aal4230" in "".join(c.source for c in nb.cells) for nb in chapters.values())
    assert "Semantics derived automatically from language corpora contain human-like biases" in science[0]


def test_missing_packages_say_how_to_install_them(monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("sphinx", "mathjax") else real(name, *a))
    monkeypatch.delenv(mathjax.MATHJAX_ENV, raising=False)
    with pytest.raises(site.SiteError, match=r"pip install -r requirements-site.txt"):
        site._require_sphinx()
    with pytest.raises(site.SiteError, match=r"MathJax 3 is not installed.*pip install -r requirements-site.txt"
                                             r".*npm install mathjax@3"):
        site.mathjax_dir()
    monkeypatch.setenv(mathjax.MATHJAX_ENV, str(tmp_path))
    with pytest.raises(site.SiteError, match=r"has no tex-svg.js"):
        site.mathjax_dir()


def test_cli_usage_errors(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["site"]) == 2
    assert "give the folder" in capsys.readouterr().err
    assert cli_main(["site", "out", "--execute-only"]) == 2
    assert "--execute-only" in capsys.readouterr().err
    assert cli_main(["site", "out"]) == 2  # not a course root
    assert "from the course root" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["site", "out", "--edition", "teacher"])


# ============================================================================ executed/

def test_executed_notebooks_match_the_worked_solutions():
    stale = site.stale_executed(ROOT)
    assert not stale, ("executed/ is out of date:\n  " + "\n  ".join(f"{k}: {v}" for k, v in stale.items())
                       + f"\nRun `python -m helpers site --execute-only {' '.join(stale)}` and commit executed/.")


def test_executed_notebook_is_complete_and_clean(assignment):  # one per assignment (conftest.py)
    nb = nbt.read_nb(EXECUTED / f"{assignment}.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "a code cell was not executed"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"error outputs: {[o.get('ename') for o in errors]}"
    text = nbformat.writes(nb)
    for marker in nbt.MARKERS:
        assert marker not in text
    secret = nbt.hidden_and_solution_lines(nbt.read_nb(nbt.SOLUTIONS_DIR / assignment / f"{assignment}.ipynb"),
                                           assignment)
    hidden = secret["hidden"] - secret["solution"]  # a line of the worked solution that a hidden test repeats is shown
    sources = {ln.strip() for c in code for ln in c.source.split("\n")}
    assert not hidden & sources, f"hidden-test lines in executed/{assignment}.ipynb: {sorted(hidden & sources)[:3]}"
    for c in code:
        for o in c.outputs:
            if "image/png" in o.get("data", {}):
                alt = o.get("metadata", {}).get("alt", "")
                assert len(alt) > 20 and not alt.startswith("Figure (no description"), (
                    f"a figure of executed/{assignment}.ipynb has no description ({alt!r}): re-execute it with "
                    "`python -m helpers site --execute-only`")


def _alter_one_number(nb) -> tuple[int, str, str]:
    """Change one digit of the first decimal number printed to stdout; returns (code cell index, old, new)."""
    k = -1
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        k += 1
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stdout":
                m = re.search(r"\d\.\d{3,}", output.text)
                if m:
                    old = m.group(0)
                    new = old[:-1] + str((int(old[-1]) + 1) % 10)
                    output.text = output.text[: m.start()] + new + output.text[m.end():]
                    return k, old, new
    raise AssertionError("no printed decimal number to alter")


def test_nbval_passes_on_the_stored_outputs_and_fails_on_a_changed_number(tmp_path):
    """One ``pytest --nbval`` run, with the figure check (tests/figure_check.py), over a copy of executed/ plus
    ``zz_altered.ipynb`` (01_cosine up to the first cell that prints a decimal number, with one printed digit
    changed) and two copies up to its first figure (alt text changed, pixels changed): every stored cell passes;
    each altered copy fails at its cell and only there."""
    pytest.importorskip("nbval", reason="nbval is pinned in requirements.txt: pip install -r requirements.txt")
    work = tmp_path / "executed"
    shutil.copytree(EXECUTED, work)
    altered = nbt.read_nb(EXECUTED / f"{ASSIGNMENTS[0]}.ipynb")
    cell, old, new = _alter_one_number(altered)
    # the cells after it are checked in the unaltered copy; leaving them out here saves running them twice
    altered.cells = altered.cells[:[i for i, c in enumerate(altered.cells) if c.cell_type == "code"][cell] + 1]
    nbt.write_nb(altered, work / "zz_altered.ipynb")
    figure_cell = _figure_copies(work)
    start = time.perf_counter()
    failed, passed = nbt.run_nbval(work, tmp_path)
    print(f"\nnbval over {len(list(work.glob('*.ipynb')))} notebooks: {time.perf_counter() - start:.0f} s")
    real = {k: v[-1500:] for k, v in failed.items() if "zz_" not in k}
    assert not real, "stored outputs differ from a fresh run (re-execute with `python -m helpers site --execute-only "
    "NN_topic` if the change is intended):\n" + "\n\n".join(f"{k}:\n{v}" for k, v in real.items())
    assert sum("zz_" not in p for p in passed) > 100, f"too few cells checked: {len(passed)}"
    # what nbval skips, the figure check sees: a changed alt text, a changed block of pixels
    for name, words in (("zz_alt", "alt text differs"), ("zz_pixels", "of the pixels differ")):
        hits = [k for k in failed if f".{name}.ipynb::" in k]
        assert len(hits) == 1 and hits[0].endswith(f"Cell {figure_cell}") and words in failed[hits[0]], (name, failed)
    altered_failures = [k for k in failed if ".zz_altered.ipynb::" in k]
    assert len(altered_failures) == 1, f"the altered notebook should fail at one cell, not {altered_failures}"
    assert altered_failures[0].endswith(f"Cell {cell}"), (altered_failures, cell)
    message = failed[altered_failures[0]]
    assert old in message and new in message, message[-1500:]


def _png(pixels) -> str:
    import base64
    import io

    from matplotlib.image import imsave

    buffer = io.BytesIO()
    imsave(buffer, pixels, format="png")
    return base64.b64encode(buffer.getvalue()).decode()


def _first_figure(nb) -> tuple[int, dict]:
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                return i, output
    raise AssertionError("no figure")


def test_compare_figures_tolerates_edge_pixels_and_catches_changes():
    import figure_check

    _, output = _first_figure(nbt.read_nb(EXECUTED / f"{ASSIGNMENTS[0]}.ipynb"))
    pixels = figure_check._pixels(output["data"]["image/png"])
    stored = [output]
    assert figure_check.compare_figures(stored, [copy.deepcopy(output)]) == []
    speck = pixels.copy()
    speck[0, 0, :3] = 1 - speck[0, 0, :3]  # one pixel: anti-aliasing, a font's hinting
    assert figure_check.compare_figures(stored, [{**output, "data": {"image/png": _png(speck)}}]) == []
    block = pixels.copy()
    h, w = block.shape[:2]
    block[h // 3: h // 3 + 12, w // 3: w // 3 + 40, :3] = 1 - block[h // 3: h // 3 + 12, w // 3: w // 3 + 40, :3]
    changed = figure_check.compare_figures(stored, [{**output, "data": {"image/png": _png(block)}}])
    assert len(changed) == 1 and "of the pixels differ" in changed[0], changed
    renamed = figure_check.compare_figures(stored, [{**output, "metadata": {**output["metadata"], "alt": "Other."}}])
    assert len(renamed) == 1 and "alt text differs" in renamed[0], renamed
    assert figure_check.compare_figures(stored, []) == ["1 figures stored, 0 in the fresh run"]


def _figure_copies(work: Path) -> int:
    """Write two copies of the first executed notebook up to its first figure into ``work``: ``zz_alt`` with
    the figure's alt text changed, ``zz_pixels`` with a block of its pixels changed. Returns the number of the
    figure's cell among the code cells (nbval's ``Cell N``)."""
    import figure_check

    nb = nbt.read_nb(EXECUTED / f"{ASSIGNMENTS[0]}.ipynb")
    index, _ = _first_figure(nb)
    for name, change in (("zz_alt", "alt"), ("zz_pixels", "pixels")):
        altered = copy.deepcopy(nb)
        altered.cells = altered.cells[: index + 1]
        _, output = _first_figure(altered)
        if change == "alt":
            output["metadata"]["alt"] = output["metadata"]["alt"].replace("Shows", "Displays", 1)
        else:
            pixels = figure_check._pixels(output["data"]["image/png"])
            h, w = pixels.shape[:2]
            pixels[h // 3: h // 3 + 20, w // 3: w // 3 + 60, :3] = 0.0
            output["data"]["image/png"] = _png(pixels)
        nbt.write_nb(altered, work / f"{name}.ipynb")
    return sum(c.cell_type == "code" for c in nb.cells[: index + 1]) - 1


# ============================================================================ building the site

def _fresh_checkout(dest: Path) -> Path:
    """The files a fresh clone would have (tracked, plus new files not ignored), copied to ``dest``."""
    try:
        files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                               capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot tell which files a fresh clone has")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def _build(edition: str, tmp_path_factory) -> dict:
    _require_site_packages()
    checkout = _fresh_checkout(tmp_path_factory.mktemp("checkout"))
    out = tmp_path_factory.mktemp("site") / edition
    with nbt.offline_env(tmp_path_factory.mktemp("offline")) as network_log:
        result = site.build_site(checkout, out, edition=edition, progress=None)
        attempts = network_log.read_text().strip()
    BUILD_TIMES[edition] = result["seconds"]
    print(f"\nbuilt the {edition} edition in {result['seconds']:.1f} s")
    assert not attempts, f"the build tried to reach the network:\n{attempts}"
    result["checkout"] = checkout
    return result


@pytest.fixture(scope="module")
def self_study(tmp_path_factory):
    return _build("self-study", tmp_path_factory)


@pytest.fixture(scope="module")
def class_edition(tmp_path_factory):
    return _build("class", tmp_path_factory)


@pytest.fixture(scope="module", params=site.EDITIONS)
def built(request):
    return request.getfixturevalue("self_study" if request.param == "self-study" else "class_edition")


class _Page(HTMLParser):
    """What the checks need from one HTML page: resources, images, text (with and without code)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.resources, self.images, self.text, self.stack = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "video", "audio", "embed") and a.get("src"):
            self.resources.append(a["src"])
        if tag == "link" and a.get("href") and {"stylesheet", "preload", "modulepreload", "prefetch", "icon",
                                                 "manifest"} & set((a.get("rel") or "").split()):
            self.resources.append(a["href"])
        if tag == "img":
            self.images.append(a)
        if tag not in ("br", "img", "meta", "link", "input", "hr", "source", "wbr"):
            self.stack.append(tag + ("#math" if "math" in (a.get("class") or "").split() else ""))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop().split("#")[0] == tag:
                break

    def handle_data(self, data):
        """Text as read, without scripts, styles and the TeX source of maths (the sources' $...$ are dropped too),
        with Sphinx's typographic quotes made straight again."""
        if not any(t in ("script", "style") or t.endswith("#math") for t in self.stack):
            self.text.append(data.translate(STRAIGHT))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_build_has_no_warnings(built):
    assert built["warnings"] == [], "\n".join(built["warnings"])


def test_every_chapter_and_page_is_there(built):
    out = built["out"]
    expected = ["index", "glossary", "references", "students", *ASSIGNMENTS]
    if built["edition"] == "self-study":
        expected.append("replication")
    missing = [p for p in expected if not (out / f"{p}.html").is_file()]
    assert not missing, missing
    index = (out / "index.html").read_text(encoding="utf-8")
    for a in ASSIGNMENTS:
        assert f'href="{a}.html"' in index, f"the home page does not link {a}"
    assert (out / "_static" / "mathjax" / "tex-svg.js").is_file()
    assert (out / "EDITION").read_text().strip() == built["edition"]


def test_no_resource_outside_the_site_and_every_image_has_alt_text(built):
    out = built["out"]
    pages = sorted(out.glob("*.html"))
    n_images = 0
    for path in pages:
        page = _parse(path)
        outside = [r for r in page.resources if re.match(r"^([a-z]+:)?//", r, re.I) and not r.startswith("data:")]
        assert not outside, f"{path.name} loads resources from outside the site: {outside}"
        for r in page.resources:
            target = (path.parent / html_lib.unescape(r).split("?")[0].split("#")[0]).resolve()
            assert r.startswith("data:") or target.is_file(), f"{path.name}: {r} is not in the site"
        for img in page.images:
            n_images += 1
            alt = (img.get("alt") or "").strip()
            assert len(alt) >= 20 and not re.search(r"\.(png|jpe?g|svg|gif)$", alt), (
                f"{path.name}: image {img.get('src')} has no text alternative saying what it shows ({alt!r})")
    if built["edition"] == "self-study":
        executed_figures = sum("image/png" in o.get("data", {}) for a in ASSIGNMENTS
                               for c in nbt.read_nb(EXECUTED / f"{a}.ipynb").cells if c.cell_type == "code"
                               for o in c.outputs)
        assert n_images >= executed_figures + 4, (n_images, executed_figures)
    css = "\n".join(p.read_text(errors="replace") for p in (out / "_static").rglob("*.css"))
    remote = sorted(set(re.findall(r"url\(\s*['\"]?((?:https?:)?//[^)'\"]+)", css)))
    assert not remote, f"style sheets load from outside the site: {remote}"


def _secret_lines() -> dict[str, set]:
    """Significant lines of worked solutions and hidden tests that no released notebook contains
    (a line that a released notebook holds, e.g. an earlier exercise's answer given as code a later
    notebook builds on, is what students get anyway)."""
    released = set()
    for a in ASSIGNMENTS:
        for c in nbt.read_nb(nbt.RELEASE_DIR / a / f"{a}.ipynb").cells:
            released.update(ln.strip() for ln in c.source.split("\n"))
    secret: dict[str, set] = {"solution": set(), "hidden": set()}
    for a in ASSIGNMENTS:
        for kind, lines in nbt.hidden_and_solution_lines(nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{a}.ipynb"), a).items():
            secret[kind] |= {ln for ln in lines if ln not in released}
    return secret


def _site_text(out: Path) -> dict[str, tuple[set, str]]:
    """Every text file of a built site: its stripped lines and its whitespace-normalised text
    (HTML as the reader sees it, notebooks and the search index as stored)."""
    texts = {}
    for path in sorted(out.rglob("*")):
        if not path.is_file() or "mathjax" in path.parts:
            continue
        if path.suffix == ".html":
            raw = "".join(_parse(path).text)
        elif path.suffix in (".ipynb", ".js", ".txt", ".md", ".json"):
            raw = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".ipynb":
                raw = "\n".join(c.source for c in nbformat.reads(raw, as_version=4).cells)
        else:
            continue
        texts[str(path.relative_to(out))] = ({ln.strip() for ln in raw.split("\n")}, " ".join(raw.split()))
    return texts


def _markdown_answers() -> list[str]:
    """Sentences of the model answers (markdown solution cells), at least 40 characters, plain text."""
    sentences = []
    for a in ASSIGNMENTS:
        for c in nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{a}.ipynb").cells:
            if c.cell_type == "markdown" and nbt.nbgrader_meta(c).get("solution"):
                plain = re.sub(r"\$[^$]*\$|[*_`]", " ", c.source.translate(STRAIGHT))
                for s in re.split(r"(?<=[.;:?!])\s+", " ".join(plain.split())):
                    words = re.findall(r"[A-Za-z][A-Za-z'-]{2,}", s)
                    if len(s) >= 40 and len(words) >= 6:
                        sentences.append(" ".join(words))
    return sentences


def _leaks(out: Path, secret: dict[str, set]) -> list[str]:
    answers = _markdown_answers()
    found = []
    for name, (lines, flat) in _site_text(out).items():
        for kind, wanted in secret.items():
            found += [f"{name}: {kind} line {ln!r}" for ln in sorted(wanted & lines)]
        words = " ".join(re.findall(r"[A-Za-z][A-Za-z'-]{2,}", flat))
        found += [f"{name}: model answer {s[:60]!r}" for s in answers if s in words]
    return found


def test_class_edition_holds_no_worked_solution_or_hidden_test(class_edition, self_study):
    secret = _secret_lines()
    assert len(secret["solution"]) > 100, {k: len(v) for k, v in secret.items()}
    leaks = _leaks(class_edition["out"], secret)
    assert not leaks, f"{len(leaks)} leaks in the class edition, e.g.\n" + "\n".join(leaks[:20])
    # the control: the self-study edition shows the worked solutions, so the same check finds them there
    # (and no hidden test: a line of a worked solution that a hidden test repeats is shown with the solution)
    found = _leaks(self_study["out"], {"solution": secret["solution"], "hidden": secret["hidden"] - secret["solution"]})
    shown = [x for x in found if " solution line " in x or "model answer" in x]
    assert len(shown) > 100, f"the leak check found only {len(shown)} solution lines in the self-study edition"
    hidden_shown = [x for x in found if " hidden line " in x]
    assert not hidden_shown, hidden_shown[:5]


def test_every_worked_solution_is_folded_under_its_exercise(self_study):
    """Each solution cell of solutions/ is inside a <details> whose summary says "Show solution",
    each model answer inside one that says "Show the model answer"; the first thing of each is hidden."""
    for a in ASSIGNMENTS:
        page = (self_study["out"] / f"{a}.html").read_text(encoding="utf-8")
        blocks = re.findall(r"<details(.*?)</details>", page, re.S)
        text_blocks = [" ".join("".join(_text_of(b)).split()) for b in blocks]
        nb = nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{a}.ipynb")
        n_code = n_md = 0
        for cell in nb.cells:
            if not nbt.nbgrader_meta(cell).get("solution"):
                continue
            if cell.cell_type == "code":
                n_code += 1
                body = nbt.strip_solution_markers(site.strip_region(cell.source, nbt.BEGIN_HIDDEN, nbt.END_HIDDEN))
                line = next(ln.strip() for ln in body.split("\n") if len(ln.strip()) > 10)
                assert any(line in t and site.SHOW_SOLUTION in t for t in text_blocks), (
                    f"{a}: the worked solution starting {line!r} is not folded under '{site.SHOW_SOLUTION}'")
            else:
                n_md += 1
                words = " ".join(re.findall(r"[A-Za-z][A-Za-z'-]{2,}", re.sub(r"\$[^$]*\$|[*_`]", " ", cell.source.translate(STRAIGHT))))
                first = " ".join(words.split()[:8])
                assert any(first in " ".join(re.findall(r"[A-Za-z][A-Za-z'-]{2,}", t)) and site.SHOW_ANSWER in t
                           for t in text_blocks), f"{a}: the model answer starting {first!r} is not folded"
        assert len(blocks) == n_code + n_md, f"{a}: {len(blocks)} toggles for {n_code} solutions and {n_md} answers"
        assert n_code >= 1


def _text_of(fragment: str) -> list[str]:
    page = _Page()
    page.feed(fragment)
    return page.text


def test_glossary_terms_have_anchors_and_chapters_link_their_first_use(built):
    """One anchor per term of docs/GLOSSARY.md; each chapter links terms (each once) to anchors that exist; no
    link anywhere reads as a bare number ("11", "02")."""
    out = built["out"]
    entries = site._glossary_entries((ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8"))
    glossary = (out / "glossary.html").read_text(encoding="utf-8")
    anchors = re.findall(r'<dt id="(term-[^"]+)"', glossary)
    assert len(anchors) == len(set(anchors)) == len(entries), (len(anchors), len(entries))
    for a in ASSIGNMENTS:
        page = (out / f"{a}.html").read_text(encoding="utf-8")
        links = re.findall(r'href="glossary\.html#(term-[^"]+)"', page)
        assert len(links) >= 3, f"{a} links only {links} to the glossary"
        assert len(set(links)) == len(links) and set(links) <= set(anchors), (a, links)
    bare = {p.name: re.findall(r"<a [^>]*>\s*(\d+)\s*</a>", p.read_text(encoding="utf-8")) for p in out.glob("*.html")}
    assert not any(bare.values()), {k: v for k, v in bare.items() if v}


def test_licence_citation_version_and_dois_are_on_the_site(built):
    """The home page states the licences and the citation (from CITATION.cff, with BibTeX); every page's footer
    gives the version and the build date; every DOI and arXiv id in the text is a link; the class edition has
    no JupyterHub link unless the instructor set one."""
    from helpers import __version__

    out = built["out"]
    index = (out / "index.html").read_text(encoding="utf-8")
    text = " ".join("".join(_parse(out / "index.html").text).split())
    assert "CC BY 4.0" in text and "MIT License" in text and "@software{weat_course" in text, text[-1500:]
    assert 'href="https://doi.org/10.1126/science.aal4230"' in index
    for path in out.glob("*.html"):
        page = path.read_text(encoding="utf-8")
        assert re.search(rf"Version {re.escape(__version__)} of the course, {built['edition']} edition, built on "
                         r"\d{4}-\d\d-\d\d", page), f"{path.name}: no version and build date in the footer"
        text = "".join(_parse(path).text)
        n_ids = len(re.findall(r"\b(?:doi|arXiv):\S", text))
        n_links = len(re.findall(r'<a [^>]*href="https://(?:doi\.org|arxiv\.org/abs)/', page))
        assert n_links >= n_ids, f"{path.name}: {n_ids} DOIs or arXiv ids, {n_links} links"
        assert "course-hub" not in page
    assert len(re.findall(r'href="https://doi\.org/', (out / "references.html").read_text())) >= 5


def test_the_download_button_gives_the_notebook_as_stored(built):
    """Each chapter's .ipynb download is the executed notebook (self-study) or the class notebook, without
    the site's markup (the folding tags, the model-answer directive)."""
    for a in ASSIGNMENTS:
        path = built["out"] / "_sources" / f"{a}.ipynb"
        page = (built["out"] / f"{a}.html").read_text(encoding="utf-8")
        assert f"_sources/{a}.ipynb" in page, f"{a}: no download link"
        got = nbt.read_nb(path)
        if built["edition"] == "self-study":
            want = nbt.read_nb(EXECUTED / f"{a}.ipynb")
        else:
            want = site.class_notebook(nbt.read_nb(nbt.RELEASE_DIR / a / f"{a}.ipynb"))
        assert [(c.cell_type, c.source) for c in got.cells] == [(c.cell_type, c.source) for c in want.cells], a
        assert "course-answer" not in path.read_text() and "hide-cell" not in path.read_text()


def test_replication_page_has_table1_and_the_figures(self_study):
    page = (self_study["out"] / "replication.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr[^>]*>\s*<td[^>]*><p>(\d+)</p></td>", page)
    assert rows[:10] == [str(k) for k in range(1, 11)], rows
    for stem in ("table1_forest", "wefat_occupations", "wefat_names", "weat1_null"):
        assert re.search(rf'<img[^>]+src="_images/{stem}\.png"', page), stem


def test_class_edition_has_no_outputs_and_no_results(class_edition):
    out = class_edition["out"]
    assert not (out / "replication.html").exists()
    for a in ASSIGNMENTS:
        page = (out / f"{a}.html").read_text(encoding="utf-8")
        assert "cell_output" not in page, f"{a}: the class edition shows an output"
        assert "<img" not in page.split('<article', 1)[-1], f"{a}: the class edition shows a figure"
        assert "course-answer" not in page and site.SHOW_SOLUTION not in page


# ============================================================================ in Chromium

@pytest.fixture(scope="module")
def browser():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as b:
        yield b


def _context(browser, root: Path, *, without: tuple[str, ...] = (), **kw):
    """A browser context that records every request, and refuses (and records) any outside ``root``.

    ``without``: file names of the site (e.g. ``"course.js"``) the context refuses silently, for the
    controls that show a feature fails without the file that provides it."""
    context = browser.new_context(**kw)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    context.outside = []
    inside = root.resolve().as_uri() + "/"

    def _route(route):
        url = route.request.url
        if url.startswith(inside) and url.split("?")[0].rsplit("/", 1)[-1] in without:
            route.abort()
        elif url.startswith(inside):
            route.continue_()
        else:
            context.outside.append(url)
            route.abort()

    context.route("**/*", _route)
    context.on("request", lambda r: None if r.url.startswith((inside, "data:", "blob:", "about:"))
               or r.url in context.outside else context.outside.append(r.url))
    return context


CHECK_PAGE = r"""() => {
  const article = document.querySelector('article') || document.body;
  const clone = document.body.cloneNode(true);  // the whole page: the navigation's titles hold maths too
  clone.querySelectorAll('pre, code, script, style, mjx-container, .highlight, .cell_output').forEach(e => e.remove());
  const prose = clone.textContent;
  const raw = (prose.match(/\$[^$\s][^$]*\$|\\\(|\\\[/g) || []);
  const math = [...document.querySelectorAll('.math')];
  const untypeset = math.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 60));
  const imgs = [...document.querySelectorAll('img')];
  return {title: document.title, text: article.innerText.length, raw: raw.slice(0, 5), math: math.length,
          untypeset: untypeset.slice(0, 5), mjx: document.querySelectorAll('mjx-container svg').length,
          images: imgs.length, broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
          noalt: imgs.filter(i => !(i.alt || '').trim()).map(i => i.src),
          details: document.querySelectorAll('article details').length,
          tabbable_math: document.querySelectorAll('mjx-container[tabindex]:not([tabindex="-1"])').length,
          code: [...document.querySelectorAll('article div.highlight > pre')].filter(e => !e.closest('.cell_output')).length,
          copy: document.querySelectorAll('article div.highlight > button.course-copy').length,
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          table_band: Math.max(0, ...[...document.querySelectorAll('article table')].filter(t => t.rows.length)
            .map(t => t.getBoundingClientRect().width - t.rows[0].getBoundingClientRect().width)),
          toc_cut: Math.max(0, ...[...document.querySelectorAll('.bd-sidebar-secondary *')].filter(e => e.offsetWidth)
            .map(e => e.getBoundingClientRect().right - window.innerWidth))};
}"""


def _open(page, path: Path) -> dict:
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.evaluate("() => document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; })")
    page.wait_for_function("() => [...document.querySelectorAll('img')].every(i => i.complete)")
    if page.evaluate("() => !!document.querySelector('.math')"):
        # MathJax (the site's own) has loaded and finished typesetting: its startup promise resolved
        try:
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=PAGE_TIMEOUT_MS // 3)
        except Exception as exc:  # noqa: BLE001 - Playwright's TimeoutError
            raise AssertionError(f"{path.name} has maths but MathJax did not start (is it loaded on this page?)") from exc
        page.evaluate("() => MathJax.startup.promise.then(() => true)")
    return page.evaluate(CHECK_PAGE)


def _check_toggles(page, name: str) -> int:
    toggles = page.locator("article details")
    for k in range(toggles.count()):
        d = toggles.nth(k)
        summary = d.locator("summary").first
        body = d.locator(":scope > :not(summary)").first
        assert d.evaluate("e => !e.open"), f"{name}: toggle {k} is open before it is clicked"
        assert not body.is_visible(), f"{name}: toggle {k} shows its content while closed"
        summary.scroll_into_view_if_needed()
        summary.click()
        assert d.evaluate("e => e.open") and body.is_visible(), f"{name}: toggle {k} does not open"
        summary.click()
        assert d.evaluate("e => !e.open") and not body.is_visible(), f"{name}: toggle {k} does not close"
    return toggles.count()


#: axe-core's impacts the course must not have (its others: moderate, minor).
AXE_FAIL = ("serious", "critical")
#: Violations that come from the theme and that the course cannot fix, by axe rule: (a CSS selector part of the
#: element, the upstream issue). Empty now: the one found (the theme's search buttons, named "Search" while
#: they show "Search Ctrl+K", label-content-name-mismatch) is fixed in course.js.
THEME_VIOLATIONS: dict[str, tuple[str, str]] = {}
AXE_RUN = """() => axe.run(document, {resultTypes: ['violations'], preload: false}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(' '))})))"""


def _axe_source() -> str | None:
    """axe-core's browser script (``npm install -g axe-core``, as ``.ci/run`` does; or ``COURSE_TEST_AXE``)."""
    candidates = [os.environ.get("COURSE_TEST_AXE", "")]
    try:
        npm_root = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True, timeout=30).stdout.strip()
        candidates.append(str(Path(npm_root) / "axe-core" / "axe.min.js"))
    except (OSError, subprocess.SubprocessError):
        pass
    candidates.append(str(ROOT / "node_modules" / "axe-core" / "axe.min.js"))
    for c in filter(None, candidates):
        if Path(c).is_file():
            return Path(c).read_text(encoding="utf-8")
    return None


def _axe_violations(page, name: str, axe: str) -> list[str]:
    page.add_script_tag(content=axe)  # inline: no request
    found = []
    for v in page.evaluate(AXE_RUN):
        known = THEME_VIOLATIONS.get(v["id"])
        targets = [t for t in v["targets"] if not (known and known[0] in t)]
        if v["impact"] in AXE_FAIL and targets:
            found.append(f"{name}: {v['id']} ({v['impact']}): {v['help']}: {targets[:3]}")
    return found


@pytest.mark.parametrize("edition", site.EDITIONS)
def test_every_page_in_chromium(edition, browser, request):
    """Every page of the edition in Chromium (see the module's docstring), no error in the console, and axe-core
    finding no serious or critical violation the course can fix (THEME_VIOLATIONS lists the theme's, with the
    upstream issue). Without axe-core the rest is checked and the test then skips, or fails where the browser
    tests are required (``COURSE_TEST_BROWSER_REQUIRED=1``, CI)."""
    from browser_tools import skip_or_fail

    axe = _axe_source()
    if axe is None and os.environ.get("COURSE_TEST_BROWSER_REQUIRED") == "1":
        skip_or_fail("axe-core is not installed: `npm install -g axe-core@4.14.1` (.ci/run does)")
    built = request.getfixturevalue("self_study" if edition == "self-study" else "class_edition")
    out = built["out"]
    context = _context(browser, out, viewport={"width": 1280, "height": 900})
    # the recorder can fail: a page that asks for something outside the site is caught
    probe = out / "probe.html"
    probe.write_text('<html><body><img src="https://cdn.invalid/x.png" alt="probe"></body></html>')
    page = context.new_page()
    page.goto(probe.as_uri(), wait_until="load")
    assert any("cdn.invalid" in u for u in context.outside), f"the request recorder missed a request: {context.outside}"
    context.outside.clear()
    probe.unlink()
    errors = []  # what the pages log (axe-core runs without fetching the style sheets: preload false)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pages = ["index", *ASSIGNMENTS, "glossary", "references", "students"] + (
        ["replication"] if edition == "self-study" else [])
    start, n_toggles, summary, violations = time.perf_counter(), 0, [], []
    for name in pages:
        r = _open(page, out / f"{name}.html")
        summary.append(f"{name}: {r['math']} maths, {r['images']} images, {r['details']} toggles")
        assert r["text"] > 500, f"{name} rendered almost nothing ({r['text']} characters)"
        assert not r["raw"], f"{name}: raw maths left in the text: {r['raw']}"
        assert not r["untypeset"], f"{name}: maths MathJax did not typeset: {r['untypeset']}"
        assert r["math"] == 0 or r["mjx"] > 0, f"{name}: {r['math']} maths but no MathJax SVG"
        assert not r["broken"], f"{name}: images that did not load: {r['broken']}"
        assert not r["noalt"], f"{name}: images without alt text: {r['noalt']}"
        assert not r["tabbable_math"], f"{name}: {r['tabbable_math']} formulas are Tab stops"
        assert r["toc_cut"] <= 1, f"{name}: the contents column runs {r['toc_cut']:.0f} px off the screen"
        assert r["copy"] == r["code"], f"{name}: {r['copy']} copy buttons for {r['code']} code blocks"
        assert not errors, f"{name}: errors in the browser's console: {errors[:5]}"
        if axe:
            violations += _axe_violations(page, name, axe)
            errors.clear()
        if edition == "self-study" and name in ASSIGNMENTS:
            assert r["details"] >= 1 and r["images"] >= 1, r
            n_toggles += _check_toggles(page, name)
        if name in ("index", ASSIGNMENTS[0]):
            page.screenshot(path=str(ARTIFACTS / f"{edition}-{name}.png"))
    assert not context.outside, f"the {edition} edition requested addresses outside the site: {context.outside}"
    # the copy button copies the block's code (the clipboard calls recorded)
    _open(page, out / f"{ASSIGNMENTS[0]}.html")
    page.evaluate("""() => { window.copied = []; const rec = t => { window.copied.push(t); return Promise.resolve(); };
      if (navigator.clipboard) { navigator.clipboard.writeText = rec; }
      document.execCommand = () => { window.copied.push(document.activeElement.value); return true; }; }""")
    button = page.locator("article div.highlight > button.course-copy").locator("visible=true").first
    button.scroll_into_view_if_needed()
    button.click()
    page.wait_for_function("() => window.copied.length > 0")
    copied = page.evaluate("() => window.copied[0]")
    first_code = button.locator("xpath=following-sibling::pre[1]").evaluate("e => e.innerText")
    assert copied == first_code.rstrip("\n") and button.inner_text() == "Copied", (copied[:80], first_code[:80])
    context.close()
    print(f"\n{edition}: {len(pages)} pages, {n_toggles} toggles opened and closed in "
          f"{time.perf_counter() - start:.0f} s\n  " + "\n  ".join(summary))
    if edition == "self-study":
        assert n_toggles >= len(ASSIGNMENTS) * 2
    assert not violations, f"axe-core: {len(violations)} serious or critical violations:\n" + "\n".join(violations)
    if axe is None:
        skip_or_fail("every other check passed; axe-core is not installed: `npm install -g axe-core@4.14.1`")


def test_pages_fit_a_phone_screen(self_study, browser):
    out = self_study["out"]
    context = _context(browser, out, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                       is_mobile=True, has_touch=True)
    page = context.new_page()
    wide = []
    for name in ["index", *ASSIGNMENTS, "replication", "glossary", "references"]:
        r = _open(page, out / f"{name}.html")
        if r["overflow"] > 2:
            wide.append(f"{name} (+{r['overflow']} px)")
        if r["table_band"] > 2:
            wide.append(f"{name}: a table {r['table_band']:.0f} px wider than its rows (an empty band)")
        if name in ("index", "06_table1", "replication"):
            page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"))
    assert not context.outside, context.outside
    context.close()
    assert not wide, f"pages wider than a 390 px phone screen: {wide}"


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def _tap_sidebar_buttons(page, path: Path) -> dict:
    """Open ``path``, tap the visible ☰ and then the visible contents button, as a reader on a phone does;
    what each tap showed: the links visible in the chapter menu and in the page contents."""
    _open(page, path)
    seen = {}
    for side, dialog in (("primary", "#pst-primary-sidebar-modal"), ("secondary", "#pst-secondary-sidebar-modal")):
        button = page.locator(f".{side}-toggle").locator("visible=true")
        assert button.count() == 1, f"{path.name}: {button.count()} visible {side} toggles at phone width"
        button.first.tap()
        page.wait_for_timeout(300)
        links = page.locator(f"{dialog}[open] a").locator("visible=true")
        seen[side] = links.evaluate_all("els => els.map(a => [a.getAttribute('href'), a.innerText.replace(/\\s+/g, ' ')])")
        if seen[side]:
            page.keyboard.press("Escape")
            page.locator(f"{dialog}[open]").wait_for(state="detached")
    return seen


def test_the_menu_and_the_page_contents_open_on_a_phone(self_study, browser):
    """At 390 px, tapping ☰ shows the chapter list and tapping the contents button shows the page's sections
    (the themes wire a hidden button, pydata-sphinx-theme#2451 and sphinx-book-theme#988; ``course.js``
    passes the visible buttons' taps on). The control: the same taps with ``course.js`` refused show nothing."""
    out, chapter = self_study["out"], ASSIGNMENTS[0]
    context = _context(browser, out, **PHONE)
    page = context.new_page()
    seen = _tap_sidebar_buttons(page, out / f"{chapter}.html")
    nb = nbt.read_nb(EXECUTED / f"{chapter}.ipynb")
    first_section = next(re.sub(r"[`*$]", "", ln[3:]).strip() for c in nb.cells if c.cell_type == "markdown"
                         for ln in c.source.splitlines() if ln.startswith("## "))
    hrefs = {h.split("#")[0] or f"{chapter}.html" for h, _ in seen["primary"]}  # the page itself: "#"
    assert {f"{a}.html" for a in ASSIGNMENTS} <= hrefs, f"the chapter menu shows {sorted(hrefs)}"
    assert any(first_section[:20] in t for _, t in seen["secondary"]), (first_section, seen["secondary"])
    page.screenshot(path=str(ARTIFACTS / "phone-menu.png"))
    assert not context.outside, context.outside
    context.close()
    control = _context(browser, out, without=("course.js",), **PHONE)
    broken = _tap_sidebar_buttons(control.new_page(), out / f"{chapter}.html")
    control.close()
    assert broken == {"primary": [], "secondary": []}, f"the taps worked without course.js: {broken}"


def test_the_menu_button_folds_the_sidebar_on_a_wide_screen(class_edition, browser):
    """At 1280 px the ☰ of the article's header hides the chapter list and shows it again."""
    out = class_edition["out"]
    context = _context(browser, out, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    _open(page, out / f"{ASSIGNMENTS[0]}.html")
    sidebar = page.locator("#pst-primary-sidebar")
    assert sidebar.is_visible()
    page.locator(".primary-toggle").locator("visible=true").first.click()
    page.wait_for_function("() => getComputedStyle(document.querySelector('#pst-primary-sidebar')).visibility "
                           "=== 'hidden'")
    page.locator(".primary-toggle").locator("visible=true").first.click()
    page.wait_for_function("() => getComputedStyle(document.querySelector('#pst-primary-sidebar')).visibility "
                           "=== 'visible'")
    assert not context.outside, context.outside
    context.close()


#: Tab presses a keyboard user needs at most from the top of the home page to chapter 01 (Enter there), and
#: from the top of chapter 01 to its first "Show solution": the sidebar's links, the article's buttons, the links
#: and the code blocks' copy buttons before the first exercise (formulas are no Tab stops; measured 5 and 50 when
#: written, 48 from the top of the chapter before formulas left the Tab order and before the copy buttons).
TABS_TO_CHAPTER, TABS_TO_SOLUTION = 10, 60

FOCUS = """() => { const e = document.activeElement; const s = getComputedStyle(e);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || (s.boxShadow && s.boxShadow !== 'none');
  return {tag: e.tagName, text: (e.innerText || e.getAttribute('aria-label') || e.title || '').trim().slice(0, 40),
          href: e.getAttribute('href') || '', summary: e.tagName === 'SUMMARY', ring: ring,
          math: !!e.closest('mjx-container')}; }"""


def _tab_until(page, done, limit: int, seen: list) -> int:
    """Press Tab until ``done(focused)``; the presses it took (a failure after ``limit``). Each focused element
    is appended to ``seen``."""
    for k in range(1, limit + 1):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS)
        seen.append(focused)
        if done(focused):
            return k
    raise AssertionError(f"not reached in {limit} Tab presses; focused: {[f['text'] or f['tag'] for f in seen[-limit:]]}")


def test_keyboard_walk_to_the_first_solution(self_study, browser):
    """Keyboard only: from the home page to chapter 01 and on to its first "Show solution", in at most
    TABS_TO_CHAPTER + TABS_TO_SOLUTION presses, every focused control showing a focus ring and no formula
    taking a Tab stop. Enter opens the solution. The control: with MathJax's stored menu setting
    "Include in Tab Order" on (what the site's configuration turns off), formulas are Tab stops again."""
    out, chapter = self_study["out"], ASSIGNMENTS[0]
    context = _context(browser, out, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    _open(page, out / "index.html")
    seen: list = []
    to_chapter = _tab_until(page, lambda f: f["href"].split("#")[0] == f"{chapter}.html", TABS_TO_CHAPTER, seen)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{chapter}.html*")
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise.then(() => true)")
    to_solution = _tab_until(page, lambda f: f["summary"] and "Show solution" in f["text"], TABS_TO_SOLUTION, seen)
    print(f"\nkeyboard: {to_chapter} Tab presses to {chapter}, {to_solution} more to its first 'Show solution'")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.parentElement.open"), "Enter did not open the solution"
    page.screenshot(path=str(ARTIFACTS / "keyboard-solution.png"))
    no_ring = [f"{f['tag']} {f['text']!r}" for f in seen if not f["ring"]]
    assert not no_ring, f"controls without a visible focus indicator: {no_ring}"
    assert not [f for f in seen if f["math"]], "a formula took a Tab stop"
    assert not context.outside, context.outside
    context.close()
    control = _context(browser, out, viewport={"width": 1280, "height": 900})
    control.add_init_script('localStorage.setItem("MathJax-Menu-Settings", JSON.stringify({inTabOrder: true}))')
    cpage = control.new_page()
    r = _open(cpage, out / f"{chapter}.html")
    control.close()
    assert r["tabbable_math"] > 10, f"the control found {r['tabbable_math']} tabbable formulas"


LUMINANCE = """el => { const c = getComputedStyle(el).color.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => v / 255)
  .map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }"""


def _print_chapter(browser, out: Path, chapter: str, without=()) -> tuple[str, dict]:
    """Chapter ``chapter`` printed to PDF from a page in dark mode: the PDF's text, and the relative luminance
    of the body text and of a formula under print media."""
    import io

    pypdf = pytest.importorskip("pypdf", reason="pypdf is pinned in requirements-site.txt")
    context = _context(browser, out, without=without, viewport={"width": 1280, "height": 900}, color_scheme="dark")
    context.add_init_script('localStorage.setItem("mode", "dark"); localStorage.setItem("theme", "dark");')
    page = context.new_page()
    _open(page, out / f"{chapter}.html")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    page.emulate_media(media="print")
    colours = {"text": page.locator("article p").first.evaluate(LUMINANCE),
               "maths": page.locator("article mjx-container").first.evaluate(LUMINANCE)}
    pdf = page.pdf(format="A4", print_background=True)
    assert not context.outside, context.outside
    context.close()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    return text, colours


def test_a_chapter_prints_light_with_its_solutions_open_and_code_wrapped(self_study, browser):
    """Printed from dark mode, chapter 01's PDF holds its first worked solution's code (whole: long lines wrap)
    and no "Show solution" label; body text and formulas print dark. The control: without course.css and
    course.js the solution is not in the PDF and the text prints light."""
    out, chapter = self_study["out"], ASSIGNMENTS[0]
    cell = next(c for c in nbt.read_nb(nbt.SOLUTIONS_DIR / chapter / f"{chapter}.ipynb").cells
                if c.cell_type == "code" and nbt.nbgrader_meta(c).get("solution"))
    body = nbt.strip_solution_markers(site.strip_region(cell.source, nbt.BEGIN_HIDDEN, nbt.END_HIDDEN))
    lines = [ln.strip() for ln in body.split("\n") if len(ln.strip()) > 10]
    longest = max(lines, key=len)

    def squeeze(t):
        return re.sub(r"\s+", "", t)

    text, colours = _print_chapter(browser, out, chapter)
    assert squeeze(lines[0]) in squeeze(text) and squeeze(longest) in squeeze(text), (lines[0], longest)
    assert site.SHOW_SOLUTION not in text
    assert colours["text"] < 0.05 and colours["maths"] < 0.05, colours  # near black (white is 1)
    text, colours = _print_chapter(browser, out, chapter, without=("course.css", "course.js"))
    assert squeeze(lines[0]) not in squeeze(text) and colours["text"] > 0.5, colours


def test_a_chapter_reads_without_javascript(self_study, browser):
    out = self_study["out"]
    context = _context(browser, out, java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto((out / f"{ASSIGNMENTS[0]}.html").resolve().as_uri(), wait_until="load")
    article = page.locator("article")
    assert len(article.inner_text()) > 2000
    assert page.locator("article img").first.is_visible()
    n = _check_toggles(page, f"{ASSIGNMENTS[0]} without JavaScript")
    assert n >= 2
    page.screenshot(path=str(ARTIFACTS / "no-javascript.png"))
    assert not context.outside, context.outside
    context.close()


def test_report_build_times(self_study, class_edition):
    """Not a check: prints the measured build times (also in the report)."""
    print("\n" + json.dumps({k: round(v, 1) for k, v in BUILD_TIMES.items()}))
    assert set(BUILD_TIMES) == set(site.EDITIONS)
