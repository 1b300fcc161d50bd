"""The package installs offline with Debian's pip and setuptools
(`pip install --no-build-isolation ./python`) and works from anywhere."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pip_install_offline_then_import(tmp_path, cli):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                    "--no-index", "--target", str(target), os.path.join(ROOT, "python")],
                   check=True, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    code = ("import fairshuf, sys; assert fairshuf.__file__.startswith(sys.argv[1]); "
            "print(' '.join(map(str, fairshuf.permutation(20, seed='inst'))))")
    out = subprocess.run([sys.executable, "-c", code, str(target)], cwd=str(tmp_path),
                         env={"PYTHONPATH": str(target), "PATH": os.environ["PATH"]},
                         check=True, stdout=subprocess.PIPE).stdout
    assert out == cli("perm", "20", "--seed=inst")
