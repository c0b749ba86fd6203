"""Pure helpers: secret redaction (by name, by shape, by value) and escaping for each writer."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.probe.envvars import capture_env
from pytest_rocmcompat.safe_io.escape import md_cell, plain_text, safe_data, safe_text
from pytest_rocmcompat.safe_io.redact import (
    REDACTED,
    is_secret_name,
    redact_shapes,
    redact_text,
    secret_values_from_env,
)
from pytest_rocmcompat.stack.overrides import apply_overrides


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


def test_working_directories_are_paths_not_secrets() -> None:
    # PWD and OLDPWD are set by every shell; a name merely containing PWD is still a password
    for name in ("PWD", "OLDPWD"):
        assert not is_secret_name(name), name
    for name in ("MYSQL_PWD", "DB_PWD", "PWD_FILE", "OLDPWD2", "pwd", "Pwd"):
        assert is_secret_name(name), name
    env = {"PWD": "/home/alice/project", "OLDPWD": "/home/alice", "MYSQL_PWD": "hunter2-db"}
    assert secret_values_from_env(env) == ("hunter2-db",)
    text = "results in /home/alice/project/out (db hunter2-db)"
    assert redact_text(text, secret_values_from_env(env)) == f"results in /home/alice/project/out (db {REDACTED})"


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
    from tests.conftest import CPU_ENV

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
