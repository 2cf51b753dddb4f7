"""The feedback pages as nbgrader writes them, readable offline and on a narrow window.

nbgrader's ``generate_feedback`` renders each graded notebook with its ``feedback`` template, which
loads MathJax 2 from a CDN (nbconvert's ``mathjax`` macro): without network, every formula of the
page stays TeX source. And the page shows outputs, the checks' messages and hints among them, in
``<pre>`` blocks that never wrap: a long hint runs off the right edge of the page.

:class:`FeedbackExporter` (``c.GenerateFeedback.exporter_class`` in ``nbgrader_config.py``) is
nbconvert's ``HTMLExporter`` with nbgrader's feedback template, changed in two places only:

* the template ``course_feedback`` (``helpers/grading/templates/course_feedback/``; its base is nbgrader's
  ``feedback``) replaces the ``mathjax`` macro: MathJax 3 (``tex-svg-full.js``: SVG output, so no
  web fonts, and every TeX extension, so nothing is loaded on demand) is written inside the page
  from the ``django-static-mathjax`` package (``requirements.txt``; the website uses the same copy),
  or from ``COURSE_MATHJAX_DIR``. It makes each page about 2.3 MB larger. MathJax skips ``<pre>``
  and ``<code>``, so it never typesets outputs or the students' own text, which the feedback shows
  as code (``helpers.grading.rendering.as_text``); only the course's markdown and graders' comments are typeset;
* :data:`FEEDBACK_CSS` is added after nbconvert's style sheet: outputs and code wrap their long lines;
* an answer a person has not graded yet (its grade ``needs_manual_grade``: a reflection, or a flagged cell) reads
  "awaiting grading" where nbgrader's page gives it "Score: 0.0" (``course_awaiting`` in the cell's metadata);
* the page's head carries the fingerprint of the grades it shows (:func:`grades_fingerprint`, read back by
  :func:`page_grades`), by which an export finds the pages the gradebook has outdated, and a late notebook's
  score is followed by a sentence saying how late it was and what the late penalty took off.

Three things make a page cheaper to write without changing a byte of it (``tests/test_feedback_page.py``
compares the pages): the templates Jinja compiles are kept for the next page of the process (nbconvert
makes a new Jinja environment for every page); MathJax is written in after nbconvert's last pass over the
page's HTML (BeautifulSoup, which parses the whole page and writes it again), which otherwise read and wrote
its 2.3 MB again; and so is each code cell's highlighted HTML (most of a page's tags), as that pass writes it,
kept for the next page that shows the same cell (most cells are the course's, the same for every student).
BENCHMARKS.md has the measurements.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path

import jinja2
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.highlight import Highlight2HTML

from ..mathjax import MathJaxMissing, mathjax_dir

__all__ = ["FeedbackExporter", "FEEDBACK_CSS", "TEMPLATES", "TEMPLATE_NAME", "mathjax_script", "grades_fingerprint",
           "page_grades", "late_note"]

#: The course's template folder, put in front of nbgrader's.
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The course's feedback template (it extends nbgrader's ``feedback``).
TEMPLATE_NAME = "course_feedback"
MATHJAX_FILE = "tex-svg-full.js"

#: Outputs (the checks' messages and hints, printed text, tracebacks) and code wrap instead of running off the
#: page or out of their boxes (nbgrader's answer and test boxes have no scroll bar: a long line of code ran past
#: their right edge); a wrapped line of code keeps its indentation.
FEEDBACK_CSS = """
div.output_area pre, div.output_subarea pre, div.input_area pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
}
p.late-penalty {
    color: #d2413a;
    margin: 0.3em 0 0 0;
}
"""

_GRADES_META = re.compile(r'<meta name="course-grades" content="([0-9a-f]+)">')


def grades_fingerprint(gb, notebook) -> str:
    """Digest what a feedback page shows of the gradebook.

    That is every cell's score, maximum and state, every comment, and the late penalty of ``notebook``;
    a page whose digest differs from the gradebook's is written again.

    Parameters
    ----------
    gb : nbgrader.api.Gradebook
        An open gradebook.
    notebook : nbgrader.api.SubmittedNotebook
        A submitted notebook of it.

    Returns
    -------
    str
        32 hex digits; the same grades give the same digest.
    """
    import hashlib

    grades = sorted((g.name, g.score, g.max_score, bool(g.needs_manual_grade)) for g in notebook.grades)
    comments = sorted((c.name, c.comment or "") for c in notebook.comments)
    penalty = float(notebook.late_submission_penalty or 0.0)
    text = json.dumps([grades, comments, round(penalty, 9)], default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def page_grades(path) -> str | None:
    """Read the fingerprint a feedback page carries (:func:`grades_fingerprint`).

    It is looked for in the page's first 4096 bytes.

    Parameters
    ----------
    path : path
        A feedback page.

    Returns
    -------
    str or None
        The fingerprint; None for no page, or one written without it.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    m = _GRADES_META.search(head)
    return m[1] if m else None


