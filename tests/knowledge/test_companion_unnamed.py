"""``requirement-not-met:<companion>``: torchvision or torchaudio unnamed beside a named torch is a risk.

The stack names torch only; the companion installed may be any release. Only its own load-failure
messages confirm the risk: the texts a mismatched torchvision printed on a real H100
(``tests/data/torchvision_on_torch211_h100``, torch 2.11.0+cu130) and texts quoted from public reports;
the matched release's own failure (a garbage JPEG) and an unrelated failure stay failures.
"""

from __future__ import annotations

import json
from functools import partial

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate_risks
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA
from tests.knowledge.risk_checks import risk_rule, stated_risks
from tests.knowledge.two_ways import predicted_and_unrelated

RECORDED = {
    p.stem: json.loads(p.read_text(encoding="utf-8"))
    for p in sorted((DATA / "torchvision_on_torch211_h100").glob("*.json"))
}
# a neutral machine: the recorded H100 lists its own torchvision, which a stated stack would then name
BASE = Environment(platform="cpu", python="3.12.3", os="Linux")
H100 = Environment.load(str(DATA / "env_h100_archs.json"))
RULE = f"{requirements.ID}:torchvision"
# quoted from public reports (message, source)
PUBLIC = (
    ("RuntimeError: operator torchvision::nms does not exist", "https://github.com/pytorch/vision/issues/8985"),
    ("RuntimeError: No such operator torchvision::nms", "https://github.com/pytorch/vision/issues/1405"),
    (
        "ImportError: /home/guobaozi/anaconda3/envs/PkuNet_apex/lib/python3.7/site-packages/torchvision/_C.so: "
        "undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
        "https://github.com/GOATmessi8/ASFF/issues/52",
    ),
)


risks = partial(stated_risks, BASE, RULE)
rule = partial(risk_rule, BASE, RULE)


def test_the_pairing_is_read_from_what_the_releases_declare() -> None:
    assert declared_data.pinned_to_torch("torchvision", Version("2.11.0")) == (Version("0.26.0"),)
    assert declared_data.pinned_to_torch("torchaudio", Version("2.5.1")) == (Version("2.5.1"),)


def test_a_named_torch_without_torchvision_is_a_risk_for_tests_that_use_it() -> None:
    (finding,) = risks("torch=2.11.0+cu130")
    assert finding.uncertain and finding.conditional and finding.signature_only
    assert finding.uses == ("torchvision",)
    assert "only torchvision 0.26.0 is built for torch 2.11.0" in finding.reason
    assert "torchvision==0.26.0" in finding.fix


@pytest.mark.parametrize("version", ["0.20.1", "0.24.1", "0.27.0", "0.28.0"])
def test_every_text_a_mismatched_release_printed_on_the_h100_confirms_it(version: str) -> None:
    record = RECORDED[version]
    torch = record["result"]["info"]["torch"]
    found = rule(f"torch={torch}")
    for text in (t for t in record["result"]["calls"].values() if t):
        assert found.signature_matches(text), text


def test_the_matched_releases_own_failure_does_not_confirm_it() -> None:
    calls = RECORDED["0.26.0"]["result"]["calls"]
    assert not rule("torch=2.11.0+cu130").signature_matches(calls["decode_jpeg"])


@pytest.mark.parametrize(("message", "source"), PUBLIC, ids=[s for _, s in PUBLIC])
def test_public_load_failures_confirm_it(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert rule("torch=2.4.0+cu121").signature_matches(message)


def test_another_packages_undefined_symbol_does_not() -> None:
    text = "ImportError: /site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c10"
    assert not rule("torch=2.4.0+cu121").signature_matches(text)


def test_a_named_companion_or_an_unpaired_torch_is_not_a_risk() -> None:
    assert risks("torch=2.5.1+cu124", "lib.torchvision=0.20.1") == []
    assert risks("torch=2.6.0.dev20241112+cu124") == []  # a nightly: no release declares it
    assert risks("torch=2.4.0a0+git1234") == []  # a source build


def test_a_live_host_lists_what_is_installed() -> None:
    # evaluate_risks is for stated stacks only: on a live host an unnamed companion is not installed
    assert "torchvision" in H100.libraries
    live = Environment(platform="cuda", python="3.12.3", os="Linux", torch="2.5.1+cu124")
    assert [f for f in evaluate_risks(live) if f.check == RULE] == []


def test_its_message_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, "operator torchvision::nms does not exist", ("torch=2.5.1+cu124",), uses="torchvision", env=BASE
    )
    assert predicted["rocm_rule"].startswith(RULE)
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated


