"""Facts the stack implies (knowledge/derived_facts.py): each table row's effect, both ways."""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet

from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.derived_facts import (
    PACKAGE_FACTS,
    contains,
    derive,
    is_fixed,
    pypi_default_build,
)
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules
from pytest_rocmcompat.knowledge.rules.model import Rule, When
from pytest_rocmcompat.stack.environment import GPU, Environment

SM120 = (GPU(0, "NVIDIA GeForce RTX 5090", "sm_120"),)
MI300 = (GPU(0, "AMD Instinct MI300X", "gfx942"),)


def cuda_env(torch: str, **changes) -> Environment:
    fields: dict = {"platform": "cuda", "gpus": SM120, "torch": torch, "python": "3.11.9", "os": "Linux 6.8"}
    return Environment(**{**fields, **changes})


def active(env: Environment, **when) -> bool:
    rule = Rule(id="r", reason="test", when=When(**when))
    return bool(ActiveRules([rule], env).active)


# ---- untagged torch: the default PyPI build ---------------------------------------------
@pytest.mark.parametrize(
    ("torch", "tag"),
    [
        ("2.0.1", "cu117"),
        ("2.1.2", "cu121"),
        ("2.2.0", "cu121"),
        ("2.3.1", "cu121"),
        ("2.4.1", "cu121"),
        ("2.5.1", "cu124"),
        ("2.6.0", "cu124"),
        ("2.7.1", "cu126"),
        ("2.8.0", "cu128"),
        ("2.9.1", "cu128"),
        ("2.10.0", "cu128"),
    ],
)
def test_untagged_torch_gets_its_pypi_default_build(torch: str, tag: str) -> None:
    derived = derive(cuda_env(torch))
    assert derived.torch == f"{torch}+{tag}"
    assert any("default PyPI wheel" in note for note in derived.notes)


def test_every_build_comes_from_the_release_and_is_sourced() -> None:
    assert pypi_default_build("2.5.1") == ("cu124", "https://pypi.org/project/torch/2.5.1/")
    assert pypi_default_build("2.0.0") == ("cu117", "https://pypi.org/project/torch/2.0.0/")
    assert pypi_default_build("1.13.1") == ("cu117", "https://pypi.org/project/torch/1.13.1/")  # December 2022
    # before 1.13 the wheel bundles CUDA and pins no runtime: its own torch/version.py says the build (read in the
    # PyPI wheels), or a public report of pip's download of it (pytorch#53838, #43493)
    assert pypi_default_build("1.12.1") == ("cu102", "https://pypi.org/project/torch/1.12.1/#files")
    assert pypi_default_build("1.7.1") == ("cu102", "https://pypi.org/project/torch/1.7.1/#files")
    assert pypi_default_build("1.4.0") == ("cu101", "https://pypi.org/project/torch/1.4.0/#files")
    assert pypi_default_build("1.2.0") == ("cu100", "https://pypi.org/project/torch/1.2.0/#files")
    assert pypi_default_build("1.8.1") == ("cu102", "https://github.com/pytorch/pytorch/issues/53838")
    assert pypi_default_build("1.6.0") == ("cu102", "https://github.com/pytorch/pytorch/issues/43493")
    assert pypi_default_build("1.1.0") is None  # not read
    assert pypi_default_build("2.11.0") is None  # its wheel pins no CUDA runtime: the tag is not known
    for dist, _fact, _platforms, source in PACKAGE_FACTS:
        assert source.startswith("https://"), dist


def test_untagged_torch_on_sm120_fires_the_arch_check_as_the_tagged_build() -> None:
    untagged = evaluate(cuda_env("2.5.1"))
    tagged = evaluate(cuda_env("2.5.1+cu124"))
    assert [f.check for f in tagged] == ["arch-not-in-build"]
    assert [f.check for f in untagged] == ["arch-not-in-build"]
    assert untagged[0].reason == tagged[0].reason


def test_untagged_torch_sees_the_driver_check() -> None:
    env = cuda_env("2.8.0", driver_cuda="11.8", gpus=(GPU(0, "A100", "sm_80"),))
    assert "cuda-newer-than-driver" in [f.check for f in evaluate(env)]


