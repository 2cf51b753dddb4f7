"""Docstrings of the science library and the grader: numpydoc's validator over every public object, and ``__all__``.

Every name in ``__all__`` of the modules below is validated with ``numpydoc.validate.validate`` (the
function behind ``python -m numpydoc validate NAME``), with the checks configured in pyproject.toml
(``[tool.numpydoc_validation]``; CONTRIBUTING.md, "Docstrings", says which are left out and why), and
so are the public methods and properties of its classes. A result class (a dataclass or a named tuple)
documents its fields under "Attributes" (scipy's style for result objects) instead of "Parameters";
numpydoc reads its constructor's fields as parameters, so such a class carries ``# numpydoc
ignore=PR01`` and this test checks instead that "Attributes" names exactly its fields, in order.
A constant in ``__all__`` is documented by a ``#:`` comment right above it (Sphinx's convention).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from pathlib import Path

import numpydoc.validate as numpydoc_validate
import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.hooks.validate_docstrings import parse_config

ROOT = Path(__file__).resolve().parents[1]

#: The science library (issue 21: statistics, embeddings, wordsets, weat, wefat, lexicon, enumeration,
#: plots) and the notebooks' checks.
SCIENCE = ("statistics", "embeddings", "wordsets", "weat", "wefat", "lexicon", "enumeration", "plots", "checks",
           "corpus", "replication", "sourcecode")
#: The grader's public API (issue 36), the hidden-test authors' first: the judge's modules, then every other
#: module of helpers/grading/ but warm_template and judge.runtime (no __all__: they run only inside the sandbox
#: and the student's kernel) and the judge package's __init__ (it re-exports names its modules document).
GRADER = ("grading.judge.api", "grading.judge.codec", "grading.judge.errors", "grading.judge.executor",
          "grading.judge.wire", "grading.judge.channel", "grading.judge.stripped", "grading.judge.notebook",
          "grading.judge.rules",
          "grading.grade", "grading.course", "grading.run", "grading.exports",
          "grading.flags", "grading.execute", "grading.sandbox",
          "grading.engines", "grading.cluster", "grading.cli", "grading.bundle",
          "grading.state", "grading.canary", "grading.feedback",
          "grading.rendering", "grading.plugins", "grading.submission",
          "grading.scan", "grading.feedback_page", "grading.warm")
MODULES = SCIENCE + GRADER

CHECKS = parse_config(ROOT)["checks"]


def _module(name):
    return importlib.import_module(f"helpers.{name}")


def _is_function(obj) -> bool:
    """A function, also behind a decorator such as ``functools.lru_cache``."""
    return inspect.isfunction(inspect.unwrap(obj)) if callable(obj) else False


def _is_result_class(obj) -> bool:
    return inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or
                                     (issubclass(obj, tuple) and hasattr(obj, "_fields")))


def _fields(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(cls._fields)


def _public_objects():
    """(module, import path) of every function and class in an ``__all__``, and of their methods."""
    for name in MODULES:
        mod = _module(name)
        for attr in mod.__all__:
            obj = getattr(mod, attr)
            if not (_is_function(obj) or inspect.isclass(obj)):
                continue
            yield name, f"helpers.{name}.{attr}"
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
                        yield name, f"helpers.{name}.{attr}.{member}"


def _errors(result) -> list[str]:
    return [f"{code} {message}" for code, message in result["errors"] if code in CHECKS]


def test_the_configured_checks_are_numpydocs_minus_the_documented_two():
    assert CHECKS == set(numpydoc_validate.ERROR_MSGS) - {"SA01", "EX01"}
    assert "PR07" in CHECKS and "RT03" in CHECKS  # parameters and return values need a description


@pytest.mark.parametrize(("module", "path"), list(_public_objects()), ids=lambda v: v)
def test_public_object_passes_numpydoc_validation(module, path):
    errors = _errors(numpydoc_validate.validate(path))
    assert not errors, f"{path}: " + "; ".join(errors) + " (run: python -m numpydoc validate " + path + ")"


def test_validation_catches_a_one_line_parameter():
    """The check can fail: ``name : description`` on one line (what issue 21 found) is reported."""
    def scaled(x, factor):
        """Scale ``x``.

        Parameters
        ----------
        x : the number.
        factor : float
            The factor.

        Returns
        -------
        float
        """
        return x * factor

    codes = {code for code, _ in numpydoc_validate.validate(numpydoc_validate.get_doc_object(scaled))["errors"]}
    assert {"PR05", "PR07", "RT03"} <= codes & CHECKS


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_every_public_function_and_class_and_nothing_else(name):
    mod = _module(name)
    assert len(set(mod.__all__)) == len(mod.__all__), f"helpers.{name}.__all__ lists a name twice"
    assert not [a for a in mod.__all__ if not hasattr(mod, a)], f"helpers.{name}.__all__ names something missing"
    defined = {attr for attr, obj in vars(mod).items()
               if not attr.startswith("_") and (_is_function(obj) or inspect.isclass(obj))
               and obj.__module__ == mod.__name__}
    missing = sorted(defined - set(mod.__all__))
    assert not missing, f"public in helpers.{name} but not in its __all__: {missing} (add them, or a leading _)"


@pytest.mark.parametrize("name", MODULES)
def test_result_classes_document_exactly_their_fields(name):
    mod = _module(name)
    for attr in mod.__all__:
        obj = getattr(mod, attr)
        if not _is_result_class(obj):
            continue
        documented = [n.strip() for p in NumpyDocString(inspect.getdoc(obj))["Attributes"] for n in p.name.split(",")]
        assert documented == _fields(obj), (
            f"helpers.{name}.{attr}: its Attributes section names {documented}, its fields are {_fields(obj)}")


@pytest.mark.parametrize("name", MODULES)
def test_constants_in_all_have_a_doc_comment(name):
    mod = _module(name)
    lines = inspect.getsource(mod).splitlines()
    for attr in mod.__all__:
        obj = getattr(mod, attr)
        if _is_function(obj) or inspect.isclass(obj) or inspect.ismodule(obj):
            continue
        at = [i for i, line in enumerate(lines) if line.startswith((f"{attr} =", f"{attr}: "))]
        assert at, f"helpers.{name}.{attr} is not assigned at the top level of its module"
        assert at[0] > 0 and lines[at[0] - 1].startswith("#:"), (
            f"helpers.{name}.{attr}: document it with a '#: ...' comment on the line above its assignment")
