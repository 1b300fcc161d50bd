"""Shared fixtures: the fairshuf CLI binary (FS_BIN, set by tests/run.sh)
for cross-checks between the Python package and the command line."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("FS_BIN", os.path.join(ROOT, "build", "fairshuf"))
    assert os.access(path, os.X_OK), "build the CLI first (make): %s" % path

    def run(*args, stdin=None):
        return subprocess.run([path, *args], input=stdin, check=True,
                              stdout=subprocess.PIPE).stdout
    return run
