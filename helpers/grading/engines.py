"""One SQLAlchemy engine per gradebook in a process, so that nbgrader's SQL is compiled once, not at every opening.

nbgrader's ``Gradebook`` makes a new engine (``sqlalchemy.create_engine``) each time it is opened: nine times
while nbgrader autogrades one submission of 01_cosine with the course's steps.
SQLAlchemy keeps the SQL it compiled in its engine, with the engine's dialect in the cache key, so every
opening compiled the same queries again, and set up a new dialect at its first connection: 0.1-0.2 of the
grader's 0.5-0.6 CPU-s per submission (``benchmarks/per_submission.py``, BENCHMARKS.md).

:func:`share_engines` (called by :func:`helpers.grading.course.configure`, so in every process that reads the
course's ``nbgrader_config.py``) makes nbgrader's ``Gradebook`` take its engine from :func:`shared_engine`:
the same engine for the same database URL and options. What a ``Gradebook`` does is unchanged. Its
``close()`` still disposes of the engine's connection pool, so no connection stays open between two
gradebooks (a SQLite file is not held open, PostgreSQL's connections are closed); only the compiled SQL and
the dialect's setup are kept. A forked child process drops the engines it inherited without closing their
connections, which belong to the parent (SQLAlchemy's advice for ``fork``), and makes its own.
"""
from __future__ import annotations

import collections
import os
import threading

__all__ = ["shared_engine", "share_engines", "MAX_ENGINES"]

#: engines kept at most (the least recently used is disposed of beyond): one per gradebook this process opens
MAX_ENGINES = 16

_engines: collections.OrderedDict = collections.OrderedDict()
_lock = threading.Lock()
_forking_registered = False


def _key(url, kwargs: dict):
    """A hashable key of ``(url, kwargs)`` (the password included), or None when an option cannot be hashed."""
    from sqlalchemy.engine import make_url

    try:
        key = (make_url(url).render_as_string(hide_password=False), tuple(sorted(kwargs.items())))
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


def shared_engine(url, **kwargs):
    """Return the engine of ``url`` and ``kwargs`` that this process already made, or a new one, kept for later calls.

    At most :data:`MAX_ENGINES` are kept; beyond that the least recently used one is disposed of. The
    key includes the password, so two users of one database get two engines.

    Parameters
    ----------
    url : str or sqlalchemy.engine.URL
        The database URL, as given to :func:`sqlalchemy.create_engine`.
    **kwargs : dict
        The options of :func:`sqlalchemy.create_engine`; an engine is shared only with calls that pass the same
        URL and the same options (an option that cannot be hashed gets an engine of its own, not kept).

    Returns
    -------
    sqlalchemy.engine.Engine
        An engine for ``url``. Its ``dispose()`` closes the pooled connections and starts a new pool; the
        engine stays usable and keeps its compiled SQL.
    """
    from sqlalchemy import create_engine

    key = _key(url, kwargs)
    if key is None:
        return create_engine(url, **kwargs)
    with _lock:
        engine = _engines.get(key)
        if engine is not None:
            _engines.move_to_end(key)
            return engine
        engine = _engines[key] = create_engine(url, **kwargs)
        while len(_engines) > MAX_ENGINES:
            _, old = _engines.popitem(last=False)
            old.dispose()  # its idle connections; one still checked out is closed when it is given back
        return engine


def _forget_after_fork() -> None:
    """In a forked child: drop the parent's engines, leaving their connections to the parent."""
    global _lock
    _lock = threading.Lock()  # another thread of the parent may have held it at the fork
    for engine in _engines.values():
        engine.dispose(close=False)
    _engines.clear()


def share_engines() -> None:
    """Make nbgrader's ``Gradebook`` use :func:`shared_engine` in this process.

    nbgrader's module-level ``create_engine`` is replaced by :func:`shared_engine`, and a forked child
    is set to drop the engines it inherited. Calling it again changes nothing; an nbgrader that makes its
    engines otherwise (no ``nbgrader.api.create_engine``) is left alone.
    """
    global _forking_registered
    import nbgrader.api

    if not hasattr(nbgrader.api, "create_engine"):  # an nbgrader that makes its engines otherwise: nothing to share
        return
    if not _forking_registered:
        os.register_at_fork(after_in_child=_forget_after_fork)
        _forking_registered = True
    nbgrader.api.create_engine = shared_engine