def test_untagged_torch_on_unknown_platform_with_nvidia_packages() -> None:
    libs = {"nvidia-cublas-cu12": "12.4.5.8", "torch": "2.5.1"}
    env = Environment(platform="cpu", torch="2.5.1", libraries=libs)
    assert derive(env).torch == "2.5.1+cu124"
    assert derive(Environment(platform="cpu", torch="2.5.1", libraries={"torch": "2.5.1"})).torch == "2.5.1"


@pytest.mark.parametrize(
    "env",
    [
        Environment(platform="rocm", gpus=MI300, torch="2.5.1"),  # ROCm: an untagged torch stays unknown
        Environment(platform="cpu", torch="2.5.1", hip="6.2.41133", libraries={"nvidia-nccl-cu12": "2.21.5"}),
        cuda_env("2.4.0a0+git1234abc"),  # NGC / source build
        cuda_env("2.10.0.dev20250929"),  # a nightly without tag
        cuda_env("1.1.0"),  # its wheel bundles CUDA, pins no runtime, and was not read
        cuda_env("2.11.0"),  # its wheel pins no CUDA runtime
        cuda_env("2.5.1", os="Windows 10"),  # Windows/macOS PyPI wheels are CPU builds
        cuda_env("2.5.1", libraries={"nvidia-cuda-runtime-cu12": "12.1.105"}),  # another build's runtime
    ],
)
def test_nothing_derived_for_torch(env: Environment) -> None:
    assert derive(env).torch == env.torch


def test_rocm_untagged_torch_derives_nothing_at_all() -> None:
    env = Environment(platform="rocm", gpus=MI300, torch="2.5.1", libraries={"torch": "2.5.1"})
    assert derive(env) is env
    assert evaluate(env) == evaluate(env)  # and checks run on it unchanged


def test_tagged_torch_is_left_alone() -> None:
    env = cuda_env("2.5.1+cu121")
    assert derive(env) is env


# ---- facts torch's own wheel pins (the generated data) ------------------------------------
def test_untagged_torch_gets_what_its_wheel_pins() -> None:
    derived = derive(cuda_env("2.5.1"))
    assert (derived.nccl, derived.cuda) == ("2.21.5", "12.4.127")
    assert {k: derived.libraries[k] for k in ("cudnn", "cublas", "triton")} == {
        "cudnn": "9.1.0.70",
        "cublas": "12.4.5.8",
        "triton": "3.1.0",
    }
    assert any(
        "pinned by torch 2.5.1's PyPI wheel, nvidia-nccl-cu12 (https://pypi.org/project/torch/2.5.1/)" in n
        for n in derived.notes
    )
    assert active(cuda_env("2.5.1"), versions=(("nccl", SpecifierSet("==2.21.5")),))
    old = derive(cuda_env("2.0.1"))  # a 2023 release: CUDA 11.7 wheels
    assert (old.torch, old.nccl, old.cuda, old.libraries["triton"]) == ("2.0.1+cu117", "2.14.3", "11.7.99", "2.0.0")


def test_wheel_pins_follow_their_markers() -> None:
    # torch 2.5.1 pins triton only below Python 3.13
    assert "triton" not in derive(cuda_env("2.5.1", python="3.13.1")).libraries
    assert derive(cuda_env("2.5.1", python="3.12.7")).libraries["triton"] == "3.1.0"


def test_the_tagged_default_wheel_gets_its_pins_another_build_does_not() -> None:
    assert derive(cuda_env("2.7.1+cu126")).nccl == "2.26.2"
    assert derive(cuda_env("2.7.1+cu118")).nccl is None


def test_listed_packages_win_over_torch_pins() -> None:
    libs = {"nvidia-nccl-cu12": "2.27.3", "triton": "3.1.1"}
    derived = derive(cuda_env("2.5.1", libraries=libs))
    assert derived.nccl == "2.27.3" and derived.libraries["triton"] == "3.1.1"
    assert derive(cuda_env("2.5.1", nccl="2.20.5")).nccl == "2.20.5"