def late_note(score: float, penalty: float, seconds_late: float) -> str:
    """Write the sentence under a late notebook's score on its feedback page.

    The lateness is given in hours, or in minutes under an hour.

    Parameters
    ----------
    score : float
        The notebook's score before the penalty.
    penalty : float
        The points the late policy took off.
    seconds_late : float
        How late the submission was.

    Returns
    -------
    str
        E.g. ``Handed in 30 hours after the due date: the late penalty took 2.0 of your 10.0 points off.``
        (empty when it was not late).
    """
    if seconds_late <= 0:
        return ""
    hours = seconds_late / 3600
    when = f"{hours:.0f} hours" if hours >= 1 else f"{seconds_late / 60:.0f} minutes"
    return (f"Handed in {when} after the due date: the late penalty took {penalty:.1f} of your {score:.1f} "
            f"points off.")


def _mathjax_path(name: str) -> Path:
    """The file ``name`` of the installed MathJax 3 (RuntimeError, saying how to install it, if there is none)."""
    try:
        es5 = mathjax_dir("pip install django-static-mathjax==3.2.2.1 (requirements.txt pins it) in the "
                          "environment that runs nbgrader")
    except MathJaxMissing as exc:
        raise RuntimeError(f"The feedback pages carry their own MathJax (no page may load it from the web): {exc}") from None
    path = es5 / name
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: the feedback pages need the full MathJax 3 (its {name}); "
                           "pip install django-static-mathjax==3.2.2.1, or point COURSE_MATHJAX_DIR at a complete es5/ folder.")
    return path


def mathjax_script(name: str = MATHJAX_FILE) -> str:
    """Read MathJax 3's ``name`` (a file of its ``es5`` folder), made safe inside a ``<script>`` element.

    The feedback page carries MathJax inside it, so it typesets its formulas without a network.

    Parameters
    ----------
    name : str
        A combined component of MathJax 3, by default ``tex-svg-full.js``.

    Returns
    -------
    str
        The script, with ``</script`` written ``<\\/script`` and ``<!--`` written ``<\\!--`` (the same
        characters to JavaScript, in strings and regular expressions alike), so that nothing in it can
        end the element or change how the HTML parser reads it.

    Raises
    ------
    RuntimeError
        No MathJax 3 is installed (or ``COURSE_MATHJAX_DIR`` has no such file); the message says how
        to install one.
    """
    path = _mathjax_path(name)
    text = path.read_text(encoding="utf-8").replace("<!--", "<\\!--")
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


_SCRIPTS: dict = {}


def _mathjax_script_kept(name: str) -> str:
    """:func:`mathjax_script`, read again only when its file changed (each page of a run carries the same 2.3 MB)."""
    path = _mathjax_path(name)
    st = os.stat(path)
    key = (name, str(path), st.st_mtime_ns, st.st_size)
    if key not in _SCRIPTS:
        _SCRIPTS.clear()
        _SCRIPTS[key] = mathjax_script(name)
    return _SCRIPTS[key]


