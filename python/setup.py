"""Build the fairshuf Python package: one C extension (fairshuf._core) that
compiles libfairshuf's own sources (../lib) with the thin binding in
fairshuf/_core.c, so `pip install --no-build-isolation ./python` works from
a clean clone, offline, with Debian's python3-dev, python3-setuptools and
libsodium-dev, zlib1g-dev and libzstd-dev (`make python` does the same in
place)."""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def rel(path):
    return os.path.relpath(path, HERE)


lib_sources = sorted(glob.glob(os.path.join(ROOT, "lib", "**", "*.c"), recursive=True))
version = "0.0.0"
with open(os.path.join(ROOT, "include", "fairshuf.h")) as header:
    for line in header:
        if line.startswith("#define FS_VERSION_STRING"):
            version = line.split('"')[1]

core = Extension(
    "fairshuf._core",
    sources=[rel(os.path.join(HERE, "fairshuf", "_core.c"))] + [rel(p) for p in lib_sources],
    include_dirs=[rel(os.path.join(ROOT, "include")), rel(os.path.join(ROOT, "lib"))],
    define_macros=[("_GNU_SOURCE", None)],
    extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden", "-Wall", "-Wextra"],
    libraries=["sodium", "z", "zstd", "pthread", "m"],
)

setup(
    name="fairshuf",
    version=version,
    description="Fair, fast and verifiable shuffling (libfairshuf bindings)",
    packages=["fairshuf"],
    ext_modules=[core],
    python_requires=">=3.9",
)