@pytest.mark.parametrize(
    "env",
    [
        Environment(platform="rocm", gpus=MI300, torch="2.5.1"),
        Environment(platform="rocm", gpus=MI300, torch="2.5.1+rocm6.2"),
        cuda_env("2.5.1", os="Windows 10"),
        cuda_env("2.4.0a0+git1234abc"),
        cuda_env("2.5.1", libraries={"nvidia-cuda-runtime-cu12": "12.1.105"}),  # another build's runtime
    ],
)
def test_no_wheel_pins_where_the_wheel_is_not_pypis(env: Environment) -> None:
    derived = derive(env)
    assert derived.nccl is None and "cudnn" not in derived.libraries and "triton" not in derived.libraries


# ---- facts from packages ----------------------------------------------------------------
def test_nvidia_nccl_package_matches_a_rule_on_nccl() -> None:
    env = cuda_env("2.8.0+cu128", libraries={"nvidia-nccl-cu12": "2.27.3"})
    assert env.nccl is None
    assert derive(env).nccl == "2.27.3"
    assert active(env, versions=(("nccl", SpecifierSet("==2.27.3")),))
    assert not active(env, versions=(("nccl", SpecifierSet("==2.19.*")),))


@pytest.mark.parametrize(
    ("dist", "field", "version"),
    [
        ("nvidia-nccl-cu11", "nccl", "2.14.3"),
        ("nvidia-cuda-runtime-cu12", "cuda", "12.4.127"),
        ("nvidia-cuda-runtime-cu11", "cuda", "11.8.89"),
    ],
)
def test_package_gives_a_field(dist: str, field: str, version: str) -> None:
    env = Environment(platform="cuda", torch="2.5.1+cu124", libraries={dist: version})
    assert getattr(derive(env), field) == version


@pytest.mark.parametrize(
    ("dist", "name"),
    [
        ("nvidia-cudnn-cu12", "cudnn"),
        ("nvidia-cudnn-cu11", "cudnn"),
        ("nvidia-cublas-cu12", "cublas"),
    ],
)
def test_package_gives_a_library_a_rule_can_name(dist: str, name: str) -> None:
    env = Environment(platform="cuda", torch="2.5.1+cu124", libraries={dist: "9.1.0.70"})
    assert derive(env).libraries[name] == "9.1.0.70"
    assert active(env, libraries=((name, SpecifierSet("<9.2")),))
    assert not active(env, libraries=((name, SpecifierSet(">=9.2")),))


def test_rocm_packages() -> None:
    env = Environment(
        platform="rocm", gpus=MI300, torch="2.5.1+rocm6.2", libraries={"rccl": "2.22.3", "hipblaslt": "0.10.0"}
    )
    derived = derive(env)
    assert derived.nccl == "2.22.3" and derived.libraries["hipblaslt"] == "0.10.0"
    assert active(env, versions=(("nccl", SpecifierSet(">=2.22")),))
    # NVIDIA's packages say nothing on a ROCm stack, ROCm's nothing on a CUDA one
    assert derive(Environment(platform="rocm", libraries={"nvidia-nccl-cu12": "2.27.3"})).nccl is None
    assert derive(Environment(platform="cuda", libraries={"rccl": "2.22.3"})).nccl is None


def test_explicitly_set_facts_win() -> None:
    libs = {
        "nvidia-nccl-cu12": "2.27.3",
        "nvidia-cuda-runtime-cu12": "12.8.90",
        "nvidia-cudnn-cu12": "9.10.2.21",
        "cudnn": "9.1",
    }
    env = cuda_env("2.8.0+cu128", nccl="2.26.2", cuda="12.9", libraries=libs)
    derived = derive(env)
    assert (derived.nccl, derived.cuda, derived.libraries["cudnn"]) == ("2.26.2", "12.9", "9.1")
    assert derived.torch == "2.8.0+cu128"
    assert not active(env, versions=(("nccl", SpecifierSet("==2.27.3")),))


