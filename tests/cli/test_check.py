"""``rocmcompat check FILE``: a stack file judged as the plugin would judge that stack (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.checks.registry import SOURCE_FILE, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules
from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.stack.test_conda_files import CONDA_LIST, CONDA_LIST_EXPORT
from tests.stack.test_stack_files import (
    COMMON,
    CONDA_EXPORT,
    CONDA_PIP_FREEZE,
    CONSTRAINTS,
    PIP_FREEZE,
    REQUIREMENTS,
    UV_LOCK,
)


def rocmcompat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def check_json(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    proc = rocmcompat("check", *args, "--json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def replayed(tmp_path: Path, assignments: list[str]) -> tuple[list[str], list[str]]:
    """The same stack as ``rocmcompat probe --env EMPTY --set ...`` shows its problems, and the rules the
    plugin's engine makes active for it (bundled known_bad.yaml, the checks compiled after them).
    """
    empty = tmp_path / "empty.json"
    empty.write_text(Environment(os="Linux").to_json())
    proc = rocmcompat("probe", "--env", str(empty), *(f"--set={a}" for a in assignments))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("problems:"))
    problems = [line.strip() for line in lines[start + 1 :] if line.startswith("  [")]
    env = apply_overrides(Environment(os="Linux"), assignments)
    matrix = load_matrix(bundled_known_bad())
    found = evaluate(env, matrix.checks)
    rules = ActiveRules((*matrix.rules, *compile_rules(found, matrix.checks)), env).active
    assert [f.describe() for f in found] == problems  # the registry and `probe --set` agree
    return problems, [r.id for r in rules if r.file != SOURCE_FILE]


def assignments_of(result: dict, *extra: str) -> list[str]:
    env = result["environment"]
    sets = [f"platform={env['platform']}", *extra]
    if env["python"]:
        sets.append(f"python={env['python']}")
    if env["torch"]:
        sets.append(f"torch={env['torch']}")
    sets += [f"lib.{name}={version}" for name, version in env["libraries"].items()]
    return sets


def assert_same_as_replay(tmp_path: Path, result: dict, *extra: str) -> None:
    problems, rules = replayed(tmp_path, assignments_of(result, *extra))
    # a --set replay states a partial stack (a package it does not name may be installed: a risk, never
    # counted); a stack file is the whole stack (what it does not name is not installed)
    problems = [p for p in problems if " is not named: " not in p]
    assert [p["text"] for p in result["problems"]] == problems
    assert [r["id"] for r in result["rules"]] == rules
    counted = [p for p in result["problems"] if not (p["conditional"] or p["uncertain"])]
    assert result["known_bad"] == bool(counted or [r for r in result["rules"] if r["counted"]])


def test_pip_freeze_same_findings_as_replay(tmp_path: Path) -> None:
    (tmp_path / "freeze.txt").write_text(PIP_FREEZE)
    sets = ("--set", "arch=gfx942", "--set", "env.CUDA_VISIBLE_DEVICES=0")
    status, result = check_json(str(tmp_path / "freeze.txt"), *sets)
    assert status == 1 and result["format"] == "requirements"
    env = result["environment"]
    assert env["platform"] == "rocm"  # from torch's +rocm6.1 tag
    assert env["torch"] == "2.4.1+rocm6.1" and env["libraries"]["ray"] == "2.46.0"
    assert "verl" not in env["libraries"] and "editable" in result["not_checkable"][0]
    ids = {r["id"] for r in result["rules"]}
    assert {"torchao-needs-torch-int1", "ray-2.45-rocm-cuda-visible-devices-assert"} <= ids
    assert_same_as_replay(tmp_path, result, "arch=gfx942", "env.CUDA_VISIBLE_DEVICES=0")


def test_requirements_with_includes_same_findings_as_replay(tmp_path: Path) -> None:
    (tmp_path / "common.txt").write_text(COMMON)
    (tmp_path / "constraints.txt").write_text(CONSTRAINTS)
    (tmp_path / "requirements.txt").write_text(REQUIREMENTS)
    status, result = check_json(str(tmp_path / "requirements.txt"), "--set", "arch=gfx90a")
    assert status == 1
    assert result["packages"]["torch"] == "2.4.1+rocm6.1" and "vllm" not in result["packages"]
    assert_same_as_replay(tmp_path, result, "arch=gfx90a")


@pytest.mark.parametrize(("python", "numpy"), [("3.10", "1.26.4"), ("3.12", "2.1.2")])
def test_uv_lock_same_findings_as_replay(tmp_path: Path, python: str, numpy: str) -> None:
    (tmp_path / "uv.lock").write_text(UV_LOCK)
    status, result = check_json(str(tmp_path / "uv.lock"), "--set", f"python={python}")
    assert status == 1 and result["format"] == "uv.lock"
    assert result["environment"]["libraries"]["numpy"] == numpy
    numpy_rule = "numpy2-torch-built-against-numpy1" in {r["id"] for r in result["rules"]}
    assert numpy_rule == (numpy == "2.1.2")  # torch 2.2.2 was built against NumPy 1
    assert_same_as_replay(tmp_path, result)


def test_conda_export_same_findings_as_replay(tmp_path: Path) -> None:
    (tmp_path / "environment.yml").write_text(CONDA_EXPORT)
    status, result = check_json(str(tmp_path / "environment.yml"), "--set", "arch=sm_90", "--set", "cuda=12.1")
    assert status == 1 and result["format"] == "conda"
    env = result["environment"]
    assert env["python"] == "3.11.10" and env["torch"] == "2.2.2+cu121" and env["platform"] == "cuda"
    assert_same_as_replay(tmp_path, result, "arch=sm_90", "cuda=12.1")


def test_recorded_probe_is_replayed(tmp_path: Path) -> None:
    env = Environment(platform="rocm", torch="2.2.2+rocm5.7", python="3.11.9", libraries={"numpy": "2.1.2"})
    (tmp_path / "env.json").write_text(env.to_json())
    status, result = check_json(str(tmp_path / "env.json"))
    assert status == 1 and result["format"] == "probe"
    assert "numpy2-torch-built-against-numpy1" in {r["id"] for r in result["rules"]}
    assert_same_as_replay(tmp_path, result)


def test_nothing_from_the_host(tmp_path: Path) -> None:
    try:  # the test venv has NumPy 2 (and torch): neither may leak into the checked stack
        host_numpy = metadata.version("numpy")
    except metadata.PackageNotFoundError:
        pytest.skip("this test needs numpy installed on the host")
    assert host_numpy.startswith("2")
    (tmp_path / "r.txt").write_text("torch==2.2.2\nfilelock==3.16.1\n")
    status, result = check_json(str(tmp_path / "r.txt"))
    assert result["environment"]["libraries"] == {"filelock": "3.16.1"}
    assert result["environment"]["torch"] == "2.2.2" and result["environment"]["gpus"] == []
    assert result["environment"]["python"] == ""  # not the host's Python
    assert not any("numpy" in json.dumps(item).lower() for item in result["rules"] + result["problems"])
    assert status == 0 and result["known_bad"] is False


def test_exit_0_text(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("torch==2.6.0\nfilelock==3.16.1\n")
    proc = rocmcompat("check", str(tmp_path / "r.txt"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: nothing known against this stack" in proc.stdout


def test_exit_1_text(tmp_path: Path) -> None:
    (tmp_path / "freeze.txt").write_text(PIP_FREEZE)
    proc = rocmcompat("check", str(tmp_path / "freeze.txt"), "--set", "arch=gfx942")
    assert proc.returncode == 1, proc.stderr
    assert "[torchao-needs-torch-int1]" in proc.stdout and "verdict: known-bad" in proc.stdout


def test_unpinned_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("torch==2.5.1\n# comment\ntransformers>=4.40\n")
    proc = rocmcompat("check", str(tmp_path / "r.txt"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{tmp_path / 'r.txt'}:3: transformers>=4.40 is not pinned" in proc.stderr
    assert "pip freeze" in proc.stderr and "uv pip compile" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("uv.lock", 'version = 1\n[[package]]\nname = "x"\nversion = \n', "uv.lock:4: not valid TOML"),
        ("environment.yml", "name: x\ndependencies:\n  - a=1\n  b: [\n", "environment.yml:4: not valid YAML"),
        ("env.json", "{nope", "env.json:1: not valid JSON"),
        ("r.txt", "torch==2.5.1\n==2.0\n", "r.txt:2: not a requirement"),
    ],
)
def test_malformed_exit_2(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    proc = rocmcompat("check", str(tmp_path / name))
    assert proc.returncode == 2, proc.stdout
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = rocmcompat("check", str(tmp_path / "missing.txt"))
    assert proc.returncode == 2 and "missing.txt: cannot read" in proc.stderr
    (tmp_path / "r.txt").write_text("torch==2.5.1\n")
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--set", "arch=banana")
    assert proc.returncode == 2 and "not a GPU architecture" in proc.stderr
    (tmp_path / "uv.lock").write_text(UV_LOCK)
    proc = rocmcompat("check", str(tmp_path / "uv.lock"))
    assert proc.returncode == 2 and "--set python=3.X" in proc.stderr


def test_matrix_option(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "known_bad:\n  - id: my-filelock\n    when: {libraries: {filelock: '==3.16.1'}}\n"
        "    reason: our own rule\n    action: skip\n"
        "checks:\n  extension-built-for-other-torch: 'off'\n"
    )
    (tmp_path / "r.txt").write_text("torch==2.2.2\nfilelock==3.16.1\ntorchao==0.13.0\n")
    status, result = check_json(str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert status == 1 and [r["id"] for r in result["rules"]] == ["my-filelock"]
    assert result["problems"] == []  # the matrix switched the check off


def test_an_uncertain_rule_is_listed_as_a_risk_and_not_counted(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "known_bad:\n  - id: maybe-filelock\n    when: {libraries: {filelock: '==3.16.1'}}\n"
        "    reason: our own rule\n    action: xfail\n    signature: 'filelock broke'\n    uncertain: true\n"
    )
    (tmp_path / "r.txt").write_text("torch==2.6.0\nfilelock==3.16.1\n")
    status, result = check_json(str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert status == 0 and not result["known_bad"]
    assert [(r["id"], r["uncertain"]) for r in result["rules"]] == [("maybe-filelock", True)]
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[maybe-filelock] our own rule [xfail] (at risk: " in proc.stdout
    assert "verdict: nothing known against this stack" in proc.stdout


def test_tests_reached_collect_only(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(
        "import pytest\n\n@pytest.mark.uses('torchao')\ndef test_quantize():\n    raise SystemExit(3)\n\n"
        "def test_plain():\n    pass\n"
    )
    (tmp_path / "r.txt").write_text("torch==2.2.2\ntorchao==0.13.0\n")
    status, result = check_json("r.txt", "--tests", "test_user.py", cwd=tmp_path)
    assert status == 1
    assert set(result["tests"]) == {"test_user.py::test_quantize"}  # collected only: nothing ran
    assert {"torchao-needs-torch-int1", "extension-built-for-other-torch"} <= set(
        result["tests"]["test_user.py::test_quantize"]
    )
    proc = rocmcompat("check", "r.txt", "--tests", "test_user.py", cwd=tmp_path)
    assert "tests reached: 1" in proc.stdout and "test_user.py::test_quantize: " in proc.stdout
    proc = rocmcompat("check", "r.txt", "--tests", "no_such_dir", cwd=tmp_path)
    assert proc.returncode == 2 and "pytest --collect-only no_such_dir exited with 4" in proc.stderr


def test_a_requirement_with_no_wheel_and_no_sdist_for_the_python_is_known_bad_before_installing(tmp_path: Path) -> None:
    """Ray 2.40.0 published cp39-cp312 wheels and no sdist: on Python 3.13 pip has nothing to install."""
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.6.0\nray==2.40.0\n", encoding="utf-8")
    status, result = check_json(str(req), "--set", "platform=cuda", "--set", "python=3.13.1")
    assert status == 1 and result["known_bad"]
    (problem,) = [p["text"] for p in result["problems"] if "[no-wheel-for-python]" in p["text"]]
    assert "ray 2.40.0 published wheels for Python 3.9-3.12 only" in problem
    status, result = check_json(str(req), "--set", "platform=cuda", "--set", "python=3.12.7")
    assert not any("[no-wheel-for-python]" in p["text"] for p in result["problems"])


def test_an_isolate_rule_without_a_signature_is_listed_and_not_counted(tmp_path: Path) -> None:
    """A crash-prone rule (isolate, no signature) claims no failure: listed, not a known-bad verdict."""
    (tmp_path / "m.yaml").write_text(
        "known_bad:\n  - id: crashy-filelock\n    when: {libraries: {filelock: '==3.16.1'}}\n"
        "    reason: may crash\n    action: isolate\n"
    )
    (tmp_path / "r.txt").write_text("torch==2.6.0\nfilelock==3.16.1\n")
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[crashy-filelock] may crash [isolate] (crash-prone: its tests run isolated" in proc.stdout
    assert "verdict: nothing known against this stack" in proc.stdout


def test_a_contested_rule_is_listed_and_not_counted(tmp_path: Path) -> None:
    """A contested rule (its sources disagree) is a risk, as ``recommend`` files it: listed, not counted."""
    (tmp_path / "m.yaml").write_text(
        "known_bad:\n  - id: disputed-filelock\n    when: {libraries: {filelock: '==3.16.1'}}\n"
        "    reason: some saw it fail\n    action: xfail\n    signature: 'filelock broke'\n    contested: true\n"
    )
    (tmp_path / "r.txt").write_text("torch==2.6.0\nfilelock==3.16.1\n")
    status, result = check_json(str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert status == 0 and not result["known_bad"]
    assert [(r["id"], r["contested"], r["counted"]) for r in result["rules"]] == [("disputed-filelock", True, False)]
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[disputed-filelock] some saw it fail [xfail] (contested: its sources disagree; not counted" in proc.stdout
    signed = (tmp_path / "m.yaml").read_text().replace("    contested: true\n", "")
    (tmp_path / "m.yaml").write_text(signed)
    status, result = check_json(str(tmp_path / "r.txt"), "--matrix", str(tmp_path / "m.yaml"))
    assert status == 1 and [r["counted"] for r in result["rules"]] == [True]


def test_a_powershell_freeze_in_utf16_is_checked(tmp_path: Path) -> None:
    """Windows PowerShell 5 writes `pip freeze > freeze.txt` as UTF-16 LE with a byte-order mark."""
    (tmp_path / "freeze.txt").write_text(PIP_FREEZE, encoding="utf-16")
    (tmp_path / "plain.txt").write_text(PIP_FREEZE, encoding="utf-8")
    status, result = check_json(str(tmp_path / "freeze.txt"), "--set", "arch=gfx942")
    assert status == 1 and result["packages"]["accelerate"] == "0.34.2"
    assert result["packages"] == check_json(str(tmp_path / "plain.txt"), "--set", "arch=gfx942")[1]["packages"]
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + b"torch==2.6.0\nfilelock==3.16.1\n")
    proc = rocmcompat("check", str(tmp_path / "bom.txt"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(requirements, 2 package(s))" in proc.stdout


def test_pip_freeze_in_a_conda_environment_is_checked(tmp_path: Path) -> None:
    """conda's packages appear as `NAME @ file:///.../work`: not checkable, not a range."""
    (tmp_path / "freeze.txt").write_text(CONDA_PIP_FREEZE)
    status, result = check_json(str(tmp_path / "freeze.txt"))
    assert result["packages"]["pyyaml"] == "6.0.2" and "accelerate" not in result["packages"]
    assert [n.split(": ", 1)[1] for n in result["not_checkable"]] == [
        "accelerate from a local directory names no version (`pip list --format=freeze` writes the installed version)",
        "tqdm from a URL names no version (`pip list --format=freeze` writes the installed version)",
    ]
    proc = rocmcompat("check", str(tmp_path / "freeze.txt"))
    assert proc.returncode == status and "not checkable: " in proc.stdout


