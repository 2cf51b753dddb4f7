# nbgrader configuration of the course. nbgrader reads this file from the current folder only:
# run nbgrader commands from the course root (the folder with this file).
import os
import warnings

c = get_config()  # noqa: F821
COURSE_ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "weat-course"
c.CourseDirectory.source_directory = "solutions"   # instructors' notebooks: solutions + hidden tests
c.CourseDirectory.release_directory = "notebooks"  # generated student versions (never edit by hand)

c.ExecutePreprocessor.kernel_name = "python3"
c.Execute.timeout = 60          # seconds per cell: an endless loop ends here, the rest is still graded
c.Execute.interrupt_on_timeout = True

# a student who deletes a graded cell gets it back (and graded) instead of "needs manual grading"
c.OverwriteCells.add_missing_cells = True

# Feedback shows which checks failed and their messages, never the hidden tests: their code is
# removed from the test cells and the traceback of a failed test cell is cut to "Error: message".
# Pages render no HTML or JavaScript from a submission (helpers/grading/rendering.py); the formgrader reads
# this file too. sanitize_html passes any HTML output still in a notebook through nbconvert's clean_html.
c.HTMLExporter.sanitize_html = True
c.GenerateFeedback.preprocessors = [
    "helpers.grading.plugins.FinalLatePenalty",   # the late penalty from the final score, manual points included
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "helpers.grading.plugins.ShortTracebacks",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The feedback page is nbgrader's, with MathJax inside it (maths shows without network) and outputs that
# wrap their long lines (helpers/grading/feedback_page.py)
c.GenerateFeedback.exporter_class = "helpers.grading.feedback_page.FeedbackExporter"

# Late policy: 10% of the score per started day after the due date (set a due date with
# `nbgrader db assignment add NAME --duedate="2026-03-01 17:00:00 UTC"`; no due date, no penalty).
c.AssignLatePenalties.plugin_class = "helpers.grading.plugins.LatePenaltyPerDay"
c.LatePenaltyPerDay.fraction_per_day = 0.1
c.ExportApp.plugin_class = "helpers.grading.plugins.FinalScoreCsvExport"  # nbgrader's CSV, penalties on final scores

# What a submission is (helpers/grading/submission.py): its notebooks, as regular files. `nbgrader collect`
# copies nothing else from the exchange and follows no symbolic link; before autograding, anything
# else in submitted/<student>/<assignment>/ (links, pipes, folders, other files) is removed, unread.
c.ExchangeFactory.collect = "helpers.grading.submission.SafeCollect"
c.Autograde.pre_convert_hook = "helpers.grading.submission.before_autograde"

# The exchange (release_assignment, collect, feedback) lives in the course folder unless a hub
# sets its own: nothing is written to /usr/local/share/nbgrader/exchange. On JupyterHub, replace
# this line with the hub's shared exchange (this file overrides the system-wide config).
c.Exchange.root = os.path.join(COURSE_ROOT, "exchange")
try:  # it must exist, or the formgrader's assignment list logs "Unwritable directory" on every page
    os.makedirs(c.Exchange.root, exist_ok=True)  # release_assignment sets nbgrader's permissions
except OSError:
    pass

# `nbgrader zip_collect NAME`: files in downloaded/NAME/archive/ (zip archives are unpacked) named
# <student>_<notebook>.ipynb, e.g. alice_01_cosine.ipynb, or <student>_<YYYY-MM-DD-HH-MM-SS>_<notebook>.ipynb
# when the LMS stamps the time of handing in (read as UTC; it becomes timestamp.txt, so late work is
# penalised); student ids without "_". docs/INSTRUCTORS.md, "Collecting from an LMS".
c.FileNameCollectorPlugin.named_regexp = (r".*/(?P<student_id>[^/_]+)_(?:(?P<timestamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)_)?"
                                          r"(?P<file_id>[^/]+\.ipynb)$")

# nbgrader 0.9's gradebook triggers SQLAlchemy's "Object of type <SubmittedAssignment> not in session,
# add operation along ... will not proceed" while it creates a submission (an autoflush inside its
# own code); the records are written correctly, so the warning is noise for instructors.
try:
    from sqlalchemy.exc import SAWarning
except ImportError:
    pass
else:
    warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session", category=SAWarning)

# Trust (CONTRIBUTING.md, "Why the checks cannot be switched off"): nbgrader's default pipelines, in
# nbgrader's order, plus four steps of the course. First, helpers.grading.submission.TakeSubmission discards the
# notebook and cell metadata the submission brings (but nbgrader's) and flags files dropped beside it.
# Before execution, helpers.grading.scan.ScanAnswers reads the student's code and flags what honest answers
# never need, and helpers.grading.rendering.ShowStudentText shows markdown the student wrote as plain text;
# after SaveAutoGrades, helpers.grading.flags.SaveFlags writes every flag to the gradebook (needs_manual_grade,
# auto score kept, comment "FLAGGED: ...").
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput,  # noqa: E402
                                    DeduplicateIds, Execute, IgnorePattern, LimitOutput,
                                    OverwriteCells, OverwriteKernelspec, SaveAutoGrades)

