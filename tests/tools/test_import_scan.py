"""tools/import_scan.py on tiny wheels written here (a fake dependent ``depa``, a fake dependency ``libb``): no network."""

from __future__ import annotations

import io
import json
import re
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tools import import_scan as scan_tool
from tools.regenerate_declared import INDEX, recording

FILES = "https://files.example/"

# libb: 0.9.0 before the dependency window (2021), then 1.0.0, 1.1.0, 1.2.0
_LAZY = "from ..utils import _LazyModule\n_import_structure = {'x': ['lazy_name']}\n"
_STAR = "from os.path import *\n"
_DYN = "def __getattr__(name):\n    return name\n"
# libb.extra from 1.1.0: it also has the names depa imports only conditionally or from an unimported module
_EXTRA = "guarded = typed = inside = never_imported = 1\n"
# before 1.1.0 the lazy, star and __getattr__ modules bind their names plainly; from 1.1.0 they do not (had
# they been read as plain modules, depa would get rows ``libb<1.1.0``)
_PLAIN = {
    "libb/lazy.py": "lazy_name = 1\n",
    "libb/star.py": "anything = 1\n",
    "libb/dyn.py": "whatever = 1\n",
}
_OPAQUE = {"libb/lazy.py": _LAZY, "libb/star.py": _STAR, "libb/dyn.py": _DYN}
LIBB = {
    "0.9.0": {
        "libb/__init__.py": "",
        "libb/core.py": "def old_fn(): ...\n",
        **_PLAIN,
    },
    "1.0.0": {
        "libb/__init__.py": "",
        "libb/core.py": "def old_fn(): ...\n",
        "libb/pre2022.py": "oldthing = 1\n",
        **_PLAIN,
    },
    "1.1.0": {
        "libb/__init__.py": "",
        # bound only inside try/except: still there
        "libb/core.py": "try:\n    from fast import old_fn\nexcept ImportError:\n    def old_fn(): ...\n",
        "libb/pre2022.py": "oldthing = 1\n",
        "libb/extra.py": "if True:\n    new_fn = None\n" + _EXTRA,
        **_OPAQUE,
    },
    "1.2.0": {
        "libb/__init__.py": "",
        "libb/core.py": "def other(): ...\n",  # old_fn removed
        "libb/pre2022.py": "oldthing = 1\n",
        "libb/extra.py": "new_fn: object = None\n" + _EXTRA,
        **_OPAQUE,
    },
}
LIBB_DATES = {"0.9.0": "2021-06-01", "1.0.0": "2022-02-01", "1.1.0": "2022-06-01", "1.2.0": "2022-10-01"}

_DEPA_A = """\
from typing import TYPE_CHECKING
from libb.core import old_fn
from libb.lazy import lazy_name
from libb.star import anything
from libb.dyn import whatever
from libb.pre2022 import oldthing
from .sub import thing
try:
    from libb.extra import guarded
except ImportError:
    guarded = None
if TYPE_CHECKING:
    from libb.extra import typed
def f():
    from libb.extra import inside
"""
_DEPA_SUB = "from depa.sub.deep import thing\n"
_DEPA_DEEP = "import os\nfrom libb.extra import new_fn\nthing = 1\n"
_DEPA_UNUSED = "from libb.extra import never_imported\n"
DEPA = {
    version: {
        "depa/__init__.py": "from .a import f\n",
        "depa/a.py": _DEPA_A if version != "1.2.0" else _DEPA_A.replace("from libb.core import old_fn\n", ""),
        "depa/sub/__init__.py": _DEPA_SUB,
        "depa/sub/deep.py": _DEPA_DEEP,
        "depa/unused.py": _DEPA_UNUSED,
    }
    for version in ("1.0.0", "1.1.0", "1.2.0")
}
DEPA_DATES = {"1.0.0": "2023-02-01", "1.1.0": "2023-05-01", "1.2.0": "2023-09-01"}


