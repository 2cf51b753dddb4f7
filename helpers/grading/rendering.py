"""Safe rendering: nothing a student's code shows or a student writes reaches a page as HTML or JavaScript.

Every autograded notebook is rendered to HTML twice: as feedback (``generate_feedback``), which
students and instructors open in a browser, and in the formgrader, which runs in the grader's
Jupyter server with the grader's session (a script there can change any grade through the
formgrader's API). nbconvert renders ``text/html``, ``application/javascript``,
``image/svg+xml`` and ``text/markdown`` outputs as they are, and nbgrader's ``feedback`` and
``formgrade`` templates render markdown cells without nbconvert's sanitizer (their
``markdowncell`` blocks do not apply ``clean_html``, so ``HTMLExporter.sanitize_html``, which
nbconvert 7.17 has, does not reach them). So the notebook itself is made safe, whatever renders it:

* **outputs, as they are received** (:class:`helpers.grading.execute.ResilientExecute` calls
  :func:`screen_output` on every output message): only :data:`KEEP_MIME` is kept (plain text,
  PNG and JPEG images whose data is checked to be base64, never SVG), and no output metadata
  (image sizes and file names are inserted into the page by the templates). An output that
  carried active content (a script, an event handler, ``javascript:``) is flagged;
* **text the student wrote** (:class:`ShowStudentText`, at the end of
  ``Autograde.sanitize_preprocessors``): a markdown or raw cell that is not exactly a cell of the
  release becomes an indented code block under a one-line note, so its text is shown literally
  (no HTML, links, images or math are interpreted); its attachments are dropped. Cells as the
  course released them are left alone, so an unanswered answer cell still scores 0 automatically
  (nbgrader compares its checksum with the release's).

``nbgrader_config.py`` also sets ``HTMLExporter.sanitize_html = True`` (both the feedback and the
formgrader read it), which passes any HTML output that is still there, e.g. in a notebook graded
before this module existed, through nbconvert's ``clean_html``. Messages the grader writes itself
(:mod:`helpers.grading.execute`, :mod:`helpers.grading.flags`) never quote a cell's source or a file name as the
student wrote it (:func:`helpers.grading.submission.safe_name`).
"""
from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor

from .flags import add_flag, grade_id

__all__ = ["KEEP_MIME", "screen_output", "active_content", "as_text", "ShowStudentText"]

#: The only output data kept (in this order of preference by the templates): plain text and two
#: raster image formats. SVG is XML that may hold scripts; HTML, Markdown, LaTeX and JavaScript
#: outputs are rendered by the browser.
KEEP_MIME = ("text/plain", "image/png", "image/jpeg")
STREAMS = ("stdout", "stderr")
NOTE = "*(written by the student; shown as text)*"

_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_ACTIVE = re.compile(r"<\s*(script|iframe|object|embed|form|meta|link|base)\b|javascript\s*:|\bon[a-z]+\s*=|\\href",
                     re.IGNORECASE)


def active_content(text: str) -> bool:
    """Tell whether HTML or Markdown text holds something a browser would run or load on its own.

    That is a script, an iframe, object or embed element, a form, a ``<meta>``, ``<link>`` or ``<base>``
    tag, an event-handler attribute (``onerror=``), a ``javascript:`` URL or a MathJax ``\\href``.
    Used to decide what to *flag*; what is kept never depends on it.

    Parameters
    ----------
    text : str
        The text, as the student wrote it.

    Returns
    -------
    bool
        True when it holds any of these.
    """
    return bool(_ACTIVE.search(text))


def _text(value) -> str:
    if isinstance(value, list):
        value = "".join(str(v) for v in value)
    return value if isinstance(value, str) else str(value)