class _CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in this process for every exporter (nbconvert makes a new Jinja
    environment, which compiled nbconvert's and nbgrader's templates again, for each page: about a third of the
    CPU time of a feedback page of 01_cosine). A template is compiled again when its source changes (Jinja
    compares a checksum of it) and for environments that compile differently (async, extensions, syntax)."""

    def __init__(self):
        self._store: dict = {}

    @staticmethod
    def _key(bucket) -> tuple:
        env = bucket.environment
        return (bucket.key, env.is_async, tuple(sorted(env.extensions)), env.block_start_string,
                env.block_end_string, env.variable_start_string, env.variable_end_string, env.comment_start_string,
                env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks,
                env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized)

    def load_bytecode(self, bucket) -> None:
        kept = self._store.get(self._key(bucket))
        if kept is not None and kept[0] == bucket.checksum:
            bucket.code = kept[1]

    def dump_bytecode(self, bucket) -> None:
        self._store[self._key(bucket)] = (bucket.checksum, bucket.code)


_COMPILED = _CompiledTemplates()

#: highlighted code cells kept (their HTML as nbconvert's last pass writes it), by source and highlighting settings
_CODE: dict = {}
MAX_CODE_KEPT = 1024


class FeedbackExporter(HTMLExporter):
    """Write nbgrader's feedback page with MathJax inside it and outputs that wrap (module docstring).

    ``GenerateFeedback`` configures ``HTMLExporter`` (template ``feedback``, nbgrader's template
    folder); this exporter puts the course's template in front: its ``course_feedback`` template
    uses nbgrader's ``feedback`` as base, and its filter ``course_mathjax`` marks where
    :func:`mathjax_script` of a file name goes (written in by :meth:`from_notebook_node`).

    Parameters
    ----------
    *args : tuple
        As for nbconvert's ``HTMLExporter``.
    **kwargs : dict
        As for nbconvert's ``HTMLExporter``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bases = [str(TEMPLATES)] + [d for d in self.extra_template_basedirs if d != str(TEMPLATES)]
        if not any(Path(d, "feedback", "index.html.j2").is_file() for d in bases):
            import nbgrader

            bases.append(str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"))
        self.extra_template_basedirs = bases
        self.template_name = TEMPLATE_NAME
        # computed (and kept) for nbgrader's template during __init__; the folder of nbgrader's templates last, so
        # that the course's index.html.j2 can extend nbgrader's as 'feedback/index.html.j2'
        import nbgrader

        stock = str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates")
        self.template_paths = self._template_paths() + [stock]
        # What nbconvert's last pass over the page (BeautifulSoup, which parses the whole page and writes it again)
        # would only copy is kept out of it: the template writes a mark, and the page gets the text after that
        # pass. That is MathJax's 2.3 MB, and each code cell's highlighted HTML (most of a page's tags), which is
        # given here as that pass writes it (parsed and written by BeautifulSoup alone) and kept for the next page
        # with the same cell. The marks are random for each page, so a student's text cannot name one. The
        # MathJax filter takes Jinja's context, so Jinja calls it at each rendering and never folds its result
        # into the compiled template, which is kept for the next page.
        self._marked: dict = {}
        self._mark_prefix = ""
        self._highlight = None  # the highlighter nbconvert registers for the page being written
        self.register_filter("course_mathjax", jinja2.pass_context(lambda context, name=MATHJAX_FILE: self._mathjax_mark(name)))

    def register_filter(self, name, jinja_filter):
        """Register a Jinja filter as nbconvert does, but wrap the code highlighter while a page is written.

        While :meth:`from_notebook_node` writes a page, nbconvert's ``highlight_code`` filter is replaced by
        :meth:`_code_mark`, which keeps each cell's highlighted HTML out of nbconvert's last pass.

        Parameters
        ----------
        name : str
            The filter's name in the templates.
        jinja_filter : callable
            The filter.

        Returns
        -------
        object
            What nbconvert's ``register_filter`` returns.
        """
        if name == "highlight_code" and getattr(self, "_mark_prefix", "") and isinstance(jinja_filter, Highlight2HTML):
            self._highlight, jinja_filter = jinja_filter, self._code_mark
        return super().register_filter(name, jinja_filter)

    def _mark(self, text: str, element: bool = False) -> str:
        """A mark of this page that :meth:`from_notebook_node` replaces by ``text`` after nbconvert's last pass:
        plain text, or with ``element`` an HTML comment (so that the blank text around it is blank text to that pass,
        which writes it as it writes blank text beside an element)."""
        mark = f"{self._mark_prefix}{len(self._marked)}z"
        if element:
            mark = f"<!--{mark}-->"
        self._marked[mark] = text
        return mark

    def _mathjax_mark(self, name: str = MATHJAX_FILE) -> str:
        return self._mark(_mathjax_script_kept(name))  # a missing MathJax stops the page here, with how to install it

    def _code_mark(self, source, language=None, metadata=None):
        """The ``highlight_code`` filter: the cell's highlighted HTML as nbconvert's last pass writes it, behind a mark."""
        highlight = self._highlight
        # what the highlighting depends on (of the cell's metadata, nbconvert reads "magics_language" only; the rest,
        # execution times among it, differs from student to student)
        key = (source, language, highlight.pygments_lexer, str((metadata or {}).get("magics_language")),
               json.dumps(highlight.extra_formatter_options, sort_keys=True, default=str))
        kept = _CODE.get(key)
        if kept is None:
            html = highlight(source, language=language, metadata=metadata)
            core = html.rstrip()  # the blank end stays outside the mark: the pass writes it with the blank after it
            kept = (str(BeautifulSoup(core, features="html.parser")), html[len(core):])
            if len(_CODE) >= MAX_CODE_KEPT:
                _CODE.clear()
            _CODE[key] = kept
        return self._mark(kept[0], element=True) + kept[1]

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = _COMPILED
        return environment

    def from_notebook_node(self, nb, resources=None, **kw):
        """Write the feedback page of ``nb``, with MathJax and the highlighted code written in.

        nbconvert writes the page (:meth:`nbconvert.exporters.HTMLExporter.from_notebook_node`) with marks, random
        for each page, where MathJax and each code cell's highlighted HTML go; they are written in after
        nbconvert's last pass over the page.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The autograded notebook.
        resources : dict, optional
            The resources nbgrader passes.
        **kw : dict
            As for nbconvert's ``from_notebook_node``.

        Returns
        -------
        tuple
            ``(html, resources)``.

        Raises
        ------
        RuntimeError
            A mark was lost on the way (the template is to be checked), or MathJax is not installed.
        """
        self._marked, self._mark_prefix = {}, f"course-mark-{secrets.token_hex(16)}-"
        prefix = self._mark_prefix
        try:
            html, resources = super().from_notebook_node(nb, resources, **kw)
        finally:
            self._mark_prefix = ""
        found = set()

        def put_back(match):
            found.add(match.group(0))
            return self._marked[match.group(0)]

        html = re.sub(r"(?:<!--)?" + re.escape(prefix) + r"\d+z(?:-->)?", put_back, html)
        if len(found) != len(self._marked):
            raise RuntimeError(f"The feedback page lost {len(self._marked) - len(found)} of its marks (MathJax or code): "
                               f"check the template {TEMPLATES / TEMPLATE_NAME}.")
        return html, resources

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        css = resources.setdefault("inlining", {}).setdefault("css", [])
        css.append(FEEDBACK_CSS)
        info = resources.get("nbgrader")
        if isinstance(info, dict) and info.get("db_url") and info.get("student"):
            from nbgrader.api import Gradebook, MissingEntry

            with Gradebook(info["db_url"]) as gb:
                try:
                    snb = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
                except MissingEntry:
                    pass
                else:
                    info["course_grades"] = grades_fingerprint(gb, snb)
                    waiting = {g.name for g in snb.grades if g.needs_manual_grade}
                    for cell in nb.cells:
                        meta = cell.metadata.get("nbgrader")
                        if isinstance(meta, dict) and meta.get("grade_id") in waiting:
                            meta["course_awaiting"] = True
                    info["course_late"] = late_note(float(snb.score), float(snb.late_submission_penalty or 0.0),
                                                    float(snb.assignment.total_seconds_late or 0.0))
        return nb, resources
