"""An untouched released notebook opens unmodified in JupyterLab (issue 41, "Smaller").

JupyterLab marks a notebook modified (and asks to save it on closing) as soon as its metadata changes. Once the
kernel is ready it writes the kernel's ``language_info`` and ``kernelspec`` into the notebook's metadata; the
shared model ignores a write of an equal value (``JSONExt.deepEqual``), so the release must already carry what
the course's kernel announces. It carried only ``{"name": "python"}`` (from ``solutions/``), so every released
notebook showed as modified before any edit. Checked here without a browser:

* the contents manager's load and save (what jupyter_server does when JupyterLab opens and saves the notebook)
  give back the file byte for byte;
* the metadata after JupyterLab's two writes (``_updateLanguage``, ``_updateSpec`` in
  ``@jupyterlab/notebook``'s panel) equals the release's. ``version`` is the Python patch release of the
  kernel (``sys.version``): the release records that of the course's environment (Python 3.11.7, as in CI); a
  kernel of another Python release still rewrites it, so it is not compared here (``tests/test_browser.py``
  checks the modified mark in JupyterLab when the versions agree).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RELEASES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("[0-9][0-9]_*/*.ipynb"))


def test_there_are_releases():
    assert len(RELEASES) == len([d for d in (ROOT / "solutions").glob("[0-9][0-9]_*") if d.is_dir()])


@pytest.mark.parametrize("path", RELEASES)
def test_contents_manager_round_trip_is_byte_for_byte(path, tmp_path):
    from jupyter_server.services.contents.filemanager import FileContentsManager

    model = FileContentsManager(root_dir=str(ROOT)).get(path, content=True, type="notebook")
    copy = FileContentsManager(root_dir=str(tmp_path))
    copy.save({"type": "notebook", "format": "json", "content": model["content"]}, "copy.ipynb")
    assert (tmp_path / "copy.ipynb").read_bytes() == (ROOT / path).read_bytes()


def _after_kernel_ready(metadata: dict) -> dict:
    """The notebook's metadata once JupyterLab has written what the course's kernel (``python3``) announces."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    return {**metadata, "language_info": dict(IPythonKernel.language_info),
            "kernelspec": {"name": "python3", "display_name": spec.display_name, "language": spec.language}}


@pytest.mark.parametrize("path", RELEASES)
def test_the_kernel_changes_no_metadata_of_a_release(path):
    metadata = json.loads((ROOT / path).read_text())["metadata"]
    after = _after_kernel_ready(metadata)
    ours, kernels = dict(metadata["language_info"]), dict(after["language_info"])
    assert ours.pop("version", "").count(".") == 2 and kernels.pop("version")  # a patch release (see above)
    assert ours == kernels, (f"{path}: JupyterLab would write the kernel's language_info {kernels} over "
                             f"{ours} and show the notebook as modified: set it in solutions/ and regenerate")
    assert metadata["kernelspec"] == after["kernelspec"]
    assert {**metadata, "language_info": None} == {**after, "language_info": None}


def test_solutions_and_releases_agree():
    for path in RELEASES:
        solution = ROOT / "solutions" / Path(path).relative_to("notebooks")
        assert json.loads(solution.read_text())["metadata"] == json.loads((ROOT / path).read_text())["metadata"]


def test_the_sites_notebooks_carry_the_same_metadata():
    """The notebooks the website offers (the class edition's releases, the self-study edition's executed copies)
    are given :data:`helpers.site.NOTEBOOK_METADATA`: the same as ``solutions/``, so they open unmodified too."""
    from helpers.site import NOTEBOOK_METADATA

    for path in RELEASES:
        assert json.loads((ROOT / path).read_text())["metadata"] == NOTEBOOK_METADATA, path