def test_pips_warning_captured_with_the_freeze_exit_2(tmp_path: Path) -> None:
    (tmp_path / "freeze.txt").write_text(
        "WARNING: Ignoring invalid distribution ~orch (/opt/conda/lib/python3.11/site-packages)\ntorch==2.5.1\n"
    )
    proc = rocmcompat("check", str(tmp_path / "freeze.txt"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{tmp_path / 'freeze.txt'}:1: `WARNING: Ignoring invalid distribution" in proc.stderr
    assert "pip's own message, not a requirement" in proc.stderr and "pip freeze > FILE" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_conda_list_export_same_findings_as_replay(tmp_path: Path) -> None:
    (tmp_path / "conda.txt").write_text(CONDA_LIST_EXPORT)
    status, result = check_json(str(tmp_path / "conda.txt"), "--set", "arch=sm_90")
    assert result["format"] == "conda-list"
    env = result["environment"]
    assert env["python"] == "3.10.14" and env["torch"] == "2.3.1+cu121"
    assert env["platform"] == "cuda"  # from conda's build string, no --set platform needed
    assert {"nccl", "cuda-version", "cuda-cudart"} <= set(env["libraries"])
    assert "verl" not in env["libraries"] and "development mode" in result["not_checkable"][0]
    problems, rules = replayed(tmp_path, assignments_of(result, "arch=sm_90"))
    assert [p["text"] for p in result["problems"]] == [p for p in problems if " is not named: " not in p]
    assert [r["id"] for r in result["rules"]] == rules
    assert status == int(result["known_bad"])


def test_plain_conda_list_with_format_option(tmp_path: Path) -> None:
    """`--format conda-list` reads a file whose name says otherwise; the text names the format."""
    (tmp_path / "env.yml").write_text(CONDA_LIST)
    proc = rocmcompat("check", str(tmp_path / "env.yml"))
    assert proc.returncode == 2 and "no `dependencies:` list" in proc.stderr  # a .yml is taken for conda env export
    proc = rocmcompat("check", str(tmp_path / "env.yml"), "--format", "conda-list")
    assert proc.returncode in (0, 1), proc.stderr
    assert f"stack: {tmp_path / 'env.yml'} (conda-list, 8 package(s))" in proc.stdout
    assert "not checkable: " in proc.stdout and "skipped: " in proc.stdout
    _, result = check_json(str(tmp_path / "env.yml"), "--format", "conda-list")
    assert result["packages"]["torch"] == "2.5.1+cu126" and result["environment"]["platform"] == "cuda"


def test_format_choices_are_the_readers_formats() -> None:
    from pytest_rocmcompat.stack.stack_files import FORMATS

    proc = rocmcompat("check", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "{" + ",".join(FORMATS) + "}" in text
    assert "conda list" in text


def test_a_working_a100_stack_is_not_known_bad_for_the_fp8_it_lacks(tmp_path: Path) -> None:
    """torch 2.5.1 (the default CUDA wheel) on an A100 works: the fp8 rules it meets are feature gaps, listed
    for the tests that use fp8 and not counted against the stack (exit 0); a GPU-wide rule still counts.
    """
    (tmp_path / "r.txt").write_text("torch==2.5.1\nfilelock==3.16.1\n")
    status, result = check_json(str(tmp_path / "r.txt"), "--set", "arch=sm_80")
    assert status == 0 and not result["known_bad"]
    gaps = {r["id"]: r for r in result["rules"] if r["not_counted_because"] == "feature gap"}
    assert {"fp8-scaled-mm-cuda-pre-sm89", "triton-fp8e4nv-pre-sm89"} <= set(gaps)
    assert not any(r["counted"] for r in gaps.values())
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--set", "arch=sm_80")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[fp8-scaled-mm-cuda-pre-sm89] " in proc.stdout and "(a feature this GPU or build lacks: " in proc.stdout
    assert "verdict: nothing known against this stack" in proc.stdout
    (tmp_path / "r.txt").write_text("torch==2.5.1+rocm6.2\n")  # the same on MI250X (gfx90a), and on MI50:
    assert check_json(str(tmp_path / "r.txt"), "--set", "arch=gfx90a")[0] == 0
    status, result = check_json(str(tmp_path / "r.txt"), "--set", "arch=gfx906")  # its Triton has no gfx906 kernels
    assert status == 1 and not all(p["conditional"] or p["uncertain"] for p in result["problems"])


RULES_BY_REACH = """known_bad:
  - id: fa2-needs-ampere
    when: {platform: cuda, arch: ["sm_7*"]}
    applies_to: {uses: [flash-attn]}
    reason: FlashAttention-2 needs Ampere
    action: skip
  - id: distributed-on-turing
    when: {platform: cuda, arch: ["sm_75"], torch: "==2.6.0"}
    applies_to: {uses: [torch.distributed]}
    reason: a runtime feature of the stack's own build
    action: xfail
    signature: "broken collective"
  - id: fp16-gap
    when: {platform: cuda, arch: ["sm_75"]}
    applies_to: {nodeids: ["*fp16*"]}
    reason: a format the GPU lacks
    action: xfail
    signature: "no fp16"
    feature_gap: true
"""


def test_a_rule_counts_by_what_it_reaches_and_what_the_stack_lists(tmp_path: Path) -> None:
    """A rule reaching only tests of a library the stack does not list is not counted; listed, it is. A rule on
    a runtime feature of the stack's own build (torch.distributed) counts; a feature gap does not.
    """
    (tmp_path / "m.yaml").write_text(RULES_BY_REACH)
    (tmp_path / "r.txt").write_text("torch==2.6.0\n")
    status, result = check_json(str(tmp_path / "r.txt"), "--set", "arch=sm_75", "--matrix", str(tmp_path / "m.yaml"))
    why = {r["id"]: r["not_counted_because"] for r in result["rules"]}
    assert why == {"fa2-needs-ampere": "not listed", "distributed-on-turing": None, "fp16-gap": "feature gap"}
    assert status == 1
    (tmp_path / "r.txt").write_text("torch==2.5.1\nflash-attn==2.6.3\n")  # distributed-on-turing is 2.6.0 only
    status, result = check_json(str(tmp_path / "r.txt"), "--set", "arch=sm_75", "--matrix", str(tmp_path / "m.yaml"))
    assert status == 1
    assert {r["id"]: r["counted"] for r in result["rules"]} == {"fa2-needs-ampere": True, "fp16-gap": False}
    (tmp_path / "r.txt").write_text("torch==2.5.1\n")
    proc = rocmcompat("check", str(tmp_path / "r.txt"), "--set", "arch=sm_75", "--matrix", str(tmp_path / "m.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "[fa2-needs-ampere] FlashAttention-2 needs Ampere [skip] (only for tests that use a library this" in proc.stdout
    )


def test_standard_input(tmp_path: Path) -> None:
    """`pip freeze | rocmcompat check -` and `python -m torch.utils.collect_env | rocmcompat check -`."""
    run = [sys.executable, "-m", "pytest_rocmcompat", "check", "-"]
    proc = subprocess.run(
        [*run, "--set", "arch=gfx942", "--json"], input=PIP_FREEZE, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["file"] == "<stdin>"
    report = (Path(__file__).parent.parent / "data" / "collect_env" / "nvidia_4xa10_torch2.4_vllm7943.txt").read_text()
    proc = subprocess.run(run, input=report, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "stack: <stdin> (collect-env, " in proc.stdout, proc.stderr
    proc = subprocess.run(run, input="torch==2.5.1\nnumpy>=2\n", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("rocmcompat check: <stdin>:2: numpy>=2 is not pinned")
    proc = subprocess.run(run, input=b"\xff\xfe\x00", capture_output=True, timeout=300)
    assert proc.returncode == 2 and b"<stdin>" in proc.stderr and b"Traceback" not in proc.stderr
