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
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "helpers.grading.ShortTracebacks",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

# Late policy: 10% of the score per started day after the due date (set a due date with
# `nbgrader db assignment add NAME --duedate="2026-03-01 17:00:00 UTC"`; no due date, no penalty).
c.AssignLatePenalties.plugin_class = "helpers.grading.LatePenaltyPerDay"
c.LatePenaltyPerDay.fraction_per_day = 0.1

# The exchange (release_assignment, collect, feedback) lives in the course folder unless a hub
# sets its own: nothing is written to /usr/local/share/nbgrader/exchange. On JupyterHub, replace
# this line with the hub's shared exchange (this file overrides the system-wide config).
c.Exchange.root = os.path.join(COURSE_ROOT, "exchange")

# `nbgrader zip_collect NAME`: files in downloaded/NAME/archive/ (zip archives are unpacked) named
# <student>_<notebook>.ipynb, e.g. alice_01_cosine.ipynb; student ids without "_".
c.FileNameCollectorPlugin.named_regexp = r".*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+\.ipynb)$"

# nbgrader 0.9's gradebook triggers SQLAlchemy's "Object of type <SubmittedAssignment> not in session,
# add operation along ... will not proceed" while it creates a submission (an autoflush inside its
# own code); the records are written correctly, so the warning is noise for instructors.
try:
    from sqlalchemy.exc import SAWarning
except ImportError:
    pass
else:
    warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session", category=SAWarning)
