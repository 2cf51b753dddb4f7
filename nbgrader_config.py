# nbgrader configuration of the course. nbgrader reads this file from the current folder only:
# run nbgrader commands from the course root (the folder with this file).
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "weat-course"
c.CourseDirectory.source_directory = "solutions"   # instructors' notebooks: solutions + hidden tests
c.CourseDirectory.release_directory = "notebooks"  # generated student versions (never edit by hand)

c.ExecutePreprocessor.kernel_name = "python3"
c.Execute.timeout = 60          # seconds per cell: an endless loop ends here, the rest is still graded
c.Execute.interrupt_on_timeout = True

# a student who deletes a graded cell gets it back (and graded) instead of "needs manual grading"
c.OverwriteCells.add_missing_cells = True

# Sandboxed autograding (docs/INSTRUCTORS.md, "Sandboxed grading"): each submission's kernel runs in
# bubblewrap (Debian package `bubblewrap`), so it cannot read solutions/, the gradebook or this file,
# write outside its own autograded/<student>/<assignment>/ folder, reach the network or outlive its
# notebook; helpers.execute.ResilientExecute also makes a cell that hangs or kills the kernel cost that
# cell only (flagged), instead of the whole submission. If bubblewrap is missing, autograding stops
# with a message saying how to install it. To grade trusted submissions without the sandbox (they then
# run with your rights): `nbgrader autograde A --Sandbox.enabled=False`.
c.Autograde.autograde_preprocessors = [
    "helpers.execute.ResilientExecute",   # in place of nbgrader.preprocessors.Execute
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Sandbox.enabled = True
c.Sandbox.memory_mb = 4096      # address-space limit of a kernel (MiB); the notebooks peak at 2.0 GB
