"""Pure helpers: version series, build tags, arch names, secret redaction."""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.safe_io.redact import REDACTED, is_secret_name, redact_text, secret_values_from_env
from pytest_rocmcompat.stack.arch import arch_matches, is_valid_arch, is_valid_arch_pattern, normalize_arch, nvidia_arch
from pytest_rocmcompat.stack.versions import (
    InvalidSpecifier,
    build_tag_version,
    coerce_version,
    in_series,
    parse_specifier,
    specifier_contains,
)


@pytest.mark.parametrize(
    ("version", "series", "expected"),
    [
        ("2.6.3", "2.6", True),
        ("2.6.0+rocm6.2", "2.6", True),
        ("2.60.0", "2.6", False),
        ("2.7.0", "2.6", False),
        ("2.6", "2.6.0", True),
        ("2.6.1", "2.6.0", False),
        ("3.11.7", "3", True),
        ("2.6.0.dev20241001", "2.6", True),
        ("1!2.6.0", "2.6", False),
    ],
)
def test_in_series(version: str, series: str, expected: bool) -> None:
    assert in_series(Version(version), Version(series)) is expected


@pytest.mark.parametrize(
    ("spec", "version", "expected"),
    [
        (">=2.5", "2.5.1+rocm6.2", True),
        ("==2.5.1", "2.5.1+rocm6.2", True),
        ("==2.5.1+rocm6.2", "2.5.1+rocm6.2", True),
        ("==2.5.1+rocm6.2", "2.5.1+cu121", False),
        ("<2.6", "2.6.0.dev20241001+rocm6.2", False),
        ("<2.6", "2.5.0rc1", True),
        ("2.5.1", "2.5.1", True),
        ("2.5.1", "2.5.2", False),
        ("==2.5.*", "2.5.9+rocm6.2", True),
    ],
)
def test_specifier_semantics(spec: str, version: str, expected: bool) -> None:
    assert specifier_contains(parse_specifier(spec), version) is expected


@pytest.mark.parametrize("bad", [">=2.x", "", "  ", "=>2.5", "~=2", "latest"])
def test_bad_specifier_raises(bad: str) -> None:
    with pytest.raises(InvalidSpecifier):
        parse_specifier(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6.2.41133-dd7f95766", "6.2.41133"),
        ("12.4", "12.4"),
        ("550.54.15", "550.54.15"),
        ("v6.3.0", "6.3.0"),
        ("garbage", None),
        (None, None),
    ],
)
def test_coerce_version(text, expected) -> None:
    result = coerce_version(text)
    assert (str(result) if result is not None else None) == expected


@pytest.mark.parametrize(
    ("local", "kind", "expected"),
    [
        ("rocm6.2", "rocm", "6.2"),
        ("rocm6.2.4", "rocm", "6.2.4"),
        ("rocm7", "rocm", "7.0"),
        ("cu121", "cuda", "12.1"),
        ("cu118", "cuda", "11.8"),
        ("cu130", "cuda", "13.0"),
        ("cpu", "rocm", None),
        ("rocm6.2", "cuda", None),
        (None, "rocm", None),
    ],
)
def test_build_tag_version(local, kind, expected) -> None:
    result = build_tag_version(local, kind)
    assert (str(result) if result is not None else None) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("gfx906:sramecc+:xnack-", "gfx906"),
        ("gfx90a:xnack+", "gfx90a"),
        (" GFX942 ", "gfx942"),
        ("sm_90", "sm_90"),
        ("SM90", "sm_90"),
        ("gfx1100", "gfx1100"),
    ],
)
def test_normalize_arch(raw: str, expected: str) -> None:
    assert normalize_arch(raw) == expected