def _wheel(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, text in files.items():
            archive.writestr(path, text)
        archive.writestr("x.dist-info/METADATA", "Metadata-Version: 2.1\n")
    return buffer.getvalue()


def _pypi(name: str, trees: dict[str, dict[str, str]], dates: dict[str, str]) -> dict[str, bytes]:
    served: dict[str, bytes] = {}
    releases = {}
    for version, tree in trees.items():
        body = _wheel(tree)
        url = f"{FILES}{name}-{version}-py3-none-any.whl"
        served[url] = body
        releases[version] = [
            {
                "filename": f"{name}-{version}-py3-none-any.whl",
                "url": url,
                "size": len(body),
                "upload_time_iso_8601": f"{dates[version]}T00:00:00Z",
            }
        ]
    served[INDEX.format(name=name)] = json.dumps({"releases": releases}).encode()
    return served


@pytest.fixture(scope="module")
def served() -> dict[str, bytes]:
    return {**_pypi("depa", DEPA, DEPA_DATES), **_pypi("libb", LIBB, LIBB_DATES)}


def _fetch(served: dict[str, bytes]) -> scan_tool.Fetch:
    def fetch(url: str, span: tuple[int, int] | None) -> bytes | None:
        body = served.get(url)
        if body is None or span is None:
            return body
        return body[span[0] : span[1] + 1]

    return fetch


def _run(served: dict[str, bytes], declared: scan_tool.Declared | None = None) -> list[dict]:
    data = scan_tool.scan(
        _fetch(served),
        [("depa", "libb")],
        "2023-01-01",
        "2022-01-01",
        "2026-01-01",
        declared=declared or (lambda dist, version, dep: None),
        workers=2,
    )
    assert data["pairs"] == [
        {
            "dependent": "depa",
            "dependency": "libb",
            "dependent_releases": 3,
            "dependency_releases": ["0.9.0", "1.0.0", "1.1.0", "1.2.0"],
        }
    ]
    return data["rows"]


def _by_name(rows: list[dict]) -> dict[str, dict]:
    return {row["name"]: row for row in rows}


def test_removal_gives_an_upper_bound_and_an_addition_a_lower_one(served: dict[str, bytes]) -> None:
    rows = _by_name(_run(served))
    # only the unconditional, reachable imports whose name some sampled libb lacks: not those under try, if
    # TYPE_CHECKING or def, nor depa.unused's (never imported); not oldthing (missing only in 0.9.0, of 2021);
    # not the names of the lazy, star and __getattr__ modules (counted present)
    assert set(rows) == {"old_fn", "new_fn"}
    old = rows["old_fn"]
    # removed in 1.2.0; merged over depa 1.0.0 and 1.1.0; until the release that stopped importing it
    assert (old["requirement"], old["since"], old["until"]) == ("libb<1.2.0", "1.0.0", "1.2.0")
    assert old["message"] == r"cannot import name 'old_fn' from 'libb\.core'"
    assert old["source"] == "https://pypi.org/project/depa/1.0.0/"  # no tag pattern known for depa
    new = rows["new_fn"]
    # transitive: depa -> .a -> .sub (package) -> depa.sub.deep; libb.extra first in 1.1.0
    assert (new["requirement"], new["since"], new["until"]) == ("libb>=1.1.0.dev0", "1.0.0", None)
    assert new["module"] == "libb.extra"
    assert new["message"] == r"No module named 'libb\.extra'"  # the module itself is missing below 1.1.0


def test_a_declared_requirement_drops_the_row(served: dict[str, bytes]) -> None:
    def declared(dist: str, version: str, dep: str) -> list[Requirement] | None:
        return [Requirement("libb>=1.1")] if (dist, version, dep) == ("depa", "1.2.0", "libb") else None

    rows = _by_name(_run(served, declared))
    assert (rows["new_fn"]["since"], rows["new_fn"]["until"]) == ("1.0.0", "1.2.0")


def test_unconditional_imports_only() -> None:
    modules, names = scan_tool.unconditional_imports(_DEPA_A, "depa.a", is_package=False)
    assert ("depa.sub", "thing", 7) in names
    assert "typing" in modules and "depa.sub" in modules
    imported = {name for _, name, _ in names}
    assert not imported & {"guarded", "typed", "inside"}
    assert {"old_fn", "lazy_name", "oldthing"} <= imported


@pytest.mark.parametrize(
    ("current", "is_package", "level", "module", "expected"),
    [
        ("depa.a", False, 1, "sub", "depa.sub"),
        ("depa.sub", True, 1, "deep", "depa.sub.deep"),
        ("depa.sub.deep", False, 2, None, "depa"),
        ("depa.sub", True, 2, "a", "depa.a"),
        ("depa", True, 3, "x", None),  # beyond the top-level package
        ("depa.a", False, 0, "libb.core", "libb.core"),
    ],
)
def test_relative_imports(current: str, is_package: bool, level: int, module: str | None, expected: str | None) -> None:
    assert scan_tool._resolve(current, is_package, level, module) == expected


def test_reachability_is_transitive_and_skips_unimported_modules() -> None:
    tree = DEPA["1.0.0"]
    asked: list[list[str]] = []

    def read(paths: list[str]) -> dict[str, str]:
        asked.append(paths)
        return {p: tree[p] for p in paths}

    found = scan_tool.reachable_imports("depa", tree, read, ["libb"])
    assert {(i.module, i.name) for i in found} == {
        ("libb.core", "old_fn"),
        ("libb.lazy", "lazy_name"),
        ("libb.star", "anything"),
        ("libb.dyn", "whatever"),
        ("libb.pre2022", "oldthing"),
        ("libb.extra", "new_fn"),
    }
    assert all("depa/unused.py" not in batch for batch in asked)
    assert asked[0] == ["depa/__init__.py"]  # one batch per level of the walk


@pytest.mark.parametrize(
    ("source", "name", "expected"),
    [
        ("def f(): ...\n", "f", True),
        ("def f(): ...\n", "g", False),
        ("try:\n    import x as g\nexcept ImportError:\n    g = None\n", "g", True),
        ("if A:\n    class g: ...\nelse:\n    pass\n", "g", True),
        ("with open(p) as (a, g):\n    pass\n", "g", True),
        ("for g in range(3):\n    pass\n", "g", True),
        ("g: int = 1\n", "g", True),
        ("def f():\n    g = 1\n", "g", False),  # a function's local
        ("class C:\n    g = 1\n", "g", False),  # a class attribute
        ("from .m import *\n", "g", True),  # star import: unknown
        ("def __getattr__(name): ...\n", "g", True),  # module __getattr__: unknown
        ("_LazyModule(__name__, {'m': ['g']})\n", "g", True),  # lazy: mentioned
        ("_LazyModule(__name__, {'m': ['gg']})\n", "g", False),  # lazy: not mentioned
        ("x = define_import_structure(p)\n_LazyModule(__name__, x)\n", "g", None),  # other files may export it
        ("def (:\n", "g", True),  # unparsable: unknown
    ],
)
def test_has_name(source: str, name: str, expected: bool | None) -> None:
    assert scan_tool.has_name(source, name) is expected


def test_a_module_missing_only_where_its_package_exists() -> None:
    def read(path: str) -> str | None:
        return "x = 1\n"

    members = {"libb/__init__.py", "libb/m.py", "libb/pkg/__init__.py", "libb/pkg/sub.py"}
    assert scan_tool.missing_kind(members, read, "libb.gone", "x") == "module"
    assert scan_tool.missing_kind(members, read, "libb.m", "y") == "name"
    assert scan_tool.missing_kind(members, read, "libb.m", "x") is None
    assert scan_tool.missing_kind(members, read, "libb.pkg", "sub") is None  # a submodule
    assert scan_tool.missing_kind({"other/__init__.py"}, read, "libb.m", "x") is None  # no libb/: unknown


def test_an_unmentioned_name_is_missing_only_where_it_came_from_outside_the_folders_read() -> None:
    # transformers 4.57 lists HybridCache, imported from .cache_utils; 5.0 reads only models/ and drops it
    assert scan_tool.settle(["module", "from:cache_utils", "unmentioned:models"]) == ["module", None, "name"]
    # AutoModel came from .models.auto: 4.52 reads it from models/ without naming it
    assert scan_tool.settle(["from:models", "unmentioned:models"]) == [None, None]
    assert scan_tool.settle(["from:cache_utils", "unmentioned:*"]) == [None, None]  # any file
    assert scan_tool.settle([None, "unmentioned:models"]) == [None, None]  # origin unknown
    assert scan_tool.settle(["unmentioned:models"]) == [None]  # never seen


def test_lazy_module_origins() -> None:
    old = (
        "from .utils import _LazyModule\n_import_structure = {'cache_utils': ['HybridCache']}\n"
        "if TYPE_CHECKING:\n    from .cache_utils import HybridCache\n    from .models.auto import AutoModel\n"
        "else:\n    x = define_import_structure(Path(__file__).parent / 'models', prefix='models')\n"
    )
    members = {"tf/__init__.py"}
    assert scan_tool.missing_kind(members, lambda p: old, "tf", "HybridCache") == "from:cache_utils"
    assert scan_tool.missing_kind(members, lambda p: old, "tf", "AutoModel") == "from:models"
    new = old.replace("HybridCache", "Other").replace("AutoModel", "Else")
    assert scan_tool.missing_kind(members, lambda p: new, "tf", "HybridCache") == "unmentioned:models"


@pytest.mark.parametrize(
    ("missing", "expected"),
    [
        ({"1.0.3"}, "libb>=1.1.0.dev0"),
        ({"1.0.3", "1.1.2"}, "libb>=1.2.0.dev0"),
        ({"1.3.0"}, "libb<1.3.0"),
        ({"1.1.2"}, "libb!=1.1.*"),
        ({"1.0.3", "1.2.1"}, "libb>=1.1.0.dev0,!=1.2.*"),
        ({"1.0.3", "1.2.1", "1.3.0"}, "libb>=1.1.0.dev0,<1.2.0"),
        (set(), None),
        ({"1.0.3", "1.1.2", "1.2.1", "1.3.0"}, None),
    ],
)
def test_requirement_for(missing: set[str], expected: str | None) -> None:
    assert scan_tool.requirement_for("libb", ["1.0.3", "1.1.2", "1.2.1", "1.3.0"], missing) == expected


def test_message_is_what_cpython_prints() -> None:
    pattern = scan_tool.message_for("libb.core", "old_fn", {"name", "module"})
    assert re.search(pattern, "ImportError: cannot import name 'old_fn' from 'libb.core' (/x/libb/core.py)")
    assert re.search(pattern, "ModuleNotFoundError: No module named 'libb.core'")
    assert not re.search(pattern, "cannot import name 'old_fn' from 'libbXcore' (/x)")  # dots escaped


def test_merge_breaks_on_a_different_requirement() -> None:
    def finding(version: str, requirement: str) -> scan_tool.Finding:
        return scan_tool.Finding("depa", version, "libb", "libb.m", "x", requirement, "m", f"s{version}")

    rows = scan_tool.merge_rows(
        "depa",
        ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0"],
        [
            finding("1.0.0", "libb>=1"),
            finding("1.1.0", "libb>=1"),
            finding("1.2.0", "libb>=2"),
            finding("1.4.0", "libb>=2"),
        ],
    )
    assert [(r["since"], r["until"], r["requirement"], r["source"]) for r in rows] == [
        ("1.0.0", "1.2.0", "libb>=1", "s1.0.0"),
        ("1.2.0", "1.3.0", "libb>=2", "s1.2.0"),
        ("1.4.0", None, "libb>=2", "s1.4.0"),
    ]


def test_sample_takes_each_minors_newest_patch_and_the_minor_before() -> None:
    releases = {
        "0.8.0": ("2020-01-01", "", 0),
        "0.9.0": ("2021-06-01", "", 0),
        "0.9.1": ("2022-03-01", "", 0),  # a patch after the date: the minor began before it
        "1.0.0": ("2022-02-01", "", 0),
        "1.0.1": ("2022-02-09", "", 0),
    }
    assert scan_tool.sample(releases, "2022-01-01") == ["0.9.1", "1.0.1"]


def test_the_cli_replays_recorded_responses(served: dict[str, bytes], tmp_path: Path) -> None:
    """``--record`` saves every response; ``--offline`` reads them back and writes the same rows."""
    recorded = tmp_path / "responses"
    live = scan_tool.scan(
        recording(_fetch(served), recorded),
        [("depa", "libb")],
        "2023-01-01",
        "2022-01-01",
        "2026-01-01",
        declared=lambda dist, version, dep: None,
    )
    out = tmp_path / "import_scan.json"
    args = ["--offline", str(recorded), "--pairs", "depa:libb", "--date", "2026-01-01", "--out", str(out)]
    assert scan_tool.main(args) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == live
    assert scan_tool.main([*args[:1], str(tmp_path / "empty"), *args[2:]]) == 2  # nothing recorded: an error


# ---- source archives, ZIP64 directories and torch as the dependency ---------------------
def _as_zip64(data: bytes, comment: bytes = b"") -> bytes:
    """``data`` (a zip ``zipfile`` wrote) with a ZIP64 directory: every entry's sizes and offset in its ZIP64
    extra field (the 32-bit fields full), and a ZIP64 end record and locator before an end record whose
    counts, size and offset are full, as a writer does past 65,535 entries or 4 GiB.
    """
    end = data.rfind(b"PK\x05\x06")
    count, _cd_size, cd_offset = struct.unpack("<HII", data[end + 10 : end + 20])
    entries, at = [], cd_offset
    for _ in range(count):
        head = bytearray(data[at : at + 46])
        compressed, uncompressed = struct.unpack("<II", head[20:28])
        name_len, extra_len, comment_len = struct.unpack("<HHH", head[28:34])
        offset = struct.unpack("<I", head[42:46])[0]
        rest = data[at + 46 : at + 46 + name_len + extra_len + comment_len]
        extra = struct.pack("<HHQQQ", 1, 24, uncompressed, compressed, offset)
        head[20:28] = struct.pack("<II", 0xFFFFFFFF, 0xFFFFFFFF)
        head[30:32] = struct.pack("<H", extra_len + len(extra))
        head[42:46] = struct.pack("<I", 0xFFFFFFFF)
        name, old_extra = rest[:name_len], rest[name_len : name_len + extra_len]
        entries.append(bytes(head) + name + old_extra + extra + rest[name_len + extra_len :])
        at += 46 + name_len + extra_len + comment_len
    directory = b"".join(entries)
    record_at = cd_offset + len(directory)
    record = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(directory), cd_offset)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, record_at, 1)
    last = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, len(comment))
    return data[:cd_offset] + directory + record + locator + last + comment


