"""The checked-matrix cache: hits equal a fresh load, any change is a miss, nothing unsafe is read."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.errors import ConfigError
from pytest_rocmcompat.matrix.cache import MatrixCache, text_hash
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.matrix.model import FileContent
from pytest_rocmcompat.matrix.plain import FORMAT
from pytest_rocmcompat.safe_io.cache_store import CACHE_DIR_VAR, cache_dir
from tests.conftest import REPO, write

MAIN = """
name: cached
platform: rocm
arch: [gfx942]
axes:
  torch: ["2.5"]
include: [shared.yaml]
known_bad:
  - id: main-rule
    when: {torch: "==2.5.*"}
    applies_to: {uses: [vllm]}
    action: xfail
    signature: "boom \\\\d+"
    reason: the main file's rule
"""
SHARED = """
known_bad:
  - id: shared-rule
    when: {arch: "gfx94*"}
    action: skip
    reason: the shared rule
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "shared.yaml", SHARED)
    return write(tmp_path / "main.yaml", MAIN)


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json")) if directory.is_dir() else []


def test_a_hit_equals_a_fresh_load(files: Path, tmp_path: Path) -> None:
    cache = MatrixCache(tmp_path / "cache")
    first = load_matrix(files, cache=cache)
    assert len(entries(cache.directory)) == 2  # the main file and its include
    again = load_matrix(files, cache=MatrixCache(cache.directory))
    assert again == first == load_matrix(files)
    assert [r.id for r in again.rules] == ["shared-rule", "main-rule"]
    assert again.rules[1].signature_matches("boom 42") and not again.rules[1].signature_matches("boom")


def test_a_hit_imports_no_yaml(files: Path, tmp_path: Path) -> None:
    """A fresh interpreter with a warm cache loads the matrix without importing PyYAML."""
    code = (
        "import sys; from pytest_rocmcompat.matrix.cache import MatrixCache; "
        "from pytest_rocmcompat.matrix.loader import load_matrix; "
        "m = load_matrix('main.yaml', cache=MatrixCache.from_environ()); "
        "print(len(m.rules), 'yaml' in sys.modules)"
    )
    env = dict(os.environ, **{CACHE_DIR_VAR: str(tmp_path / "cache")})
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["2", "True"], ["2", "False"]]


@pytest.mark.parametrize("edit", ["main", "include"])
def test_an_edited_file_is_a_miss(files: Path, tmp_path: Path, edit: str) -> None:
    cache = MatrixCache(tmp_path / "cache")
    load_matrix(files, cache=cache)
    target = files if edit == "main" else tmp_path / "shared.yaml"
    target.write_text(target.read_text().replace(" rule\n", " rule, edited\n"))
    reasons = [r.reason for r in load_matrix(files, cache=MatrixCache(cache.directory)).rules]
    assert sum(reason.endswith("edited") for reason in reasons) == 1
    assert len(entries(cache.directory)) == 3


def test_a_file_with_problems_is_never_stored(files: Path, tmp_path: Path) -> None:
    cache = MatrixCache(tmp_path / "cache")
    files.write_text(MAIN.replace('"==2.5.*"', '">=2.x"'))
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"main.yaml:\d+: known_bad\[0\]\.when\.torch"):
            load_matrix(files, cache=cache)
    assert len(entries(cache.directory)) == 1  # the clean include only


def test_the_shown_name_is_part_of_the_key(files: Path, tmp_path: Path, monkeypatch) -> None:
    """Rules remember the file name they are reported under; another working directory is a miss."""
    cache = MatrixCache(tmp_path / "cache")
    load_matrix("main.yaml", cache=cache)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    matrix = load_matrix("../main.yaml", cache=cache)
    assert {r.file for r in matrix.rules} == {"../main.yaml", str(tmp_path / "shared.yaml")}
    assert len(entries(cache.directory)) == 4


def test_changed_checker_code_is_a_miss(files: Path, tmp_path: Path) -> None:
    cache = MatrixCache(tmp_path / "cache")
    load_matrix(files, cache=cache)
    other = MatrixCache(cache.directory)
    other._code = "a different checker"
    assert other.key(files.read_text(), "main.yaml", False) != cache.key(files.read_text(), "main.yaml", False)
    load_matrix(files, cache=other)
    assert len(entries(cache.directory)) == 4