def test_arch_names_and_globs() -> None:
    assert nvidia_arch(9, 0) == "sm_90" and nvidia_arch(8, 9) == "sm_89"
    assert is_valid_arch("gfx942") and is_valid_arch("sm_100a") and not is_valid_arch("gfx94*")
    assert not is_valid_arch("vega20") and not is_valid_arch("gfx")
    assert is_valid_arch_pattern("gfx94*") and is_valid_arch_pattern("sm_8?")
    assert not is_valid_arch_pattern("mi300") and not is_valid_arch_pattern("*")
    assert arch_matches("gfx942", "gfx94*") and arch_matches("gfx906:xnack-", "gfx906")
    assert not arch_matches("gfx1100", "gfx11") and not arch_matches("gfx90a", "gfx94*")


def test_secret_names() -> None:
    for name in (
        "HF_TOKEN",
        "WANDB_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "AZURE_CREDENTIALS",
        "NCCL_IB_AUTH",
    ):
        assert is_secret_name(name), name
    for name in ("HIP_VISIBLE_DEVICES", "NCCL_DEBUG", "PYTORCH_HIP_ALLOC_CONF"):
        assert not is_secret_name(name), name


def test_redact_text_token_shapes_and_values() -> None:
    text = (
        "login hf_abcdefghijklmnopqrstuvwxyz012345 then ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 "
        "aws AKIAIOSFODNN7EXAMPLE and my-own-secret-value"
    )
    out = redact_text(text, secret_values_from_env({"MY_SECRET": "my-own-secret-value", "HOME": "/root"}))
    assert "hf_abc" not in out and "ghp_" not in out and "AKIAIOSFODNN7EXAMPLE" not in out
    assert "my-own-secret-value" not in out and out.count(REDACTED) == 4
    assert "login" in out and "then" in out


