"""Issue 42: the visible checks catch the known-wrong answers (``tests/visible_catch.py``, BENCHMARKS.md).

For every mutant of ``tests/mutants/NN_x.py`` the measurement runs the worked solution's cells, forks at the
mutant's cell and runs the mutant's version and the cells up to the exercise's own visible test cell: the mutant is
caught when that cell fails, before any hidden test (what Validate shows). Here each notebook must still catch at
least what it caught when last measured, and those counts must meet the issue's target: at least 70% of the
library overall and no notebook below 50%. A visible check weakened by an edit fails here.
"""
import pytest

import nbgrader_tools as nbt
import visible_catch

#: Mutants each notebook's visible test cells caught at the last measurement (BENCHMARKS.md, "Visible checks against
#: the mutant library"): a floor, so that an edit that weakens a visible check fails. Raise it when a notebook
#: catches more.
CAUGHT = {"01_cosine": 20, "02_association": 27, "03_differential_association": 22, "04_effect_size": 34,
          "05_permutation_tests": 35, "06_table1": 23, "07_wefat": 32, "08_debiasing": 36, "09_generalised_weat": 41,
          "10_lexicon_weat": 14, "11_enumerating_biases": 21, "12_bias_from_corpora": 23}
#: Issue 42's targets: the share of the whole library the visible checks catch, and of each notebook's.
OVERALL, EACH = 0.70, 0.50


def test_the_floors_meet_the_targets_and_cover_every_notebook():
    """The floors themselves: every assignment with mutants has one, none below half its mutants, 70% in all."""
    sizes = {a: len(nbt.load_mutants(a)) for a in nbt.discover_assignments()}
    assert set(CAUGHT) == {a for a, n in sizes.items() if n}, "every assignment with mutants needs a floor"
    low = {a: f"{c}/{sizes[a]}" for a, c in CAUGHT.items() if c < EACH * sizes[a]}
    assert not low, f"below {EACH:.0%} of their mutants: {low}"
    assert sum(CAUGHT.values()) >= OVERALL * sum(sizes.values()), (sum(CAUGHT.values()), sum(sizes.values()))


@pytest.mark.parametrize("notebook", sorted(CAUGHT))  # not "assignment": conftest parametrizes that name itself
def test_the_visible_checks_catch_at_least_their_floor(notebook):
    nbt.require_assignment(notebook)
    results = visible_catch.measure(notebook)
    caught = sum(bool(r["caught"]) for r in results)
    missed = [r["name"] for r in results if not r["caught"]]
    assert caught >= CAUGHT[notebook], (
        f"{notebook}: the visible test cells catch {caught} of {len(results)} mutants, fewer than the "
        f"{CAUGHT[notebook]} they caught when last measured; missed: {missed}")
