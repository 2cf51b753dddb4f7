"""The nbgrader gradebook on PostgreSQL (what a course with several graders uses), end to end.

A fresh database is created on the server, ``CourseDirectory.db_url`` points at it, the release of
01_cosine is generated, a correct submission (the release with the solutions filled in) is
autograded into it, and the score is read back with ``nbgrader.api.Gradebook(db_url)``: full marks
on every autograded cell. The database is dropped afterwards, whatever happens.

The server: ``COURSE_TEST_POSTGRES_URL`` (a URL of a database to connect to for creating and
dropping the test database, e.g. ``postgresql://postgres:postgres@127.0.0.1:5432/postgres``);
without it, ``postgresql://postgres@127.0.0.1:5432/postgres`` and then the same with the password
``postgres`` are tried. No server reachable: the test is skipped, unless
``COURSE_TEST_POSTGRES_REQUIRED=1`` (set by .ci/run after it started the server), when it fails.
Needs a PostgreSQL driver: psycopg[binary] (psycopg 3, SQLAlchemy 2.1's default; in requirements.txt).
"""
from __future__ import annotations

import os
import secrets
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as tools  # noqa: E402  (shared helpers of the nbgrader tests)

ASSIGNMENT = "01_cosine"
DEFAULT_URLS = ("postgresql://postgres@127.0.0.1:5432/postgres",
                "postgresql://postgres:postgres@127.0.0.1:5432/postgres")
REQUIRED = os.environ.get("COURSE_TEST_POSTGRES_REQUIRED", "") not in ("", "0")
HOW = ("as root: `DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql`, start it with "
       "`pg_ctlcluster <version> main start`, give the postgres user a password and set "
       "COURSE_TEST_POSTGRES_URL=postgresql://postgres:PASSWORD@127.0.0.1:5432/postgres (see .ci/run)")


def _unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"COURSE_TEST_POSTGRES_REQUIRED is set but {reason}")
    pytest.skip(reason)


def _driver_url(url: str) -> str:
    """The URL with a PostgreSQL driver that is installed: SQLAlchemy's default for ``postgresql://``
    (psycopg 3 since SQLAlchemy 2.1, psycopg2 before), else the other one."""
    from sqlalchemy.engine import make_url

    u = make_url(url)
    if u.get_backend_name() != "postgresql":
        return url
    for drivername in (u.drivername, "postgresql+psycopg", "postgresql+psycopg2"):
        try:
            u.set(drivername=drivername).get_dialect().import_dbapi()
        except ImportError:
            continue
        return u.set(drivername=drivername).render_as_string(hide_password=False)
    _unavailable("no PostgreSQL driver for SQLAlchemy: `pip install -r requirements.txt` (psycopg[binary])")


def _admin_engine():
    """An AUTOCOMMIT engine on the first reachable server, or skip (fail if required)."""
    from sqlalchemy import create_engine, text

    given = os.environ.get("COURSE_TEST_POSTGRES_URL")
    errors = []
    for url in ([given] if given else DEFAULT_URLS):
        url = _driver_url(url)
        engine = create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3},
                               future=True)
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return engine
        except Exception as exc:  # noqa: BLE001 - any reason for "not reachable"
            errors.append(f"{engine.url.render_as_string(hide_password=True)}: {str(exc).splitlines()[0]}")
            engine.dispose()
    _unavailable("no PostgreSQL server reachable (" + "; ".join(errors) + "). To run this test, " + HOW)


@pytest.fixture
def pg_db_url():
    """URL of a fresh, empty database, dropped after the test."""
    from sqlalchemy import text

    admin = _admin_engine()
    name = f"weat_course_test_{secrets.token_hex(6)}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            # connections nbgrader's engines may still hold are closed by the server (PostgreSQL >= 13)
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            left = conn.execute(text("SELECT count(*) FROM pg_database WHERE datname = :n"), {"n": name}).scalar()
        admin.dispose()
        assert left == 0, f"the test database {name} was not dropped"


# nbgrader 0.9.6 + SQLAlchemy 2.1 warn "Object of type <SubmittedAssignment> not in session" while
# autograding (nbgrader's own session handling; the same with SQLite; grades are stored correctly)
@pytest.mark.filterwarnings("ignore:Object of type:sqlalchemy.exc.SAWarning")
def test_autograde_into_postgresql_gradebook(pg_db_url, tmp_path):
    from nbgrader.api import Gradebook
    from sqlalchemy import create_engine, text

    source = tools.SOLUTIONS_DIR / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    if not source.is_file():
        pytest.skip(f"needs {source.relative_to(tools.COURSE_ROOT)}")
    student = tools.FULL
    course = tools.make_course(tmp_path / "course", [ASSIGNMENT], gradebook=False)  # its gradebook is in PostgreSQL
    t0 = time.perf_counter()
    with tools.offline_env(tmp_path) as network_log:
        api = tools.make_api(course, db_url=pg_db_url)
        assert api.coursedir.db_url == pg_db_url
        tools.generate_release(api, ASSIGNMENT)
        names = tools.notebook_names(ASSIGNMENT, course)
        submission = {}
        for name in names:
            release = tools.read_nb(course / "notebooks" / ASSIGNMENT / f"{name}.ipynb")
            solution = tools.read_nb(course / "solutions" / ASSIGNMENT / f"{name}.ipynb")
            submission[name] = tools.fill_solutions(release, solution)
        tools.submit(course, ASSIGNMENT, student, submission)
        result = api.autograde(ASSIGNMENT, student, force=True, create=True)
        assert result.get("success"), f"autograde failed:\n{result.get('error')}\n{result.get('log')}"
    seconds = time.perf_counter() - t0

    # the grades live in PostgreSQL, not in a SQLite file in the course folder
    assert not (course / "gradebook.db").exists(), "nbgrader wrote a SQLite gradebook despite db_url"
    engine = create_engine(pg_db_url, future=True)
    try:
        with engine.connect() as conn:
            tables = set(conn.execute(text(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).scalars())
            assert {"assignment", "submitted_assignment", "grade", "alembic_version"} <= tables, tables
            n_grades = conn.execute(text("SELECT count(*) FROM grade")).scalar()
    finally:
        engine.dispose()
    assert n_grades > 0, "no grade rows in the PostgreSQL gradebook"

    # read the score back the way an instructor's script would
    gb = Gradebook(pg_db_url)
    try:
        sub = gb.find_submission(ASSIGNMENT, student)
        code_score, max_code = float(sub.code_score), float(sub.max_code_score)
        assert max_code > 0, "01_cosine has no autograded points"
        assert code_score == max_code, f"a correct submission scored {code_score} of {max_code} autograded points"
    finally:
        gb.close()
        gb.engine.dispose()

    scores = tools.cell_scores(pg_db_url, ASSIGNMENT, student)
    lost = {gid: g for gid, g in scores.items() if g["cell_type"] == "code" and g["score"] != g["max_score"]}
    assert not lost, f"autograded cells without full marks:\n{tools.pretty(lost)}"
    assert network_log.read_text() == "", f"the notebook tried to reach the network:\n{network_log.read_text()}"
    print(f"autograded {ASSIGNMENT} into PostgreSQL: {code_score:g}/{max_code:g} points, "
          f"{len(scores)} graded cells, {seconds:.1f} s")