@pytest.mark.parametrize("damage", ["corrupt", "truncated", "not-a-content", "group-writable-entry"])
def test_a_bad_entry_is_a_miss(files: Path, tmp_path: Path, damage: str) -> None:
    cache = MatrixCache(tmp_path / "cache")
    expected = load_matrix(files, cache=cache)
    texts = {
        cache.key(p.read_text(), n, n == "shared.yaml"): p.read_text()
        for p, n in ((files, "main.yaml"), (tmp_path / "shared.yaml", "shared.yaml"))
    }
    for entry in entries(cache.directory):
        if damage == "corrupt":
            entry.write_bytes(b"\x80\x05not json at all")
        elif damage == "truncated":
            entry.write_bytes(entry.read_bytes()[:20])
        elif damage == "not-a-content":
            entry.write_text(
                json.dumps({"format": 1, "text_sha256": text_hash(texts[entry.stem]), "content": {"rules": "planted"}})
            )
        else:
            entry.chmod(0o666)
    assert all(cache.get(e.stem, texts[e.stem]) is None for e in entries(cache.directory))
    assert load_matrix(files, cache=MatrixCache(cache.directory)) == expected
    assert all(cache.get(e.stem, texts[e.stem]) is not None for e in entries(cache.directory))  # rewritten


def test_a_planted_entry_in_a_shared_directory_is_not_read(files: Path, tmp_path: Path) -> None:
    """A directory others can write is not trusted: its entries are neither read nor written."""
    shared = tmp_path / "cache"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    cache = MatrixCache(shared)
    text = files.read_text()
    key = cache.key(text, "main.yaml", False)
    planted = MatrixCache(tmp_path / "private")
    planted.put(key, text, FileContent(name="planted"))
    (shared / f"{key}.json").write_bytes((planted.directory / f"{key}.json").read_bytes())
    (shared / f"{key}.json").chmod(0o600)
    assert planted.get(key, text) is not None and cache.get(key, text) is None
    assert load_matrix(files, cache=cache).name == "cached"
    assert [e.name for e in entries(shared)] == [f"{key}.json"]  # nothing written there