@pytest.mark.parametrize("comment", [b"", b"c" * 65000], ids=["end-record-in-the-tail", "read-by-range"])
def test_a_zip64_directory_is_read(comment: bytes) -> None:
    files = {"torch/__init__.py": "", "torch/m.py": "x = 1\n" * 500, "torch/n.py": "y = 2\n"}
    body = _as_zip64(_wheel(files), comment)
    assert zipfile.ZipFile(io.BytesIO(body)).read("torch/m.py") == files["torch/m.py"].encode()  # a valid ZIP64
    url = f"{FILES}torch.whl"
    asked: list[tuple[int, int] | None] = []

    def fetch(u: str, span: tuple[int, int] | None) -> bytes | None:
        asked.append(span)
        return body if span is None else body[span[0] : span[1] + 1]

    wheel = scan_tool.Wheel(fetch, url, len(body))
    assert {"torch/m.py", "torch/n.py", "x.dist-info/METADATA"} <= wheel.members
    assert wheel.read(["torch/m.py", "torch/n.py"]) == {"torch/m.py": files["torch/m.py"], "torch/n.py": "y = 2\n"}
    assert None not in asked  # byte ranges only, never the whole file
    # the one reader both tools share (regenerate_declared's) reads the ZIP64 fields, not the full 32-bit ones
    from tools.regenerate_declared import zip_directory, zip_members

    offsets = [offset for *_, offset in zip_members(zip_directory(fetch, url, len(body)) or b"")]
    assert offsets and all(offset < len(body) for offset in offsets)