def test_derive_is_idempotent_and_leaves_the_input_alone() -> None:
    env = cuda_env("2.5.1", libraries={"nvidia-nccl-cu12": "2.21.5"})
    once = derive(env)
    assert derive(once) is once
    assert env.torch == "2.5.1" and env.nccl is None


# ---- prereleases, dev and local builds, per bound --------------------------------------
SNAPSHOT = "2.4.0a0+git1234abc"


@pytest.mark.parametrize(
    ("spec", "holds"),
    [
        (">=2.4", True),  # lower bound: the release it precedes
        (">=2.4.0", True),
        (">2.3", True),
        (">2.4", False),
        ("~=2.4", True),
        (">=2.5", False),
        ("<2.4", True),  # upper bound (the fix): the snapshot may lack it
        ("<2.4.0", True),
        ("<=2.3.9", False),
        ("<2.3", False),
        (">=2.2,<2.4", True),
        ("==2.4.*", True),
        ("==2.4.0", False),
        ("!=2.4.0", True),
    ],
)
def test_snapshot_per_bound(spec: str, holds: bool) -> None:
    assert contains(SpecifierSet(spec), SNAPSHOT) is holds


def test_snapshot_satisfies_a_rule_lower_bound_and_is_not_fixed() -> None:
    env = Environment(platform="cuda", torch=SNAPSHOT)
    assert active(env, versions=(("torch", SpecifierSet(">=2.4")),))
    # a rule written `torch <2.4` with fixed_in torch 2.4.0 still holds for the snapshot
    assert active(env, versions=(("torch", SpecifierSet("<2.4")),))
    assert not is_fixed(SNAPSHOT, "2.4.0")
    assert is_fixed("2.4.0+cu121", "2.4.0") and is_fixed("2.4.1", "2.4.0")


@pytest.mark.parametrize("version", ["2.6.0.dev20241112", "2.6.0rc1", "2.6.0a0+ecf3bae40a.nv25.01"])
def test_dev_and_rc_builds_too(version: str) -> None:
    assert contains(SpecifierSet(">=2.6"), version)
    assert contains(SpecifierSet("<2.6"), version)
    assert not is_fixed(version, "2.6.0")


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [(">=2.4", "2.4.0", "2.3.1"), ("<2.4", "2.3.1+cu121", "2.4.0+cu121"), (">=2.4,<2.6", "2.5.1+rocm6.2", "2.6.0")],
)
def test_final_releases_compare_as_pep440(spec: str, inside: str, outside: str) -> None:
    assert contains(SpecifierSet(spec), inside)
    assert not contains(SpecifierSet(spec), outside)


def test_library_condition_uses_the_same_bounds() -> None:
    env = Environment(platform="cuda", libraries={"triton": "3.3.0a0+git96316ce5"})
    assert active(env, libraries=(("triton", SpecifierSet(">=3.3")),))
    assert active(env, libraries=(("triton", SpecifierSet("<3.3")),))


def test_an_untagged_2021_torch_on_an_ampere_gpu_is_the_cu102_wheel_without_sm_86() -> None:
    """pytorch#53838: `pip install torch` (1.8) on an RTX 3090: sm_86 is not in the cu102 build."""
    env = derive(cuda_env("1.8.1", python="3.8.10"))
    assert env.torch == "1.8.1+cu102"
    assert any("pytorch/issues/53838" in note for note in env.notes)


def test_an_untagged_torch_1_12_on_an_ampere_gpu_is_its_cu102_wheel() -> None:
    """torch 1.12.1 from PyPI is the cu102 wheel (its torch/version.py): CUDA 10.2 has no sm_86 code."""
    ampere = (GPU(0, "NVIDIA GeForce RTX 3090", "sm_86"),)
    untagged = [f.check for f in evaluate(cuda_env("1.12.1", gpus=ampere, python="3.10.12"))]
    tagged = [f.check for f in evaluate(cuda_env("1.12.1+cu102", gpus=ampere, python="3.10.12"))]
    assert "arch-not-in-build" in untagged and untagged == tagged
