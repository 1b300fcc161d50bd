"""The package installs like a normal one (issue 26): an sdist that carries
the C sources it needs, installed offline into a fresh venv of Debian's
python3 (`pip install --no-build-isolation fairshuf-V.tar.gz`), imported
from elsewhere, gives the CLI's output.  Before: the sdist held no C
sources and the install failed (FileNotFoundError: .../fairshuf.h)."""
import os
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# what the venv's own processes see: no PYTHONPATH (tests/run.sh sets one
# pointing at python/, which would shadow the installed package)
CLEAN = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
CLEAN.update(PIP_ROOT_USER_ACTION="ignore", PIP_DISABLE_PIP_VERSION_CHECK="1")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """The sdist, built once for the tests of this file."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(dist)],
                   cwd=os.path.join(ROOT, "python"), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (path,) = dist.glob("fairshuf-*.tar.gz")
    return path


def test_sdist_carries_the_c_sources(sdist):
    # the staging never leaves a copy of ../lib behind in python/
    assert not os.path.exists(os.path.join(ROOT, "python", "lib"))
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for need in ("csrc/lib/keyed.c", "csrc/lib/keyed_batch.c", "csrc/include/fairshuf.h",
                 "csrc/lib/internal.h", "fairshuf/_core.c", "fairshuf/py.typed",
                 "fairshuf/__init__.pyi", "fairshuf/torch.pyi", "LICENSE", "pyproject.toml"):
        assert need in names, need


# Each install compiles the library (about 20 s of CPU here): `make check`
# installs once, into the bare venv below (the fallback backend, what a
# fresh venv of Debian's python3 takes); this one, through setuptools' own
# backend, runs under FS_TEST_LONG=1 (make check-long; CI runs it).
@pytest.mark.skipif(not os.environ.get("FS_TEST_LONG"),
                    reason="a second compile of the library: FS_TEST_LONG=1")
def test_sdist_installs_offline_into_a_fresh_venv(tmp_path, sdist, cli):
    venv = tmp_path / "venv"
    # Debian's interpreter; --system-site-packages lends it python3-numpy
    # (the declared dependency) and python3-wheel, with no network.
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index",
                    "--no-build-isolation", str(sdist)], check=True, cwd=str(tmp_path),
                   env=CLEAN)
    code = ("import fairshuf, sys; assert fairshuf.__file__.startswith(sys.argv[1]); "
            "print(' '.join(map(str, fairshuf.permutation(20, seed='inst'))))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code, str(venv)],
                         cwd=str(tmp_path), env={"PATH": os.environ["PATH"]},
                         check=True, stdout=subprocess.PIPE).stdout
    assert out == cli("perm", "20", "--seed=inst")
    meta = subprocess.run([str(venv / "bin" / "pip"), "show", "fairshuf"], check=True,
                          env=CLEAN, stdout=subprocess.PIPE, text=True).stdout
    assert "License: MIT" in meta and "Requires: numpy" in meta


def test_sdist_installs_without_the_wheel_package(tmp_path, sdist, cli):
    """A venv with pip and setuptools only (no `wheel`, no numpy): the
    package's backend (_fairshuf_build.py) writes the wheel itself.  Before:
    pip failed ("invalid command 'bdist_wheel'")."""
    venv = tmp_path / "bare"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    assert subprocess.run([py, "-c", "import wheel"], env=CLEAN,
                          stderr=subprocess.DEVNULL).returncode
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", "--no-deps",
                    "--no-build-isolation", str(sdist)], check=True, cwd=str(tmp_path),
                   env=CLEAN)
    # imported from the venv, not the source tree; the CLI's permutation (no
    # numpy here: one index at a time)
    code = ("import fairshuf, sys; assert fairshuf.__file__.startswith(sys.argv[1]); "
            "print(fairshuf.__version__, fairshuf.generators()[0]); "
            "p = fairshuf.KeyedPermutation(20, 'inst'); print(*(p[i] for i in range(20)))")
    out = subprocess.run([py, "-c", code, str(venv)], cwd=str(tmp_path), env=CLEAN,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    first, perm = out.split("\n")[:2]
    assert first.split()[1] == "chacha20"
    assert perm.split() == cli("perm", "20", "--lazy", "--seed=inst").decode().split()
    files = subprocess.run([str(venv / "bin" / "pip"), "show", "-f", "fairshuf"], check=True,
                           env=CLEAN, stdout=subprocess.PIPE, text=True).stdout
    assert "Location: " + str(venv) in files
    for need in ("fairshuf/py.typed", "fairshuf/__init__.pyi", "RECORD", "License: MIT",
                 "Requires: numpy"):
        assert need in files, need
