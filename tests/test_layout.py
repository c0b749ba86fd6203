"""The package's layout keeps its promises: layers without import circles, a small root, old
module names still importable, and caches that keep seeing code which moved."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_rocmcompat import MOVED_MODULES
from pytest_rocmcompat.matrix.cache import CODE_MODULES
from pytest_rocmcompat.safe_io.package_files import MissingModuleError, module_files, package_modules
from tests.conftest import REPO

PACKAGE = REPO / "pytest_rocmcompat"
LAYERS = ("safe_io", "stack", "probe", "knowledge", "matrix", "session", "running", "collectives", "report", "cli")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and "bundled_" not in p.relative_to(PACKAGE).parts[0]
    }


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every module of the package ``path`` imports, lazily (inside a function) or not."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{path}: relative import (from {'.' * node.level}{node.module or ''}): use absolute imports")
    return {m for m in found if m in modules}


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the components of the import graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root, edges in graph.items():
        if root in index:
            continue
        work = [(root, iter(sorted(edges)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_import_graph_has_no_circle() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    assert sum(len(v) for v in graph.values()) > 100, "the import graph was not read"
    circles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert not circles, f"import circles (lazy imports count too): {circles}"


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in _strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def test_package_root_holds_at_most_six_modules() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 6, root
    assert {"__init__.py", "plugin.py"} <= set(root)


def test_every_layer_says_what_it_does_and_may_import() -> None:
    for layer in LAYERS:
        doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc) > 60, f"{layer}/__init__.py has no docstring saying what the layer does"


def test_layer_contract_names_every_layer() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    named = {
        part.strip().removeprefix("pytest_rocmcompat.") for layer in contract["layers"] for part in layer.split("|")
    }
    on_disk = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    on_disk |= {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert on_disk <= named, f"not placed in a layer of the import-linter contract: {on_disk - named}"


def test_old_module_names_import_as_the_new_modules_with_a_warning() -> None:
    """A conftest written against the flat layout keeps working, and is told where to look now."""
    script = textwrap.dedent(
        """
        import importlib, json, sys, warnings
        from pytest_rocmcompat import MOVED_MODULES
        out = {}
        for old, new in MOVED_MODULES.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = importlib.import_module("pytest_rocmcompat." + old)
            target = importlib.import_module("pytest_rocmcompat." + new)
            out[old] = [module is target, [str(w.message) for w in caught if w.category is DeprecationWarning]]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from pytest_rocmcompat.session import CompatState, state_of
            from pytest_rocmcompat.plugin import state_of as plugin_state_of
        out["session.names"] = [state_of is plugin_state_of, [str(w.message) for w in caught]]
        print(json.dumps(out))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(MOVED_MODULES) <= set(result)
    for old, (same, warned) in result.items():
        assert same, f"pytest_rocmcompat.{old} is not the module at its new place"
        assert warned, f"importing pytest_rocmcompat.{old} gave no DeprecationWarning"
        if old in MOVED_MODULES:
            assert any(MOVED_MODULES[old] in w for w in warned), warned


def test_matrix_cache_code_modules_all_exist() -> None:
    assert len(module_files(CODE_MODULES)) == len(CODE_MODULES)


def _fingerprints(copy_root: Path) -> dict[str, str]:
    script = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path
        import pytest_rocmcompat
        assert pytest_rocmcompat.__file__.startswith(sys.argv[1]), pytest_rocmcompat.__file__
        from pytest_rocmcompat.matrix.cache import MatrixCache
        from pytest_rocmcompat.probe.cache import probe_key
        from pytest_rocmcompat.safe_io.package_files import MissingModuleError
        try:
            matrix = MatrixCache(Path(sys.argv[1])).key("text", "m.yaml", False)
        except MissingModuleError as exc:
            matrix = "missing: " + str(exc)
        try:
            probe = probe_key((), {})
        except MissingModuleError as exc:
            probe = "missing: " + str(exc)
        print(json.dumps({"matrix": matrix, "probe": probe}))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(copy_root)}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(copy_root)],
        capture_output=True,
        text=True,
        cwd=copy_root,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cache_fingerprints_follow_the_modules_where_they_live_now(tmp_path: Path) -> None:
    """Editing a moved module invalidates both caches (the matrix cache's list and the probe cache's
    folders name modules where they live now)."""
    shutil.copytree(PACKAGE, tmp_path / "pytest_rocmcompat", ignore=shutil.ignore_patterns("__pycache__"))
    copy = tmp_path / "pytest_rocmcompat"
    before = _fingerprints(tmp_path)
    assert not before["matrix"].startswith("missing") and not before["probe"].startswith("missing"), before
    versions = copy / "stack" / "versions.py"  # moved from the package root; both caches depend on it
    versions.write_text(versions.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    after = _fingerprints(tmp_path)
    assert after["matrix"] != before["matrix"]
    assert after["probe"] != before["probe"]


def test_a_listed_module_that_is_gone_is_an_error_naming_it() -> None:
    with pytest.raises(MissingModuleError, match=r"pytest_rocmcompat\.matrix\.no_such_module"):
        module_files([*CODE_MODULES, "matrix.no_such_module"])
    with pytest.raises(MissingModuleError, match="no_such_package"):
        package_modules("no_such_package")