def screen_output(msg_type: str, content: dict) -> tuple[dict | None, list[str]]:
    """Keep the part of one output message that may be stored and rendered.

    Streams and errors keep their text; displays and results keep only :data:`KEEP_MIME` data. Nothing
    the kernel sent is trusted for its form: its texts are made strings.

    Parameters
    ----------
    msg_type : str
        ``stream``, ``display_data``, ``update_display_data``, ``execute_result`` or ``error``.
    content : dict
        The message's content, as the kernel sent it (the student controls all of it).

    Returns
    -------
    content : dict or None
        A new content dict: ``stream`` keeps ``name`` (``stdout`` or ``stderr``) and ``text``;
        ``error`` keeps ``ename``, ``evalue`` and ``traceback`` as strings; display messages keep
        :data:`KEEP_MIME` data (images only when their data is base64), empty ``metadata`` and
        the ``display_id`` of ``transient``. None when nothing is left to show.
    dropped : list of str
        The MIME types dropped, with ``" (active)"`` appended when :func:`active_content` found
        something in it (every JavaScript output is active).
    """
    if msg_type == "stream":
        name = content.get("name")
        return {"name": name if name in STREAMS else "stdout", "text": _text(content.get("text", ""))}, []
    if msg_type == "error":
        tb = content.get("traceback") or []
        return {"ename": _text(content.get("ename", "")), "evalue": _text(content.get("evalue", "")),
                "traceback": [_text(t) for t in tb] if isinstance(tb, list) else [_text(tb)]}, []
    data = content.get("data") or {}
    if not isinstance(data, dict):
        data = {}
    kept, dropped = {}, []
    for mime, value in data.items():
        text = _text(value)
        if mime == "text/plain":
            kept[mime] = text
        elif mime in ("image/png", "image/jpeg") and _BASE64.fullmatch(text):
            kept[mime] = text
        else:
            active = mime == "application/javascript" or active_content(text)
            dropped.append(mime + (" (active)" if active else ""))
    out = {"data": kept, "metadata": {}}
    transient = content.get("transient")
    if isinstance(transient, dict) and isinstance(transient.get("display_id"), str):
        out["transient"] = {"display_id": transient["display_id"]}
    if "execution_count" in content:
        out["execution_count"] = content["execution_count"]
    if not kept and msg_type != "execute_result":
        return None, dropped
    return out, dropped


def as_text(source: str) -> str:
    """Markdown that shows ``source`` literally: :data:`NOTE`, then every line indented four spaces.

    An indented code block cannot be closed by anything inside it (unlike a fenced one), and
    renderers neither interpret HTML, links or images in it nor typeset math there (MathJax
    skips ``<pre>`` and ``<code>``).

    Parameters
    ----------
    source : str
        What the student wrote.

    Returns
    -------
    str
        The Markdown.
    """
    lines = source.expandtabs(4).split("\n")
    return NOTE + "\n\n" + "\n".join("    " + line for line in lines)


def _release_texts(config, resources) -> set[str] | None:
    from .scan import _release_for

    info = (resources or {}).get("nbgrader", {})
    try:
        release = _release_for(config, info.get("assignment", ""), info.get("notebook", ""))
    except Exception:  # noqa: BLE001 - no release: every markdown cell is the student's
        return None
    if release is None:
        return None
    return {c.source for c in release.cells if c.cell_type in ("markdown", "raw")}


class ShowStudentText(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Show the student's text as text: an nbgrader preprocessor, last in ``Autograde.sanitize_preprocessors``.

    Each markdown or raw cell whose source is not exactly that of a markdown or raw cell of the
    released notebook (locked cells are already restored by ``OverwriteCells``) is replaced by a
    markdown cell holding :func:`as_text` of its source, without attachments; its nbgrader
    metadata is kept, so an answer cell is still graded by a person. Without a release every
    markdown and raw cell is treated so. A cell whose text held active content
    (:func:`active_content`) is flagged.

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Replace each of the student's markdown and raw cells with :func:`as_text` of it.

        The cells that are exactly those of the release are left alone; see the class.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The submitted notebook.
        resources : dict
            The resources nbgrader passes (the assignment and notebook, to find the release).

        Returns
        -------
        tuple
            ``(nb, resources)``, ``nb`` changed in place.
        """
        from nbformat.v4 import new_markdown_cell

        course = _release_texts(self.config, resources)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type not in ("markdown", "raw") or (course is not None and cell.source in course):
                continue
            new = new_markdown_cell(as_text(cell.source))
            if "nbgrader" in cell.metadata:
                new.metadata["nbgrader"] = cell.metadata["nbgrader"]
            if "id" in cell:
                new["id"] = cell["id"]
            if active_content(cell.source):
                gid = grade_id(cell)
                add_flag(nb, gid, f"{'Cell ' + str(index + 1) + ': ' if not gid else ''}the student's text holds "
                                  "HTML or a link that a browser would run (a script, an event handler, "
                                  "javascript:); it is shown as plain text.")
            nb.cells[index] = new
        return nb, resources

