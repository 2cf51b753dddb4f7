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