def _sdist(top: str, files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in {**files, "setup.py": "", "PKG-INFO": ""}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo(f"{top}/depd/linked.py")
        link.type, link.linkname = tarfile.SYMTYPE, "../setup.py"
        tar.addfile(link)
    return buffer.getvalue()


def test_a_source_archive_is_read_as_a_wheel_would_be() -> None:
    body = _sdist(
        "DepD-1.0.0", {"depd/__init__.py": "from .m import x\n", "depd/m.py": "x = 1\n", "src/o/__init__.py": ""}
    )
    url = f"{FILES}depd-1.0.0.tar.gz"
    sdist = scan_tool.archive(lambda u, span: body if (u, span) == (url, None) else None, url, len(body))
    assert isinstance(sdist, scan_tool.Sdist)
    assert {"depd/__init__.py", "depd/m.py", "o/__init__.py", "setup.py", "PKG-INFO"} == sdist.members  # no link
    assert sdist.read(["depd/m.py", "depd/gone.py"]) == {"depd/m.py": "x = 1\n"}
    assert scan_tool.sdist_path("deepspeed-0.9.0/deepspeed/ops/__init__.py") == "deepspeed/ops/__init__.py"
    assert scan_tool.sdist_path("pkg-1.0/src/pkg/a.py") == "pkg/a.py"
    with pytest.raises(scan_tool.RegenerateError):
        scan_tool.archive(lambda u, span: b"not a tar", url, 9)


@pytest.mark.parametrize(
    ("filenames", "expected"),
    [
        (["a-1.0.tar.gz", "a-1.0-py3-none-any.whl"], "a-1.0-py3-none-any.whl"),
        (["a-1.0.tar.gz"], "a-1.0.tar.gz"),
        (
            [
                "torch-2.0.1-cp310-cp310-manylinux1_x86_64.whl",
                "torch-2.0.1-cp311-cp311-manylinux1_x86_64.whl",
                "torch-2.0.1-cp311-cp311-manylinux2014_aarch64.whl",
                "torch-2.0.1-cp311-none-macosx_11_0_arm64.whl",
            ],
            "torch-2.0.1-cp311-cp311-manylinux1_x86_64.whl",
        ),
        (["torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl"], "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64.whl"),
        (
            ["b-0.45.0-py3-none-manylinux_2_24_x86_64.whl", "b-0.45.0.tar.gz"],
            "b-0.45.0-py3-none-manylinux_2_24_x86_64.whl",
        ),
        (["t-0.9.0-cp39-abi3-manylinux_2_28_x86_64.whl"], "t-0.9.0-cp39-abi3-manylinux_2_28_x86_64.whl"),
        (["t-0.9.0-cp39-abi3-win_amd64.whl"], None),
    ],
)
def test_the_release_file_read(filenames: list[str], expected: str | None) -> None:
    files = [{"filename": f, "url": f, "size": 1, "upload_time_iso_8601": "2023-01-01T00:00:00Z"} for f in filenames]
    found = scan_tool.releases(FILES, {"releases": {"1.0": files}})
    assert (found["1.0"][1] if found else None) == (None if expected is None else FILES + expected)


# a torch of three minors (1.12 before the window, 1.13, 2.0, 2.1), in cp311 wheels with ZIP64 directories
_TORCH_COMMON = {
    "torch/__init__.py": "import sys\nfrom torch._C import *\nsys.modules['torch.fx.made'] = None\n",
    "torch/_C.cpython-311-x86_64-linux-gnu.so": "",
    "torch/_C/__init__.pyi": "",
    "torch/star.py": "from torch._C._star import *\n",
    "torch/dyn.py": "def __getattr__(name):\n    raise AttributeError(name)\n",
    "torch/glob.py": "for _n in ['a', 'b']:\n    globals()[_n] = _n\n",
    "torch/ext.cpython-311-x86_64-linux-gnu.so": "",
    # torch.fx.made: put in sys.modules by its parent until 2.1, a file from 2.1
    "torch/fx/__init__.py": "import sys\nfrom .graph import Graph\nsys.modules[__name__ + '.made'] = Graph\n",
    "torch/fx/graph.py": "class Graph: ...\n",
}
TORCH = {
    "1.12.1": {**_TORCH_COMMON, "torch/_six.py": "inf = 1\n", "torch/plain.py": "gone = 1\nkept = 1\n"},
    "1.13.1": {**_TORCH_COMMON, "torch/_six.py": "inf = 1\n", "torch/plain.py": "gone = 1\nkept = 1\n"},
    "2.0.1": {**_TORCH_COMMON, "torch/plain.py": "kept = 1\n"},
    "2.1.2": {
        **_TORCH_COMMON,
        "torch/plain.py": "kept = 1\nif kept:\n    added = 2\n",
        "torch/fx/made.py": "m = 1\n",
        "torch/fx/later.py": "later = 1\n",
    },
}
TORCH_DATES = {"1.12.1": "2022-06-28", "1.13.1": "2022-10-28", "2.0.1": "2023-03-15", "2.1.2": "2023-10-04"}
_DEPD = """\
import torch
from torch import anything_torch_binds
from torch._C._distributed_c10d import ProcessGroup
from torch._six import inf
from torch.plain import gone, kept, added
from torch.star import s
from torch.dyn import d
from torch.glob import a
from torch.ext import e
from torch.fx import graph, Graph
from torch.fx.made import m
from torch.fx.never import n
from torch.fx.later import later
"""


@pytest.fixture(scope="module")
def served_torch() -> dict[str, bytes]:
    served: dict[str, bytes] = {}
    releases = {}
    for version, tree in TORCH.items():
        name = f"torch-{version}-cp311-cp311-manylinux1_x86_64.whl"
        served[FILES + name] = body = _as_zip64(_wheel(tree))
        releases[version] = [
            {"filename": name, "url": FILES + name, "size": len(body), "upload_time_iso_8601": TORCH_DATES[version]}
        ]
    served[INDEX.format(name="torch")] = json.dumps({"releases": releases}).encode()
    served[FILES + "depd-1.0.0.tar.gz"] = depd = _sdist(
        "DepD-1.0.0", {"depd/__init__.py": "from .core import *\n", "depd/core.py": _DEPD}
    )
    depd_file = {"filename": "depd-1.0.0.tar.gz", "url": FILES + "depd-1.0.0.tar.gz", "size": len(depd)}
    index = {"releases": {"1.0.0": [{**depd_file, "upload_time_iso_8601": "2023-06-01T00:00:00Z"}]}}
    served[INDEX.format(name="depd")] = json.dumps(index).encode()
    return served


def test_torch_as_the_dependency(served_torch: dict[str, bytes]) -> None:
    data = scan_tool.scan(
        _fetch(served_torch),
        [("depd", "torch")],
        "2023-01-01",
        "2022-01-01",
        "2026-01-01",
        declared=lambda dist, version, dep: None,
        workers=2,
    )
    # torch's window is its own: 1.13 on, not the minor before
    assert data["pairs"][0]["dependency_releases"] == ["1.13.1", "2.0.1", "2.1.2"]
    assert data["dependency_since_of"] == {"torch": "2022-10-01"}
    rows = {r["name"]: r for r in data["rows"]}
    # only the names really missing: not those of torch itself, torch._C, a star, __getattr__ or globals()
    # module, an extension module, a submodule, or a module a parent registers in sys.modules; nor one no
    # release has (torch.fx.never: no requirement admits a release)
    assert set(rows) == {"inf", "gone", "added", "later"}
    assert (rows["inf"]["requirement"], rows["inf"]["message"]) == ("torch<2.0.0", r"No module named 'torch\._six'")
    assert (rows["gone"]["requirement"], rows["gone"]["message"]) == (
        "torch<2.0.0",
        r"cannot import name 'gone' from 'torch\.plain'",
    )
    assert rows["added"]["requirement"] == "torch>=2.1.0.dev0"  # bound under an if: present in 2.1
    assert (rows["later"]["requirement"], rows["later"]["message"]) == (
        "torch>=2.1.0.dev0",
        r"No module named 'torch\.fx\.later'",  # no parent registers it
    )
    assert rows["inf"]["source"] == "https://pypi.org/project/depd/1.0.0/"


_GUARDED = """
from .utils import is_libb_available, is_other_available
from . import utils

if is_libb_available():
    from libb.core import guarded_fn
    if version_ok():
        from libb.core import nested_fn
else:
    from libb.core import else_fn

if utils.is_libb_available():
    from libb.extra import attr_guarded

if is_libb_available("1.1.0"):
    from libb.extra import versioned

if is_other_available():
    from libb.extra import other_guard
"""


def test_an_import_under_the_dependencys_availability_check_runs_whenever_it_is_installed() -> None:
    guards = scan_tool.availability_guards(["libb"])
    assert guards == {"is_libb_available"}
    _, names = scan_tool.unconditional_imports(_GUARDED, "depa.m", is_package=False, guards=guards)
    imported = {name for _, name, _ in names}
    assert {"guarded_fn", "attr_guarded"} <= imported
    # a nested condition, the else branch, a check with a version of its own, another package's check: not run
    assert not imported & {"nested_fn", "else_fn", "versioned", "other_guard"}
    # without guards the old reading: nothing under an if
    _, names = scan_tool.unconditional_imports(_GUARDED, "depa.m", is_package=False)
    assert not {name for _, name, _ in names} & {"guarded_fn", "attr_guarded"}


def test_entry_modules_of_a_lazy_package_are_walked_beside_its_init() -> None:
    tree = {
        "depa/__init__.py": "_import_structure = {'trainer': ['Trainer']}\n",
        "depa/trainer.py": "from .utils import is_libb_available\nif is_libb_available():\n    from libb.core import old_fn\n",
        "depa/utils.py": "def is_libb_available(): ...\n",
    }

    def read(paths: list[str]) -> dict[str, str]:
        return {p: tree[p] for p in paths}

    assert scan_tool.reachable_imports("depa", tree, read, ["libb"]) == []
    found = scan_tool.reachable_imports("depa", tree, read, ["libb"], ["depa.trainer"])
    assert [(i.module, i.name, i.path) for i in found] == [("libb.core", "old_fn", "depa/trainer.py")]
    assert scan_tool.ENTRY_MODULES["transformers"] == ("transformers.trainer", "transformers.modeling_utils")
    assert "trl.trainer.sft_trainer" in scan_tool.ENTRY_MODULES["trl"]
