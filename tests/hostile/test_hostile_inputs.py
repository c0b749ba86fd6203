"""Hostile and broken matrix input: devices, FIFOs, huge files, huge numbers, ReDoS, odd keys.

Each case gives a clean ``file:line: key.path: message`` (pytest: a usage error, lint: exit 1),
never a traceback, a hang or unbounded memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_rocmcompat.errors import ConfigError, Problem
from pytest_rocmcompat.knowledge.rules.signature import SignatureTimeout, compile_signature, unsafe_reason
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.safe_io.input_files import MAX_FILE_BYTES
from tests.conftest import CPU_ENV, write

BIG = "1" * 5000


def problems_of(path: str | Path) -> list[Problem]:
    with pytest.raises(ConfigError) as info:
        load_matrix(path)
    return info.value.problems


def one_line(problems: list[Problem]) -> None:
    for p in problems:
        text = str(p)
        assert "\n" not in text and "\x1b" not in text and "\r" not in text, repr(text)


def lint(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "lint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# ---- files that are not regular files, or too big -----------------------------------------------
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_before_reading(device: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (p,) = problems_of(device)
    assert "not a regular file (a device)" in p.message
    write(tmp_path / "m.yaml", f"name: x\ninclude: [{device}]\n")
    (p,) = problems_of("m.yaml")
    assert str(p).startswith("m.yaml:2: include[0]: cannot include") and "a device" in p.message


def test_a_fifo_does_not_block(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.yaml")
    write(tmp_path / "m.yaml", "name: x\ninclude: [pipe.yaml]\n")
    result: list = []
    worker = threading.Thread(target=lambda: result.append(problems_of("m.yaml")), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # unblock the reader before failing
        with open(tmp_path / "pipe.yaml", "w"):
            pass
        pytest.fail("reading a FIFO blocked")
    (p,) = result[0]
    assert "a FIFO" in p.message and p.line == 2


def test_a_10mb_matrix_fails_fast_with_a_size_error(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("name: big\nknown_bad:\n" + "  - {id: r, reason: x}\n" * (10 * 2**20 // 24))
    start = time.monotonic()
    result = lint(str(path), cwd=tmp_path)
    assert time.monotonic() - start < 30  # a generous bound against the 31 s load: never a benchmark
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "MiB; a matrix file may be at most 1.0 MiB" in result.stderr, result.stderr
    assert path.stat().st_size > MAX_FILE_BYTES


# ---- numbers and versions too long to be versions -------------------------------------------------
def test_a_5000_digit_version_in_axes_is_a_clean_lint_error(tmp_path: Path) -> None:
    write(tmp_path / "m.yaml", f"name: x\naxes:\n  torch: ['{BIG}']\n")
    result = lint("m.yaml", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("m.yaml:3: axes.torch[0]: ") and "is 5000 characters long" in result.stderr
    assert len(result.stderr) < 600


@pytest.mark.parametrize("spec", [f">={BIG}", f"=={BIG}.*", f"<2.{BIG}", ">=2." + "9" * 40])
def test_a_5000_digit_version_in_when_is_a_clean_error_in_lint_and_pytest(
    spec: str, tmp_path: Path, pytester: pytest.Pytester
) -> None:
    text = f"name: x\nknown_bad:\n  - id: r\n    when: {{torch: '{spec}'}}\n    reason: r\n"
    write(tmp_path / "m.yaml", text)
    result = lint("m.yaml", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("m.yaml:4: known_bad[0].when.torch: "), result.stderr
    pytester.makefile(".yaml", m=text)
    pytester.makepyfile("def test_ok():\n    pass\n")
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    run = pytester.runpytest_subprocess("--rocm-matrix", "m.yaml", "--rocm-env", "env.json", "-p", "no:cacheprovider")
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.stdout.str()
    err = run.stderr.str()
    assert "INTERNALERROR" not in err + run.stdout.str() and "m.yaml:4: known_bad[0].when.torch:" in err


def test_a_5000_digit_rocm_set_version_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    run = pytester.runpytest_subprocess(f"--rocm-set=torch={BIG}", "-p", "no:cacheprovider")
    out = run.stdout.str() + run.stderr.str()
    assert run.ret == pytest.ExitCode.USAGE_ERROR and "INTERNALERROR" not in out and "Traceback" not in out


# ---- line numbers where there were none ----------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "the file is empty"),
        ("# nothing\n\n", 1, "the file is empty"),
        ("\n\n- a\n- b\n", 3, "the top level must be a mapping"),
        ("just text\n", 1, "the top level must be a mapping"),
        ("name: x\ndescription: ok\nnotes: " + "[" * 80 + "]" * 80 + "\n", 3, "nested more than 64 levels"),
        (
            "name: x\nnotes:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 90)) + "  " * 90 + "v: 1\n",
            2,
            "nested more than 64 levels",
        ),
    ],
)
def test_whole_file_problems_have_a_line(text: str, line: int, words: str, tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(text)
    problems = problems_of(path)
    assert any(p.line == line and words in p.message for p in problems), [str(p) for p in problems]


def test_invalid_utf8_gives_line_and_column_not_a_byte_offset(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_bytes("name: x\ndescription: café \xff here\n".encode().replace(b"\xc3\xbf", b"\xff"))
    (p,) = problems_of("m.yaml")
    assert str(p) == "m.yaml:2: not UTF-8 text: byte 0xff at column 19 (invalid start byte)"


# ---- keys echoed safely --------------------------------------------------------------------------
@pytest.mark.parametrize("key", ['"bad\\nkey"', '"esc\\e[31mred"', '"nul\\0x"'])
def test_control_characters_in_keys_are_escaped(key: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.yaml", f"name: x\n{key}: 1\nknown_bad:\n  - id: r\n    reason: r\n    when: {{{key}: 1}}\n")
    problems = problems_of("m.yaml")
    one_line(problems)
    assert len(problems) == 2 and all(str(p).startswith(f"m.yaml:{p.line}: ") for p in problems)
    assert {p.line for p in problems} == {2, 6}
    result = lint("m.yaml", cwd=tmp_path)
    assert len(result.stderr.strip().splitlines()) == 2 and "\x1b" not in result.stderr


# ---- YAML merge keys -----------------------------------------------------------------------------
def test_merge_keys_then_the_rules_own_id(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m.yaml",
        """
        name: merged
        known_bad:
          - &base
            id: base-rule
            action: skip
            reason: shared reason
            when: {platform: rocm}
          - <<: *base
            id: second-rule
          - <<: *base
            id: third-rule
            reason: its own reason
        """,
    )
    rules = load_matrix(path).rules
    assert [(r.id, r.reason, r.when.platforms) for r in rules] == [
        ("base-rule", "shared reason", ("rocm",)),
        ("second-rule", "shared reason", ("rocm",)),
        ("third-rule", "its own reason", ("rocm",)),
    ]


def test_a_real_duplicate_next_to_a_merge_is_still_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m.yaml",
        """
        name: merged
        known_bad:
          - &base {id: a, reason: r}
          - <<: *base
            id: b
            id: c
        """,
    )
    (p,) = problems_of(path)
    assert p.line == 6 and "duplicate key 'id' (first on line 5)" in p.message


# ---- signatures: ReDoS ---------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a*)*b", r"(.*x)+", r"^(\w+\s?)*$", r"(?:x+)+y"])
def test_nested_quantifiers_are_rejected_by_lint(pattern: str, tmp_path: Path) -> None:
    assert unsafe_reason(pattern)
    write(
        tmp_path / "m.yaml",
        f"name: x\nknown_bad:\n  - id: r\n    action: xfail\n    reason: r\n    signature: '{pattern}'\n",
    )
    result = lint("m.yaml", cwd=tmp_path)
    assert result.returncode == 1 and "m.yaml:6: known_bad[0].signature: " in result.stderr
    assert "nested quantifier" in result.stderr


@pytest.mark.parametrize(
    "pattern",
    [
        r"Memory access fault by GPU node-\d+",
        r"TensileLibrary.*gfx906",
        r"(foo|bar)+",
        r"torch\._scaled_mm is only supported on (CUDA )?devices",
    ],
)
def test_ordinary_signatures_pass(pattern: str) -> None:
    assert unsafe_reason(pattern) is None and compile_signature(pattern).search("x") is None


def test_a_slow_signature_times_out_instead_of_hanging() -> None:
    slow = compile_signature(r"(a|aa)+$")  # no nested quantifier, still exponential for `re`
    start = time.monotonic()
    with pytest.raises(SignatureTimeout, match=r"took longer than .* treated as not matching"):
        slow.search("a" * 40 + "!")
    assert time.monotonic() - start < 10


def test_a_timed_out_signature_is_a_note_in_the_session(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml",
        m="""
        name: x
        known_bad:
          - id: slow-sig
            action: xfail
            applies_to: all
            signature: '(a|aa)+$'
            reason: a slow signature
        """,
    )
    pytester.makepyfile("def test_a():\n    assert False, 'a' * 40 + '!'\n\ndef test_ok():\n    pass\n")
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    run = pytester.runpytest_subprocess(
        "--rocm-matrix", "m.yaml", "--rocm-env", "env.json", "-p", "no:cacheprovider", timeout=120
    )
    out = run.stdout.str()
    assert run.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "known-bad rule slow-sig (m.yaml:3): signature '(a|aa)+$' took longer than" in out
    run.assert_outcomes(failed=1, xpassed=1)  # test_ok: the rule's stale-rule


@pytest.mark.parametrize("kind", ["fifo", "device", "huge", "bad-utf8"])
def test_a_hostile_rocm_env_file_is_a_clear_usage_error(pytester: pytest.Pytester, kind: str) -> None:
    """``--rocm-env`` names a user's file like a matrix does: a FIFO must not block, a device or
    a huge file must not be read without end, undecodable bytes name their line."""
    from pytest_rocmcompat.stack.environment import ENVIRONMENT_FILE_BYTES

    pytester.makepyfile("def test_ok():\n    pass\n")
    target = pytester.path / "env.json"
    if kind == "fifo":
        os.mkfifo(target)
        arg = str(target)
    elif kind == "device":
        arg = "/dev/zero"
    elif kind == "huge":
        target.write_bytes(b" " * (ENVIRONMENT_FILE_BYTES + 1))
        arg = str(target)
    else:
        target.write_bytes(b'{\n  "platform": "cpu",\n  "x": "\xff"\n}\n')
        arg = str(target)
    start = time.monotonic()
    run = pytester.runpytest_subprocess(f"--rocm-env={arg}", "-p", "no:cacheprovider", timeout=120)
    assert time.monotonic() - start < 100
    assert run.ret == 4, run.stdout.str() + run.stderr.str()
    err = run.stderr.str()
    assert "Traceback" not in err and ("recorded environment" in err or kind == "bad-utf8"), err
    assert {"fifo": "FIFO", "device": "device", "huge": "MiB", "bad-utf8": ":3: not UTF-8"}[kind] in err, err


@pytest.mark.parametrize(
    "printed",
    [
        # torchvision's message as a terminal wrapped it (geocine/sd-easy-mode#18, verbatim)
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different\n"
        "CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA \nVersion=11.8.",
        "\x1b[31mRuntimeError\x1b[0m: Detected that PyTorch and torchvision were compiled with \x1b[1mdifferent\x1b[0m "
        "CUDA versions.",  # coloured
        "Detected that PyTorch and torchvision were compiled with different    CUDA versions.",  # padded
    ],
)
def test_a_wrapped_or_coloured_message_still_matches_its_signature(printed: str) -> None:
    signature = compile_signature(r"compiled with different CUDA (?:major )?versions")
    assert signature.search(printed) is not None
    assert signature.search("compiled with the same CUDA versions") is None
