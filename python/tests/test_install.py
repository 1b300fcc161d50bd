"""The package installs like a normal one (issue 26): an sdist that carries
the C sources it needs, installed offline into a fresh venv of Debian's
python3 (`pip install --no-build-isolation fairshuf-V.tar.gz`), imported
from elsewhere, gives the CLI's output.  Before: the sdist held no C
sources and the install failed (FileNotFoundError: .../fairshuf.h)."""
import os
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sdist_installs_offline_into_a_fresh_venv(tmp_path, cli):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(dist)],
                   cwd=os.path.join(ROOT, "python"), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (sdist,) = dist.glob("fairshuf-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for need in ("csrc/lib/keyed.c", "csrc/lib/keyed_batch.c", "csrc/include/fairshuf.h",
                 "csrc/lib/internal.h", "fairshuf/_core.c", "fairshuf/py.typed",
                 "fairshuf/__init__.pyi", "fairshuf/torch.pyi", "LICENSE", "pyproject.toml"):
        assert need in names, need
    venv = tmp_path / "venv"
    # Debian's interpreter; --system-site-packages lends it python3-numpy
    # (the declared dependency) and python3-wheel, with no network.
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index",
                    "--no-build-isolation", str(sdist)], check=True, cwd=str(tmp_path),
                   env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore",
                            PIP_DISABLE_PIP_VERSION_CHECK="1"))
    code = ("import fairshuf, sys; assert fairshuf.__file__.startswith(sys.argv[1]); "
            "print(' '.join(map(str, fairshuf.permutation(20, seed='inst'))))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code, str(venv)],
                         cwd=str(tmp_path), env={"PATH": os.environ["PATH"]},
                         check=True, stdout=subprocess.PIPE).stdout
    assert out == cli("perm", "20", "--seed=inst")
    meta = subprocess.run([str(venv / "bin" / "pip"), "show", "fairshuf"], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    assert "License: MIT" in meta and "Requires: numpy" in meta