from helpers.grading.flags import SaveFlags  # noqa: E402
from helpers.grading.rendering import ShowStudentText  # noqa: E402
from helpers.grading.scan import ScanAnswers  # noqa: E402
from helpers.grading.submission import TakeSubmission  # noqa: E402

c.Autograde.sanitize_preprocessors = [TakeSubmission, ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                      OverwriteCells, CheckCellMetadata, ScanAnswers, ShowStudentText]
c.Autograde.autograde_preprocessors = [Execute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, SaveFlags, AssignLatePenalties, CheckCellMetadata]
# flags live in the notebook's metadata until SaveFlags: keep them if someone enables ClearMetadataPreprocessor
c.ClearMetadataPreprocessor.preserve_nb_metadata_mask = {("language_info", "name"), ("course_flags",)}

# Budgets (docs/INSTRUCTORS.md, "Threat model"), each measured on the worked solutions (the docstrings of
# helpers/grading/execute.py and helpers/grading/sandbox.py say how): time per notebook (each cell also has the 60 s
# above), output kept per cell and per notebook in bytes, as it is received (only text and PNG/JPEG
# images: no HTML, SVG or JavaScript), and disk: the kernel's working folder and /tmp are each a
# tmpfs of this many MiB.
c.ResilientExecute.notebook_timeout = 300
c.ResilientExecute.max_cell_output_bytes = 2_000_000
c.ResilientExecute.max_output_bytes = 5_000_000
c.Sandbox.disk_mb = 100

# Sandboxed autograding (docs/INSTRUCTORS.md, "Sandboxed grading"); keep this at the end of the file,
# after any Autograde.autograde_preprocessors list. Each submission's kernel runs in bubblewrap
# (Debian package `bubblewrap`): it cannot read solutions/, the gradebook or this file, write anywhere
# but its own working folder and /tmp (fresh tmpfs of Sandbox.disk_mb, gone with the kernel), reach the
# network or outlive its notebook, and it has a memory limit (MiB of address space; the notebooks peak
# at about 2 GB). nbgrader's Execute step becomes helpers.grading.execute.ResilientExecute: a cell that
# hangs or kills the kernel costs that cell only (flagged), not the whole submission. nbgrader's
# CheckCellMetadata becomes helpers.grading.submission.CheckCellMetadataOnce (the same checks, one schema
# validator per process). If bubblewrap is missing, autograding stops with a message saying how to
# install it. To grade trusted submissions without the sandbox (they then run with your rights):
# `nbgrader autograde A --Sandbox.enabled=False`.
from helpers.grading.course import configure  # noqa: E402

configure(c, sandbox=True, memory_mb=4096, require_bwrap=False)
