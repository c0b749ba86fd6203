"""The Environment value object: JSON round-trip, replay files, overrides."""

from __future__ import annotations

import json

import pytest

from pytest_rocmcompat.stack.environment import Environment, EnvironmentFileError
from pytest_rocmcompat.stack.overrides import OverrideError, apply_overrides
from tests.conftest import CPU_ENV, MI50_ENV, MI300_ENV


@pytest.mark.parametrize("env", [CPU_ENV, MI50_ENV, MI300_ENV])
def test_json_round_trip(env: Environment) -> None:
    again = Environment.from_json(env.to_json())
    assert again == env and again.to_json() == env.to_json()


def test_derived_fields() -> None:
    assert MI50_ENV.archs == ("gfx906",)
    assert str(MI50_ENV.torch_rocm) == "6.2" and MI50_ENV.torch_local == "rocm6.2"
    assert str(MI50_ENV.rocm_version) == "6.2.4"
    no_system = Environment(platform="rocm", torch="2.4.1+rocm6.0")
    assert str(no_system.rocm_version) == "6.0"
    hip_only = Environment(platform="rocm", torch="2.4.1", hip="6.1.40091-a8dbc0c19")
    assert str(hip_only.torch_rocm) == "6.1"
    cuda = Environment(platform="cuda", torch="2.4.1+cu121", cuda="12.1")
    assert str(cuda.torch_cuda) == "12.1" and cuda.torch_rocm is None
    assert "platform=rocm arch=gfx906 x1" in MI50_ENV.summary()


def test_load_labels_replay(env_file) -> None:
    path = env_file(MI50_ENV)
    env = Environment.load(str(path))
    assert env.source == "replay" and env.origin == str(path) and env.gpus == MI50_ENV.gpus


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "top level must be a JSON object"),
        ('{"platform": "tpu"}', "platform: 'tpu' is not one of"),
        ('{"gpus": [1]}', "gpus[0]: expected an object"),
        ('{"gpus": [{"index": 0}]}', "gpus[0]:"),
        ('{"libraries": {"torch": 2}}', "libraries: expected an object of strings"),
        ('{"wat": 1}', "unknown field(s) 'wat'"),
        ('{"torch": 2.5}', "torch: expected a string or null"),
    ],
)
def test_load_errors_name_the_file(tmp_path, content: str, message: str) -> None:
    path = tmp_path / "env.json"
    path.write_text(content)
    with pytest.raises(EnvironmentFileError) as info:
        Environment.load(str(path))
    assert str(path) in str(info.value) and message in str(info.value)


def test_load_missing_file(tmp_path) -> None:
    with pytest.raises(EnvironmentFileError, match="cannot read the recorded environment"):
        Environment.load(str(tmp_path / "nope.json"))


def test_overrides() -> None:
    env = apply_overrides(
        CPU_ENV,
        [
            "platform=rocm",
            "arch=gfx906",
            "torch=2.5.1+rocm6.2",
            "lib.torchao=0.7.0",
            "env.HSA_OVERRIDE_GFX_VERSION=9.0.6",
            "python=3.12.1",
        ],
    )
    assert env.source == "overridden" and env.platform == "rocm" and env.archs == ("gfx906",)
    assert env.torch == "2.5.1+rocm6.2" and env.libraries["torchao"] == "0.7.0"
    assert env.env["HSA_OVERRIDE_GFX_VERSION"] == "9.0.6" and env.python == "3.12.1"
    assert env.gpus[0].vendor == "amd"
    multi = apply_overrides(MI300_ENV, ["arch=gfx90a"])
    assert len(multi.gpus) == 8 and multi.archs == ("gfx90a",)
    assert multi.gpus[0].memory_bytes == MI300_ENV.gpus[0].memory_bytes
    assert apply_overrides(CPU_ENV, []) is CPU_ENV


def test_override_on_replay_keeps_origin(env_file) -> None:
    replayed = Environment.load(str(env_file(MI50_ENV)))
    env = apply_overrides(replayed, ["torch=2.4.1+rocm6.0"])
    assert env.origin.startswith(replayed.origin) and "torch=2.4.1+rocm6.0" in env.origin


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("platform=tpu", "platform must be one of"),
        ("arch=mi300", "is not a GPU architecture"),
        ("arch=", "is not a GPU architecture"),
        ("torch=latest", "'latest' is not a valid version"),
        ("lib.torchao=new", "'new' is not a valid version"),
        ("gpu=1", "unknown key 'gpu'"),
        ("torch", "expected KEY=VALUE"),
        ("=1", "expected KEY=VALUE"),
    ],
)
def test_override_errors(assignment: str, message: str) -> None:
    with pytest.raises(OverrideError) as info:
        apply_overrides(CPU_ENV, [assignment])
    assert message in str(info.value) and assignment in str(info.value)


def test_to_dict_is_plain_json() -> None:
    data = json.loads(MI300_ENV.to_json())
    assert data["schema"] == 1 and data["gpus"][0]["arch"] == "gfx942"


def test_summary_names_python_only_when_known() -> None:
    """A stack file states no Python: the header line leaves it out rather than print ``python=``."""
    stated = Environment(platform="rocm", torch="2.3.1", source="replay")
    assert "python" not in stated.summary() and "torch=2.3.1" in stated.summary()
    assert "python=3.12.1" in apply_overrides(stated, ["python=3.12.1"]).summary()