# xFormers' warning when its _C does not load, as two users quote it (torch named, xformers not)
XFORMERS = (
    (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/11395",
        "torch=1.13.1+cu117",
        "0.0.16",
    ),
    (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
        "https://github.com/w1oves/Rein/issues/27",
        "torch=2.0.1",
        "0.0.22",
    ),
)


@pytest.mark.parametrize(("message", "source", "torch", "paired"), XFORMERS, ids=[s for _, s, _, _ in XFORMERS])
def test_xformers_unnamed_beside_torch_is_confirmed_by_its_load_warning(
    message: str, source: str, torch: str, paired: str
) -> None:
    assert source.startswith("https://github.com/")
    (finding,) = [f for f in evaluate_risks(apply_overrides(BASE, [torch])) if f.check.endswith(":xformers")]
    assert f"xformers=={paired}" in finding.fix and finding.uses == ("xformers",)
    assert compile_rules([finding])[0].signature_matches(message)
    assert not compile_rules([finding])[0].signature_matches("operator torchvision::nms does not exist")


# vLLM's _C built for another torch, as users quote it (torch named, vllm not)
VLLM = (
    (
        "WARNING 06-13 11:42:20 _custom_ops.py:11] Failed to import from vllm._C with ImportError('/usr/local/lib/"
        "python3.8/dist-packages/vllm/_C.abi3.so: undefined symbol: _ZN5torch7LibraryC1ENS0_4KindESsSt8optionalIN3c10"
        "11DispatchKeyEEPKcj')",
        "https://github.com/vllm-project/vllm/issues/5501",
    ),
    (
        "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.cpython-310-x86_64-linux-gnu.so: undefined "
        "symbol: _ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_"
        "INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE",
        "https://github.com/vllm-project/vllm/issues/3147",
    ),
)


@pytest.mark.parametrize(("message", "source"), VLLM, ids=[s for _, s in VLLM])
def test_vllm_unnamed_beside_torch_is_confirmed_by_a_missing_torch_symbol(message: str, source: str) -> None:
    assert source.startswith("https://github.com/vllm-project/")
    (finding,) = [f for f in evaluate_risks(apply_overrides(BASE, ["torch=2.2.1+cu121"])) if f.check.endswith(":vllm")]
    assert "vllm==0.4.1" in finding.fix and finding.uses == ("vllm",)
    assert compile_rules([finding])[0].signature_matches(message)


def test_a_missing_symbol_of_the_companions_own_code_is_not_claimed() -> None:
    # a vLLM source build missing its own kernel (vllm-project/vllm#23925): a build problem, not the torch pair
    own = "ImportError: /vllm/vllm/_C.abi3.so: undefined symbol: _Z24silu_and_mul_nvfp4_quantRN2at6TensorES1_S1_S1_"
    (finding,) = [f for f in evaluate_risks(apply_overrides(BASE, ["torch=2.8.0+cu128"])) if f.check.endswith(":vllm")]
    assert not compile_rules([finding])[0].signature_matches(own)
    # nor vLLM's warning on a platform that has no _C at all (Ascend's plugin, macOS)
    assert not compile_rules([finding])[0].signature_matches(
        'WARNING 03-11 02:47:04 _custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError("No module '
        "named 'vllm._C'\")"
    )


def test_vllm_on_rocm_is_not_paired_from_pypi() -> None:
    stated = apply_overrides(BASE, ["platform=rocm", "torch=2.5.1+rocm6.2"])
    checks = {f.check for f in evaluate_risks(stated)}
    assert f"{requirements.ID}:torchvision" in checks and f"{requirements.ID}:vllm" not in checks
