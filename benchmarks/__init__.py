"""Benchmarks of the course (not tests, not part of the ``helpers`` package students install).

Run from the course root: ``python -m benchmarks`` (a few minutes), ``python -m benchmarks --quick``
(fewer repeats, no notebooks or autograding), ``--json FILE`` for every number. One module per area,
each with ``run(ctx)``; :mod:`benchmarks.common` holds what they share and ``children/`` the programs
run in fresh interpreters. The recorded results and the targets are in BENCHMARKS.md.
"""
