"""Gradebooks sharing one SQLAlchemy engine per database (helpers/grading/engines.py).

What the tests show, on real SQLite gradebooks through nbgrader's own ``Gradebook``:

* after :func:`share_engines`, two gradebooks of one URL use one engine, and the second compiles no SQL the
  first compiled; without it (nbgrader as shipped) the second compiles it all again, which is what the
  module saves;
* a closed gradebook leaves no connection open: its file can be removed and a gradebook of the same URL
  starts a new one, with nbgrader's tables;
* other URLs and other options get other engines, and at most ``MAX_ENGINES`` are kept;
* a forked child drops the engines it inherited, and the parent's open gradebook goes on working;
* ``configure`` (which the course's ``nbgrader_config.py`` calls) installs it.
"""
from __future__ import annotations

import os

import pytest
import sqlalchemy
from nbgrader.api import Gradebook
from sqlalchemy.sql import compiler

import nbgrader.api
from helpers.grading import engines
from helpers.grading.course import create_gradebook


@pytest.fixture
def shared(monkeypatch):
    """nbgrader's gradebooks with shared engines, and an empty store of engines (both put back after the test)."""
    monkeypatch.setattr(nbgrader.api, "create_engine", engines.shared_engine)
    monkeypatch.setattr(engines, "_engines", type(engines._engines)())
    yield engines._engines
    for engine in engines._engines.values():
        engine.dispose()


@pytest.fixture
def compilations(monkeypatch):
    """A list that gains one entry each time SQLAlchemy compiles a statement."""
    seen = []
    original = compiler.SQLCompiler.__init__

    def counting(self, *args, **kwargs):
        seen.append(type(self).__name__)
        original(self, *args, **kwargs)

    monkeypatch.setattr(compiler.SQLCompiler, "__init__", counting)
    return seen


def _use(url: str) -> None:
    """What a grading step does with a gradebook: open it, write and read rows, close it."""
    create_gradebook(url)  # as the grader makes one (nbgrader's own way runs the alembic command: seconds)
    with Gradebook(url) as gb:
        gb.update_or_create_assignment("01_cosine")
        gb.update_or_create_student("ada", first_name="Ada")
        assert gb.find_assignment("01_cosine").name == "01_cosine"
        assert [s.id for s in gb.students] == ["ada"]


def _compiled_by_each_use(url: str, compilations: list) -> list[int]:
    """SQL statements compiled by each of three uses of the gradebook at ``url`` (the first one creates it;
    the second and third run the same statements)."""
    counts = []
    for _ in range(3):
        before = len(compilations)
        _use(url)
        counts.append(len(compilations) - before)
    return counts


def test_one_engine_per_url_and_sql_compiled_once(shared, compilations, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    create_gradebook(url)
    with Gradebook(url) as first, Gradebook(url) as second:
        assert first.engine is second.engine
    first, second, third = _compiled_by_each_use(url, compilations)
    print(f"statements compiled by three uses of one gradebook, shared engine: {first}, {second}, {third}")
    assert first > 0
    assert third == 0, f"the third gradebook compiled {third} statements again"
    assert len(shared) == 1


def test_without_sharing_every_gradebook_compiles_again(compilations, monkeypatch, tmp_path):
    monkeypatch.setattr(nbgrader.api, "create_engine", sqlalchemy.create_engine)  # nbgrader as shipped
    first, second, third = _compiled_by_each_use(f"sqlite:///{tmp_path / 'gradebook.db'}", compilations)
    print(f"statements compiled by three uses of one gradebook, an engine each: {first}, {second}, {third}")
    assert third == second > 0


def test_a_closed_gradebook_leaves_no_connection_open(shared, tmp_path):
    path = tmp_path / "gradebook.db"
    url = f"sqlite:///{path}"
    _use(url)
    engine = shared[next(iter(shared))]
    assert engine.pool.checkedout() == 0
    path.unlink()  # as a test or an instructor may do between two runs
    create_gradebook(url)
    with Gradebook(url) as gb:
        assert gb.engine is engine
        assert gb.students == [], "a gradebook of the removed file's URL read the old rows"
        assert {"assignment", "student", "grade"} <= set(sqlalchemy.inspect(gb.engine).get_table_names())
    assert path.exists()


def test_other_urls_and_options_get_other_engines_and_few_are_kept(shared, tmp_path, monkeypatch):
    a = engines.shared_engine(f"sqlite:///{tmp_path / 'a.db'}", future=True)
    assert engines.shared_engine(f"sqlite:///{tmp_path / 'a.db'}", future=True) is a
    assert engines.shared_engine(f"sqlite:///{tmp_path / 'b.db'}", future=True) is not a
    assert engines.shared_engine(f"sqlite:///{tmp_path / 'a.db'}", echo=True) is not a
    unhashable = engines.shared_engine(f"sqlite:///{tmp_path / 'a.db'}", connect_args={"timeout": 5})
    assert unhashable is not a and len(shared) == 3, "an engine with unhashable options was kept"
    unhashable.dispose()
    monkeypatch.setattr(engines, "MAX_ENGINES", 3)
    for k in range(5):
        engines.shared_engine(f"sqlite:///{tmp_path / f'{k}.db'}")
    assert len(shared) == 3
    assert engines.shared_engine(f"sqlite:///{tmp_path / 'a.db'}", future=True) is not a, "the oldest engine was kept"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_drops_the_engines_and_the_parent_goes_on(shared, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    engines.share_engines()  # registers the fork handler (once per process)
    _use(url)
    with Gradebook(url) as gb:  # a connection checked out across the fork
        gb.update_or_create_student("grace")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report whether it still holds the parent's engines
            try:
                os.write(write, b"%d" % len(engines._engines))
            finally:
                os._exit(0)
        os.close(write)
        _, status = os.waitpid(pid, 0)
        kept = os.read(read, 16)
        os.close(read)
        assert os.waitstatus_to_exitcode(status) == 0
        assert kept == b"0", f"the child kept {kept.decode()} of the parent's engines"
        assert sorted(s.id for s in gb.students) == ["ada", "grace"]


def test_configure_installs_it(monkeypatch, tmp_path):
    from traitlets.config import Config

    from helpers.grading.course import configure

    monkeypatch.setattr(nbgrader.api, "create_engine", sqlalchemy.create_engine)
    configure(Config(), sandbox=False)
    assert nbgrader.api.create_engine is engines.shared_engine
