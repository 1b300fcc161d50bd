"""fairshuf.lines: the library's out-of-core line shuffle, equal to the
CLI for the same seed, and atomic: dst is untouched on any failure."""
import os
import stat

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
    with pytest.raises(OSError, match=r"^lines: input: Is a directory$"):
        fairshuf.lines(tmp_path, dst, seed="x")  # a directory is not readable as lines
    with pytest.raises(ValueError):
        fairshuf.lines(dst, dst, seed="")
    assert dst.read_bytes() == b"precious\n"
    assert sorted(os.listdir(tmp_path)) == ["keep.txt"]


# ---- issue 30 H1: lines(src, dst) follows `fairshuf lines -o`'s rules
# (before: a temp file was renamed over dst, whatever dst was) ----------

def _numbers(path, n=200):
    path.write_bytes(b"".join(b"%d\n" % i for i in range(n)))
    return sorted(path.read_bytes().splitlines())


def test_lines_into_a_fifo_writes_through(tmp_path):
    import threading

    src, fifo = tmp_path / "src", tmp_path / "fifo"
    want = _numbers(src)
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    assert fairshuf.lines(src, fifo, seed="fifo") == 200
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO
    assert sorted(got[0].splitlines()) == want
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "src"]


def test_lines_into_a_device_writes_through(tmp_path):
    src = tmp_path / "src"
    _numbers(src)
    before = os.stat("/dev/null")
    assert fairshuf.lines(src, "/dev/null", seed="dev") == 200
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_lines_through_a_symlink_replaces_its_target(tmp_path):
    src, real, link = tmp_path / "src", tmp_path / "real", tmp_path / "link"
    want = _numbers(src)
    real.write_bytes(b"old\n")
    os.chmod(real, 0o640)
    os.symlink("real", link)
    assert fairshuf.lines(src, link, seed="link") == 200
    assert os.path.islink(link) and os.readlink(link) == "real"
    assert sorted(real.read_bytes().splitlines()) == want
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real", "src"]


def test_lines_matches_the_cli_rules_for_a_symlink_onto_the_input(tmp_path, cli):
    src, link = tmp_path / "src", tmp_path / "link"
    want = _numbers(src)
    os.symlink("src", link)
    fairshuf.lines(link, link, seed="self")
    assert os.path.islink(link)
    assert sorted(src.read_bytes().splitlines()) == want
