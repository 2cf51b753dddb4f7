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
* :data:`FEEDBACK_CSS` is added after nbconvert's style sheet: outputs wrap their long lines.
"""
from __future__ import annotations

import re
from pathlib import Path

from nbconvert.exporters import HTMLExporter

from ..mathjax import MathJaxMissing, mathjax_dir

__all__ = ["FeedbackExporter", "FEEDBACK_CSS", "TEMPLATES", "TEMPLATE_NAME", "mathjax_script"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE_NAME = "course_feedback"
MATHJAX_FILE = "tex-svg-full.js"

# outputs (the checks' messages and hints, printed text, tracebacks) wrap instead of running off the
# page; code keeps its lines (it scrolls sideways, as in JupyterLab)
FEEDBACK_CSS = """
div.output_area pre, div.output_subarea pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
}
"""


def mathjax_script(name: str = MATHJAX_FILE) -> str:
    """The text of MathJax 3's ``name`` (a file of its ``es5`` folder), safe inside a ``<script>`` element.

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
    try:
        es5 = mathjax_dir("pip install django-static-mathjax==3.2.2.1 (requirements.txt pins it) in the "
                          "environment that runs nbgrader")
    except MathJaxMissing as exc:
        raise RuntimeError(f"The feedback pages carry their own MathJax (no page may load it from the web): {exc}") from None
    path = es5 / name
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: the feedback pages need the full MathJax 3 (its {name}); "
                           "pip install django-static-mathjax==3.2.2.1, or point COURSE_MATHJAX_DIR at a complete es5/ folder.")
    text = path.read_text(encoding="utf-8").replace("<!--", "<\\!--")
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback page with MathJax inside it and outputs that wrap (module docstring).

    ``GenerateFeedback`` configures ``HTMLExporter`` (template ``feedback``, nbgrader's template
    folder); this exporter puts the course's template in front: its ``course_feedback`` template
    uses nbgrader's ``feedback`` as base, and the filter ``course_mathjax`` returns
    :func:`mathjax_script` of a file name.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bases = [str(TEMPLATES)] + [d for d in self.extra_template_basedirs if d != str(TEMPLATES)]
        if not any(Path(d, "feedback", "index.html.j2").is_file() for d in bases):
            import nbgrader

            bases.append(str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"))
        self.extra_template_basedirs = bases
        self.template_name = TEMPLATE_NAME
        self.template_paths = self._template_paths()  # computed (and kept) for nbgrader's template during __init__
        self.register_filter("course_mathjax", mathjax_script)

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        css = resources.setdefault("inlining", {}).setdefault("css", [])
        css.append(FEEDBACK_CSS)
        return nb, resources
