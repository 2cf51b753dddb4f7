"""The feedback page (helpers/grading/feedback_page.py): maths without network, hint lines that wrap.

One temporary course with ``01_cosine`` and one student whose ``cosine`` calls the course's reference
(the hidden test fails, and the page shows its message and hint in a long line), graded by
``helpers.grading.grade.grade_submission`` (in the sandbox when bubblewrap is installed) with the
course's ``nbgrader_config.py``, which writes the feedback. The same page is also written by nbgrader's stock exporter, as the
control that shows each check can fail. Checked:

* no element of the page loads anything from outside it (``src``/``href`` of scripts, style
  sheets, images, frames), and MathJax 2 from the CDN is gone; the page holds MathJax 3 itself;
* in Debian's Chromium, with every request that is not the file itself refused: the formulas are
  typeset (MathJax's ``mjx-container``), no request is made, no script error, and at 800 px no
  output block and no code block is wider than its box (the stock page: its hint and a long line of the
  student's code run off the page);
* without MathJax installed, writing feedback stops with a message that says how to install it;
* pages written one after another in one process (compiled templates kept; MathJax and the highlighted code
  written in after nbconvert's last pass, the code as that pass writes it) are byte for byte the page written
  as before (the script through the template, every template compiled for the page, the whole page through
  that pass), code cells that are hard to copy exactly included; the second page compiles no template.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import nbgrader_tools as nbt
from browser_tools import chromium

A = "01_cosine"
STUDENT = "carol"
LONG_CODE = "# " + " ".join(f"note_{k}=cosine(row_{k}, column_{k})" for k in range(12))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """``{"course": html, "stock": html}``: carol's feedback page, by the course and by nbgrader's stock exporter."""
    from helpers.grading.grade import grade_submission

    root = nbt.make_course(tmp_path_factory.mktemp("feedback") / "course", [A], config=True)
    nbt.generate_release(nbt.make_api(root), A)
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(root / "solutions" / A / f"{n}.ipynb") for n in names}
    full = {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}
    reference = next(m for m in nbt.load_mutants(A) if "reference" in m["name"])
    submitted = nbt.apply_mutant(full, reference)
    answer = next(c for c in submitted[A].cells if nbt.grade_id(c) == "cosine_solution")
    answer.source += "\n" + LONG_CODE  # a line of code longer than the page is wide
    nbt.submit(root, A, STUDENT, submitted)
    report = grade_submission(root, A, STUDENT, sandbox=nbt.sandbox_available())
    assert report.success, report
    page = root / "feedback" / STUDENT / A / f"{A}.html"
    ours = root / "course.html"
    shutil.copy(page, ours)
    out = {"course": ours.read_text(encoding="utf-8"), "course_path": ours, "root": root}
    # the control: nbgrader's own exporter, on the same autograded notebook
    c = nbt.course_config(root)
    c.GenerateFeedback.exporter_class = "nbconvert.exporters.HTMLExporter"
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    api = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)
    res = api.generate_feedback(A, STUDENT, force=True)
    assert res["success"], res.get("error")
    stock = root / "stock.html"
    shutil.copy(page, stock)
    out.update(stock=stock.read_text(encoding="utf-8"), stock_path=stock)
    return out


def external_loads(html: str) -> list[str]:
    """The addresses outside the page that its elements load: ``src`` of any element, ``href`` of ``<link>``."""
    loads = re.findall(r"""<(?:script|img|iframe|audio|video|source|embed)\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)""", html, re.I)
    loads += re.findall(r"""<link\b[^>]*\bhref\s*=\s*["']?([^"'\s>]+)""", html, re.I)
    loads += re.findall(r"""@import\s+(?:url\()?["']?(https?:[^"')\s]+)""", html, re.I)
    return [u for u in loads if re.match(r"(?i)(https?:)?//", u)]


def test_the_page_loads_nothing_from_outside(pages):
    assert external_loads(pages["course"]) == []
    assert "cdnjs.cloudflare.com/ajax/libs/mathjax" not in pages["course"]
    from helpers.grading.feedback_page import mathjax_script

    assert mathjax_script() in pages["course"], "MathJax 3 is written into the page"
    # the control: nbgrader's page loads MathJax 2 from the CDN
    assert any("cdnjs.cloudflare.com/ajax/libs/mathjax" in u for u in external_loads(pages["stock"]))


def test_a_reflection_not_yet_graded_reads_awaiting_grading(pages):
    """01's reflection (2 points, graded by a person) after the autograde: "awaiting grading", in its heading and in
    the list of cells, never "Score: 0.0 / 2.0"; the notebook's total is nbgrader's, unchanged."""
    ours, stock = pages["course"], pages["stock"]
    cell = re.compile(r'<a name="case_reflection_answer"></a>\s*<div class="panel-heading">(.*?)</div>', re.S)
    heading = cell.search(ours)[1]
    assert "awaiting grading (2.0 points)" in heading and "Score:" not in heading, heading
    toc = re.search(r'<li><a href="#case_reflection_answer">[^<]*</a>([^<]*)</li>', ours)[1]
    assert toc.strip() == "(awaiting grading (2.0 points))", toc
    assert re.search(r"<h4>[^<]*\(Score: [0-9.]+ / [0-9.]+\)</h4>", ours), "the total stays as nbgrader writes it"
    # the control: nbgrader's page gives the waiting reflection a score of 0
    assert "Score: 0.0 / 2.0" in cell.search(stock)[1]
    assert "(Score: 0.0 / 2.0)" in re.search(r'<li><a href="#case_reflection_answer">[^<]*</a>([^<]*)</li>', stock)[1]


def _render(path: Path) -> dict:
    """Open ``path`` in Chromium (800 x 900) with every other request refused; what MathJax did and what overflows."""
    requests, errors = [], []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 800, "height": 900})
        page.route("**/*", lambda route: route.continue_() if route.request.url == path.as_uri()
                   else (requests.append(route.request.url), route.abort()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri(), wait_until="load")
        try:
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=10_000)
            page.evaluate("MathJax.startup.promise")
        except Exception:  # noqa: BLE001 - no MathJax on the page: reported by the counts below
            pass
        found = page.evaluate("""() => ({
            typeset: document.querySelectorAll('mjx-container').length,
            mathErrors: document.querySelectorAll('mjx-merror').length,
            wideOutputs: [...document.querySelectorAll('div.output_area pre')]
                .filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.trim().slice(0, 60)),
            wideCode: [...document.querySelectorAll('div.input_area pre')]
                .filter(p => p.scrollWidth > p.clientWidth + 1 || p.getBoundingClientRect().right >
                        p.closest('.panel-body, .inner_cell, .input_area').getBoundingClientRect().right + 1)
                .map(p => p.textContent.trim().slice(0, 60)),
        })""")
    return {**found, "requests": requests, "errors": errors}


