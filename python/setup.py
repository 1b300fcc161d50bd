"""Build the fairshuf Python package: one C extension (fairshuf._core) that
compiles libfairshuf's own sources with the thin binding in
fairshuf/_core.c, so `pip install --no-build-isolation ./python` works from
a clean clone, offline, with Debian's python3-dev, python3-setuptools,
python3-wheel, libsodium-dev, zlib1g-dev and libzstd-dev (`make python` does the same in place).
The C sources are ../lib and ../include in the repository, csrc/lib and
csrc/include in the sdist (`make sdist` stages them: an sdist cannot hold
paths outside its folder).  Metadata: pyproject.toml."""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext
from setuptools.command.sdist import sdist as _sdist

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "csrc")
if not os.path.isdir(ROOT):
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



class build_ext(_build_ext):
    """Compiles the ~80 C files on every CPU (build_ext -j) unless told
    otherwise: an install from the sdist compiles all of libfairshuf."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


class sdist(_sdist):
    """An sdist that carries the C sources: built from the repository, it
    copies ../lib and ../include into csrc/ of the release tree (and drops
    the ../ paths setuptools would list for the extension)."""

    def add_defaults(self):
        super().add_defaults()
        self.filelist.files = [f for f in self.filelist.files if not f.startswith("..")]

    def make_release_tree(self, base_dir, files):
        # never a ../ path: base_dir/../lib would be python/lib, a stray copy
        files = [f for f in files if not f.startswith("..")]
        super().make_release_tree(base_dir, files)
        if ROOT == os.path.join(HERE, "csrc"):
            return  # an sdist of an sdist: MANIFEST.in took csrc/ along
        for sub in ("lib", "include"):
            for path in glob.glob(os.path.join(ROOT, sub, "**", "*.[ch]"), recursive=True):
                dest = os.path.join(base_dir, "csrc", os.path.relpath(path, ROOT))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copy2(path, dest)


setup(version=version, packages=["fairshuf"], include_package_data=False,
      package_data={"fairshuf": ["py.typed", "*.pyi"]}, ext_modules=[core],
      cmdclass={"sdist": sdist, "build_ext": build_ext})
