"""_fairshuf_build -- the package's PEP 517 build backend: setuptools'
own (setuptools.build_meta) whenever the `wheel` package is importable,
and otherwise a small fallback so that `pip install --no-build-isolation`
works offline on an interpreter that has setuptools but not `wheel` (a
fresh venv of Debian's python3 has exactly pip and setuptools; setuptools
before 70 needs `wheel` for its bdist_wheel).

The fallback builds with `setup.py build` (the same extension, sources and
flags) and writes the wheel itself: the built files, and a .dist-info
(METADATA from pyproject.toml, WHEEL, top_level.txt, RECORD) as PEP 427
and the core metadata specification 2.1 describe.  No cryptography and no
network is involved: it is a zip file with hashes of its members."""
import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

from setuptools import build_meta as _st

HERE = os.path.dirname(os.path.abspath(__file__))

build_sdist = _st.build_sdist
get_requires_for_build_sdist = _st.get_requires_for_build_sdist


def _have_wheel():
    try:
        import wheel  # noqa: F401
    except ImportError:
        return False
    return True


def get_requires_for_build_wheel(config_settings=None):
    return _st.get_requires_for_build_wheel(config_settings) if _have_wheel() else []


def _version():
    """The version as setup.py reads it: FS_VERSION_STRING of fairshuf.h."""
    root = os.path.join(HERE, "csrc")
    if not os.path.isdir(root):
        root = os.path.dirname(HERE)
    with open(os.path.join(root, "include", "fairshuf.h")) as header:
        for line in header:
            if line.startswith("#define FS_VERSION_STRING"):
                return line.split('"')[1]
    return "0.0.0"


def _metadata():
    from setuptools.config.pyprojecttoml import read_configuration

    p = read_configuration(os.path.join(HERE, "pyproject.toml"))["project"]
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + _version(),
             "Summary: " + p.get("description", "")]
    for a in p.get("authors", []):
        lines.append("Author: " + a["name"])
    if "license" in p:
        lines.append("License: " + p["license"].get("text", ""))
    if p.get("keywords"):
        lines.append("Keywords: " + ",".join(p["keywords"]))
    lines += ["Classifier: " + c for c in p.get("classifiers", [])]
    lines.append("Requires-Python: " + p.get("requires-python", ">=3"))
    lines += ["Requires-Dist: " + d for d in p.get("dependencies", [])]
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s ; extra == "%s"' % (d, extra) for d in deps]
    readme = os.path.join(HERE, p.get("readme", "README.md"))
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return p["name"], _version(), "\n".join(lines) + "\n\n" + body


def _tag():
    impl = "cp%d%d" % sys.version_info[:2]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (impl, impl, plat)


def _dist_info(directory, name, version, metadata):
    info = os.path.join(directory, "%s-%s.dist-info" % (name, version))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata)
    with open(os.path.join(info, "WHEEL"), "w") as f:
        f.write("Wheel-Version: 1.0\nGenerator: _fairshuf_build\n"
                "Root-Is-Purelib: false\nTag: %s\n" % _tag())
    with open(os.path.join(info, "top_level.txt"), "w") as f:
        f.write(name + "\n")
    lic = os.path.join(HERE, "LICENSE")
    if os.path.exists(lic):
        shutil.copy2(lic, os.path.join(info, "LICENSE"))
    return os.path.basename(info)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    if _have_wheel():
        return _st.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    name, version, metadata = _metadata()
    return _dist_info(metadata_directory, name, version, metadata)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if _have_wheel():
        return _st.build_wheel(wheel_directory, config_settings, metadata_directory)
    name, version, metadata = _metadata()
    with tempfile.TemporaryDirectory() as tmp:
        lib = os.path.join(tmp, "lib")
        subprocess.run([sys.executable, "setup.py", "-q", "build", "--build-base",
                        os.path.join(tmp, "build"), "--build-lib", lib], cwd=HERE,
                       check=True, stdout=subprocess.DEVNULL)
        info = _dist_info(lib, name, version, metadata)
        wheel_name = "%s-%s-%s.whl" % (name, version, _tag())
        records = []
        path = os.path.join(wheel_directory, wheel_name)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for root, dirs, files in os.walk(lib):
                dirs.sort()
                for fn in sorted(files):
                    full = os.path.join(root, fn)
                    arc = os.path.relpath(full, lib).replace(os.sep, "/")
                    with open(full, "rb") as f:
                        data = f.read()
                    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                    records.append((arc, "sha256=" + digest.rstrip(b"=").decode(), len(data)))
                    z.writestr(arc, data)
            out = io.StringIO()
            w = csv.writer(out, lineterminator="\n")
            w.writerows(records)
            w.writerow((info + "/RECORD", "", ""))
            z.writestr(info + "/RECORD", out.getvalue())
    return wheel_name