def test_maths_typeset_and_hints_wrap_offline(pages):
    ours = _render(pages["course_path"])
    assert ours["requests"] == [] and ours["errors"] == [], ours
    # every formula of 01's markdown: at least the inline ones of the introduction, none in error
    assert ours["typeset"] >= 20 and ours["mathErrors"] == 0, ours
    assert ours["wideOutputs"] == [], f"outputs wider than the page at 800 px: {ours['wideOutputs']}"
    assert ours["wideCode"] == [], f"code wider than its box at 800 px: {ours['wideCode']}"
    stock = _render(pages["stock_path"])
    assert stock["typeset"] == 0 and any("mathjax" in u for u in stock["requests"]), stock
    assert any("Your code raised" in w or "AssertionError" in w for w in stock["wideOutputs"]), stock["wideOutputs"]
    assert stock["wideCode"], "the control: the long line of code runs out of its box on nbgrader's page"


def test_without_mathjax_the_feedback_says_how_to_install_it(monkeypatch, tmp_path):
    import importlib.util

    from helpers import mathjax
    from helpers.grading import feedback_page as feedback

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mathjax" else real(name, *a))
    monkeypatch.delenv(mathjax.MATHJAX_ENV, raising=False)
    with pytest.raises(RuntimeError, match=r"no page may load it from the web.*pip install django-static-mathjax==3\.2\.2\.1"):
        feedback.mathjax_script()
    (tmp_path / "tex-svg.js").write_text("")
    monkeypatch.setenv(mathjax.MATHJAX_ENV, str(tmp_path))  # a MathJax without the full component
    with pytest.raises(RuntimeError, match=r"tex-svg-full\.js is missing"):
        feedback.mathjax_script()


def test_pages_in_one_process_are_the_pages_written_alone(pages, monkeypatch):
    import jinja2
    from nbconvert.exporters import HTMLExporter
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from helpers.grading import feedback_page as fp

    class AsBefore(fp.FeedbackExporter):
        """The page as written before: MathJax through the template's filter, every template compiled for it."""

        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.register_filter("course_mathjax", fp.mathjax_script)

        def _create_environment(self):
            return HTMLExporter._create_environment(self)

        def from_notebook_node(self, nb, resources=None, **kw):
            return HTMLExporter.from_notebook_node(self, nb, resources, **kw)

    def page(exporter_class=None) -> str:
        c = nbt.course_config(pages["root"])
        if exporter_class is not None:
            c.GenerateFeedback.exporter_class = exporter_class
        res = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c).generate_feedback(A, STUDENT, force=True)
        assert res["success"], res.get("error")
        return (pages["root"] / "feedback" / STUDENT / A / f"{A}.html").read_text(encoding="utf-8")

    # code cells whose highlighted HTML is hard to copy exactly: markup and entities in the source, blank ends,
    # an empty cell, a cell magic, text that looks like the page's marks
    import nbformat

    path = pages["root"] / "autograded" / STUDENT / A / f"{A}.ipynb"
    nb = nbformat.read(path, as_version=4)
    for source in ["s = '<!-- -->  </pre> </div> &amp; &lt; <script>x</script>'  \t\n\n\n", "", "   \n\t",
                   "%%bash\necho 'r\u00e9sum\u00e9 \u2014 \u00a0'", "# course-mark-0z <!--course-mark-1z-->"]:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    nbformat.write(nb, path)

    compiled = []
    original = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, *a, **k: compiled.append(a[1] if len(a) > 1 else k.get("name")) or original(self, *a, **k))
    before = page(AsBefore)
    assert before.count(fp.mathjax_script()) == 1 and compiled, "the control compiles its templates and holds MathJax"
    first = page()
    compiled.clear()
    second = page()
    assert compiled == [], f"the second page compiled {compiled} again"
    assert first == before and second == before, "a page differs from the page written as before"
    assert "r\u00e9sum\u00e9" in second and "course-mark-0z" in second, "the added cells are on the page"