# ---- redaction by shape, on values -----------------------------------------------------------
from pytest_rocmcompat.probe.envvars import capture_env  # noqa: E402
from pytest_rocmcompat.safe_io.escape import md_cell, plain_text, safe_data, safe_text  # noqa: E402
from pytest_rocmcompat.safe_io.redact import redact_shapes  # noqa: E402
from pytest_rocmcompat.stack.overrides import apply_overrides  # noqa: E402


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("https://user:pa55w0rd@host/simple", "https://[redacted]@host/simple"),
        ("git+https://ghp_abcdefghijklmnopqrstuvwxyz@github.com/x", "git+https://[redacted]@github.com/x"),
        ("ftp://token@mirror/x", "ftp://[redacted]@mirror/x"),
        ("Authorization: Bearer abcdEFGH1234ijkl", "Authorization: Bearer [redacted]"),
        ("db password=hunter2x; next", "db password=[redacted]; next"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nrest", "[redacted]\nrest"),
        ("xoxp-1234567890-abcdef end", "[redacted] end"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijkl", "[redacted]"),
    ],
)
def test_secret_shapes_are_redacted(text: str, kept: str) -> None:
    assert redact_shapes(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        "http://example.com/a@b",
        "token_count=5",
        "max_tokens: 128",
        "Bearer authentication failed",
        "unexpected token: 'x'",
        "see https://github.com/ROCm/ROCm/issues/1234",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_shapes(text) == text


def test_a_secret_value_with_xml_specials_is_caught_before_escaping(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = 'p&ss<w>"rd!42'
    monkeypatch.setenv("DB_PASSWORD", secret)
    cell = md_cell(f"login failed for {secret}")
    assert secret not in cell and "p&amp;ss" not in cell and "[redacted]" in cell
    assert safe_text(f"x {secret} y", (secret,)) == "x [redacted] y"


def test_capture_env_redacts_url_credentials_in_allow_listed_variables() -> None:
    env = capture_env(
        {
            "VLLM_INDEX_URL": "https://user:pa55w0rd@mirror.example/simple",
            "NCCL_SOCKET_PASSWORD": "whatever1",
            "HIP_VISIBLE_DEVICES": "0,1",
            "HOME": "/root",
        }
    )
    assert env == {
        "HIP_VISIBLE_DEVICES": "0,1",
        "NCCL_SOCKET_PASSWORD": REDACTED,
        "VLLM_INDEX_URL": "https://[redacted]@mirror.example/simple",
    }


def test_rocm_set_of_a_secret_variable_is_redacted_everywhere() -> None:
    from .conftest import CPU_ENV

    env = apply_overrides(CPU_ENV, ["env.NCCL_SOCKET_PASSWORD=s3cretValue77", "env.VLLM_URL=https://u:pw123456@h/x"])
    assert env.env["NCCL_SOCKET_PASSWORD"] == REDACTED and env.env["VLLM_URL"] == "https://[redacted]@h/x"
    assert "s3cretValue77" not in env.origin and "s3cretValue77" not in env.summary()
    assert "s3cretValue77" in secret_values_from_env({})  # scrubbed from every later output
    assert safe_text("echo s3cretValue77") == "echo [redacted]"


def test_plain_text_repairs_what_writers_cannot_write() -> None:
    assert plain_text("x\udcffy") == "x\ufffdy"
    assert plain_text("a\x1b[31mb\x00c\x07d\x9be\tf\ng") == "a[31mbcde\tf\ng"
    assert plain_text("plain ascii") == "plain ascii" and plain_text("日本") == "日本"
    with pytest.raises(UnicodeEncodeError):  # the input really is unencodable ...
        "x\udcffy".encode("utf-8")
    plain_text("x\udcffy").encode("utf-8")  # ... the output is not


def test_markdown_links_and_images_are_defused() -> None:
    cell = md_cell("![i](https://evil.example/i.png) and [c](https://evil.example/c)")
    assert "![i](" not in cell and "](https" not in cell and "evil.example/i.png" in cell


def test_safe_data_walks_json_shapes() -> None:
    data = safe_data({"k\x1b": ["https://u:p4ssw0rd@h", 3, None, {"t": "hf_" + "a" * 24}]}, ())
    assert data == {"k": ["https://[redacted]@h", 3, None, {"t": "[redacted]"}]}


@pytest.mark.parametrize(
    ("arg", "shown"),
    [
        ("env.NCCL_SOCKET_PASSWORD=s0cket", "env.NCCL_SOCKET_PASSWORD=[redacted]"),
        ("--rocm-set=env.WANDB_KEY=abc", "--rocm-set=env.WANDB_KEY=[redacted]"),
        ("HF_TOKEN=x", "HF_TOKEN=[redacted]"),
        ("junit_suite_name=nightly", "junit_suite_name=nightly"),  # a name that is not secret
        ("--rocm-set=torch_archs=gfx942", "--rocm-set=torch_archs=gfx942"),
        ("requires.vllm=torch==2.5", "requires.vllm=torch==2.5"),
        ("--basetemp=/tmp/x", "--basetemp=/tmp/x"),
        ("a==b", "a==b"),
    ],
)
def test_redact_args_by_the_assigned_name(arg: str, shown: str) -> None:
    from pytest_rocmcompat.safe_io.redact import redact_args

    assert redact_args(["-x", arg]) == ["-x", shown]


def test_terminal_text_keeps_lines_and_escapes_what_would_overwrite_one() -> None:
    from pytest_rocmcompat.safe_io.escape import terminal_line, terminal_text

    text = "first \x1b[31mred\x1b[0m\rFAKE\nsecond\ttab https://u:pw123@h/x \u2028 \x85end"
    assert terminal_text(text) == "first [31mred[0m\\rFAKE\nsecond\\ttab https://[redacted]@h/x \\u2028 end"
    assert terminal_line(text) == "first [31mred[0m\\rFAKE\\nsecond\\ttab https://[redacted]@h/x \\u2028 end"
    key = "-----BEGIN PRIVATE KEY-----\nMIIbody\n-----END PRIVATE KEY-----"
    assert "MIIbody" not in terminal_text(f"a\n{key}\nb")  # redacted whole, before it is cut into lines
