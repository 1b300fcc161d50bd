"""fairshuf.lines: the library's out-of-core line shuffle, equal to the
CLI for the same seed, and atomic: dst is untouched on any failure."""
import os

import pytest

import fairshuf


@pytest.fixture
def text(tmp_path):
    src = tmp_path / "in.txt"
    src.write_bytes(b"".join(b"line %d\n" % i for i in range(20000)))
    return src


def test_equals_the_cli(cli, text, tmp_path):
    dst = tmp_path / "out.txt"
    assert fairshuf.lines(text, dst, seed="L") == 20000
    assert dst.read_bytes() == cli("lines", "--seed=L", str(text))


def test_out_of_core_gives_the_same_bytes(cli, text, tmp_path):
    dst = tmp_path / "out.txt"
    fairshuf.lines(text, dst, seed="L", memory=64 * 1024, tmpdir=tmp_path)
    assert dst.read_bytes() == cli("lines", "--seed=L", str(text))
    assert sorted(os.listdir(tmp_path)) == ["in.txt", "out.txt"]


def test_head(cli, text, tmp_path):
    dst = tmp_path / "out.txt"
    assert fairshuf.lines(text, dst, seed="L", head=7) == 7
    assert dst.read_bytes() == cli("lines", "--seed=L", "-n", "7", str(text))


def test_in_place_and_mode_kept(text):
    before = sorted(text.read_bytes().splitlines())
    os.chmod(text, 0o640)
    fairshuf.lines(text, text, seed="x")
    assert sorted(text.read_bytes().splitlines()) == before
    assert os.stat(text).st_mode & 0o777 == 0o640


def test_failure_leaves_dst_untouched_and_no_temp_file(tmp_path):
    dst = tmp_path / "keep.txt"
    dst.write_bytes(b"precious\n")
    with pytest.raises(FileNotFoundError):
        fairshuf.lines(tmp_path / "missing", dst, seed="x")
    with pytest.raises(IsADirectoryError if False else OSError):
        fairshuf.lines(tmp_path, dst, seed="x")  # a directory is not readable as lines
    with pytest.raises(ValueError):
        fairshuf.lines(dst, dst, seed="")
    assert dst.read_bytes() == b"precious\n"
    assert sorted(os.listdir(tmp_path)) == ["keep.txt"]