def test_an_unwritable_cache_is_skipped(files: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would be")
    assert load_matrix(files, cache=MatrixCache(blocker / "cache")).name == "cached"


def test_cache_location(tmp_path: Path) -> None:
    assert cache_dir({CACHE_DIR_VAR: "off"}) is None and cache_dir({CACHE_DIR_VAR: ""}) is None
    assert cache_dir({CACHE_DIR_VAR: str(tmp_path)}) == tmp_path
    assert cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/pytest-rocmcompat")
    assert cache_dir({}) == Path(os.path.expanduser("~"), ".cache", "pytest-rocmcompat")


def test_pytest_runs_fill_and_use_the_cache(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Two real pytest processes: the first stores the bundled database, the second reads it."""
    directory = tmp_path / "cache"
    pytester.makepyfile("def test_ok():\n    pass\n")
    env_file = pytester.path / "env.json"
    from tests.conftest import MI50_ENV

    env_file.write_text(MI50_ENV.to_json())
    old = os.environ.get(CACHE_DIR_VAR)
    os.environ[CACHE_DIR_VAR] = str(directory)
    try:
        results = [
            pytester.runpytest_subprocess("--rocm-env", str(env_file), "-p", "no:cacheprovider") for _ in range(2)
        ]
    finally:
        os.environ[CACHE_DIR_VAR] = old if old is not None else "off"
    headers = [[line for line in r.stdout.lines if "known-bad rules active" in line] for r in results]
    assert headers[0] == headers[1] and headers[0] and "bundled known_bad.yaml" in headers[0][0]
    assert len(entries(directory)) == 1
    assert all(r.ret == 0 for r in results)
    assert (REPO / "matrices" / "known_bad.yaml").is_file()


class _Exits:
    """Unpickling this raises SystemExit (or runs anything else an attacker chooses)."""

    def __init__(self, exc: type[BaseException]) -> None:
        self.exc = exc

    def __reduce__(self):
        return (_raise, (self.exc,))


def _raise(exc: type[BaseException]) -> None:
    raise exc()


@pytest.mark.parametrize("exc", [SystemExit, KeyboardInterrupt])
def test_a_planted_old_pickle_is_never_unpickled(files: Path, tmp_path: Path, exc: type[BaseException]) -> None:
    """Old-style ``KEY.pickle`` and a pickle under the JSON name: ignored, the load goes on."""
    cache = MatrixCache(tmp_path / "cache")
    cache.directory.mkdir(mode=0o700)
    text = files.read_text()
    key = cache.key(text, "main.yaml", False)
    for name in (f"{key}.pickle", f"{key}.json"):
        (cache.directory / name).write_bytes(pickle.dumps(_Exits(exc)))
        (cache.directory / name).chmod(0o600)
    assert cache.get(key, text) is None
    assert load_matrix(files, cache=cache).name == "cached"
    assert cache.get(key, text).name == "cached"  # replaced by a clean JSON entry


def test_an_entry_for_other_text_is_ignored(files: Path, tmp_path: Path) -> None:
    """An entry planted under a file's key but checked from other text is not served."""
    cache = MatrixCache(tmp_path / "cache")
    text = files.read_text()
    key = cache.key(text, "main.yaml", False)
    cache.put(key, "name: planted\n", FileContent(name="planted"))
    assert cache.get(key, text) is None
    assert cache.get(key, "name: planted\n").name == "planted"
    assert load_matrix(files, cache=cache).name == "cached"


def test_entries_are_plain_json_checked_against_the_text(files: Path, tmp_path: Path) -> None:
    cache = MatrixCache(tmp_path / "cache")
    load_matrix(files, cache=cache)
    for entry in entries(cache.directory):
        data = json.loads(entry.read_text())
        assert data["format"] == FORMAT and len(data["text_sha256"]) == 64
        assert entry.stat().st_mode & 0o777 == 0o600
    assert not list(cache.directory.glob("*.pickle"))


def test_a_fifo_or_device_entry_is_a_miss(files: Path, tmp_path: Path) -> None:
    cache = MatrixCache(tmp_path / "cache")
    cache.directory.mkdir(mode=0o700)
    text = files.read_text()
    key = cache.key(text, "main.yaml", False)
    os.mkfifo(cache.directory / f"{key}.json", 0o600)
    assert cache.get(key, text) is None  # no hang on the FIFO


EVERY_FIELD = """
name: every-field
platform: rocm
arch: [gfx906]
checks: {arch-not-in-build: "off", python-unsupported-by-torch: skip}
known_bad:
  - id: contested-fresh
    when: {torch: "==2.5.1"}
    applies_to: {uses: [torch]}
    action: isolate
    fresh: true
    contested: true
    signature: "Memory access fault"
    reason: sources disagree
    links: [https://example.org/a, https://example.org/b]
"""


def test_a_hit_keeps_every_rule_and_file_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fields a cache entry dropped would silently change a rule on the second run only."""
    import dataclasses

    from pytest_rocmcompat.knowledge.rules.model import Rule
    from pytest_rocmcompat.matrix.plain import _rule_to_plain, content_to_plain

    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "every.yaml", EVERY_FIELD)
    cache = MatrixCache(tmp_path / "cache")
    first = load_matrix(path, cache=cache)
    again = load_matrix(path, cache=MatrixCache(cache.directory))
    assert again == first
    rule = next(r for r in again.rules if r.id == "contested-fresh")
    assert rule.fresh and rule.contested and rule.action == "isolate"
    plain_rule = _rule_to_plain(rule)
    missing = {f.name for f in dataclasses.fields(Rule)} - set(plain_rule) - {"applies_to", "when"}
    assert not missing, f"Rule fields the cache does not store: {missing}"
    stored = set(content_to_plain(FileContent()))
    assert {f.name for f in dataclasses.fields(FileContent)} <= stored | {"excludes", "includes", "archs"}


DECLARED = """
name: own
metrics:
  tokens_per_joule: {unit: "tok/J", better: higher}
  p50_latency_ms: {unit: ms, better: lower, headline: false, label: p50 latency, description: median}
floors:
  tokens_per_joule: 12.5
"""


def test_a_hit_keeps_every_declared_metric_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A declared metric read back from the cache: the same unit, direction, headline and label."""
    import dataclasses

    from pytest_rocmcompat.knowledge.metrics import DeclaredMetric
    from pytest_rocmcompat.matrix.plain import content_from_plain, content_to_plain

    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "own.yaml", DECLARED)
    cache = MatrixCache(tmp_path / "cache")
    first = load_matrix(path, cache=cache)
    (entry,) = entries(cache.directory)
    stored = json.loads(entry.read_text(encoding="utf-8"))
    assert stored["format"] == FORMAT == 6  # 4: rules keep at_risk; 5: explained_by; 6: feature_gap
    again = load_matrix(path, cache=MatrixCache(cache.directory))
    assert again == first
    assert again.metrics["p50_latency_ms"] == DeclaredMetric(
        "p50_latency_ms", "ms", False, False, "p50 latency", "median"
    )
    assert again.metrics["tokens_per_joule"] == DeclaredMetric("tokens_per_joule", "tok/J")
    plain = stored["content"]
    (row,) = [m for m in plain["metrics"] if m[0] == "p50_latency_ms"]
    assert len(row) == len(dataclasses.fields(DeclaredMetric))  # every field is stored
    with pytest.raises(TypeError):  # a planted entry's metric of the wrong shape: a miss, never a value
        content_from_plain({**content_to_plain(FileContent()), "metrics": [["x", "u", "yes", True, "", ""]]})
