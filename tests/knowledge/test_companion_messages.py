"""``requirement-not-met``: more of what torch's companions print beside a torch they were not built for.

torchaudio's library refused by ``torch.ops.load_library``, Inductor's probe of a Triton without
``cluster_dims``, and PyPI's ``triton`` beside an official ``+rocm`` torch (whose wheel pins
``pytorch-triton-rocm``, or ``triton-rocm`` from 2.10: both ship the same ``triton`` module). Each
message is quoted verbatim from the public report beside it and must be predicted for its pair;
failures of other packages, or of no version pair, must not be.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.row_checks import rule as rule_of
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.10.14", os="Linux")
# torchaudio 2.4.0 declares torch==2.4.0 (PyPI); torch 2.2.0 declares triton==2.2.0 (PyPI)
AUDIO = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchaudio=2.4.0")
VISION = ("platform=cuda", "torch=2.1.2+cu121", "lib.torchvision=0.17.0")  # 0.17.0 declares torch==2.2.0
TRITON = ("platform=cuda", "torch=2.2.0+cu121", "lib.triton=2.1.0")
# triton-windows 3.3 pairs torch 2.7 (its README); torch 2.6 beside it
TRITON_WIN = ("platform=cuda", "os=Windows", "torch=2.6.0+cu126", "lib.triton-windows=3.3.0.post14")
# the +rocm6.2 wheel of torch 2.5.1 pins pytorch-triton-rocm==3.1.0; PyPI's triton 3.2.0 installed too
ROCM_UPSTREAM = (
    "platform=rocm",
    "arch=gfx90a",
    "torch=2.5.1+rocm6.2",
    "lib.pytorch-triton-rocm=3.1.0",
    "lib.triton=3.2.0",
)

# (message, source, stack)
CORPUS: list[tuple[str, str, tuple[str, ...]]] = [
    (  # torch.ops.load_library's OSError, chained to "libcudart.so.12: cannot open shared object file"
        "OSError: Could not load this library: /home/viblab/anaconda3/lib/python3.12/site-packages/torchaudio/lib/"
        "libtorchaudio.so",
        "https://github.com/AI4Bharat/IndicVoices/issues/5",
        AUDIO,
    ),
    (  # torchvision 0.17 imported beside a torch in ~/.local: its fake kernels find no torchvision::nms
        '"ValueError: Could not find the operator torchvision::nms" upon importing torchvision',
        "https://github.com/pytorch/vision/issues/8289",
        VISION,
    ),
    (  # torch/_custom_op/impl.py's full text
        "Tests fail: ValueError: Could not find the operator torchvision::nms. Please make sure you have already "
        "registered the operator and (if registered from C++) loaded it via torch.ops.load_library.",
        "https://github.com/pytorch/vision/issues/8278",
        VISION,
    ),
    (  # a torch main build's Inductor beside Triton 2.1 (fixed for old Tritons by pytorch/pytorch#117192)
        "Triton CompiledKernel object does not has any of the attributes: ('cluster_dims', 'clusterDims')",
        "https://github.com/pytorch/pytorch/issues/117185",
        TRITON,
    ),
    (
        "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' "
        "(...\\site-packages\\triton\\compiler\\compiler.py)",
        "https://github.com/woct0rdho/triton-windows/issues/97",
        TRITON_WIN,
    ),
    (  # OpenAI's (CUDA) triton installed in a ROCm torch's place: Inductor links its launcher to libcuda
        "/usr/bin/ld: cannot find -lcuda",
        "https://github.com/ROCm/pytorch/pull/1251",
        ROCM_UPSTREAM,
    ),
    (  # the Triton pair's own messages reach the ROCm finding too
        "torch._inductor.exc.InductorError: AttributeError: 'KernelMetadata' object has no attribute 'cluster_dims'",
        "https://github.com/ROCm/pytorch/pull/2838",
        ROCM_UPSTREAM,
    ),
]


def _rule(stack: tuple[str, ...]) -> Rule:
    return rule_of(BASE, *stack)


@pytest.mark.parametrize(("message", "source", "stack"), CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_each_report_is_predicted_for_its_pair(message: str, source: str, stack: tuple[str, ...]) -> None:
    assert source.startswith("https://github.com/")
    rule = _rule(stack)
    assert rule.signature is not None and rule.signature.search(message)


OTHERS: list[tuple[str, tuple[str, ...]]] = [
    (UNRELATED, ROCM_UPSTREAM),
    ("Segmentation fault (core dumped)", ROCM_UPSTREAM),
    ("RuntimeError: HIP error: invalid device function", ROCM_UPSTREAM),
    # Triton's compilation-cache race on a shared cache directory, not a version pair
    ("AttributeError: 'CompiledKernel' object has no attribute 'module'", TRITON),
    ("AttributeError: 'CompiledKernel' object has no attribute 'module'", ROCM_UPSTREAM),
    # torchcodec's library (torchaudio 2.9's I/O), not torchaudio's (Saganaki22/ComfyUI-FishAudioS2#18)
    (
        "OSError: Could not load this library: D:\\Comfy Easy Install\\ComfyUI-Easy-Install\\python_embeded\\Lib\\"
        "site-packages\\torchcodec\\libtorchcodec_core4.dll",
        AUDIO,
    ),
    ("OSError: Could not load this library: /opt/venv/lib/python3.12/site-packages/my_ext/libmy_ext.so", AUDIO),
    # a CUDA stack's missing libcuda.so link or ptxas failure is no Triton pair's failure
    ("/usr/bin/ld: cannot find -lcuda", TRITON),
    ("RuntimeError: Internal Triton PTX codegen error: ptxas fatal", TRITON),
    # another library's operator, not torchvision's
    ("ValueError: Could not find the operator mylib::nms. Please make sure you have already registered", VISION),
    # another helper's attributes
    ("AssertionError: obj does not has any of the attributes: ('foo', 'bar')", TRITON),
]


@pytest.mark.parametrize(("message", "stack"), OTHERS)
def test_other_failures_are_not_predicted(message: str, stack: tuple[str, ...]) -> None:
    rule = _rule(stack)
    assert rule.signature is not None and not rule.signature.search(message)


# ---- PyPI's triton installed beside the ROCm Triton of an official +rocm torch, both ways ----
@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (ROCM_UPSTREAM, "torch 2.5.1+rocm6.2 requires the triton module of pytorch-triton-rocm==3.1.0"),
        (
            ("platform=rocm", "torch=2.11.0+rocm7.1", "lib.triton-rocm=3.6.0", "lib.triton=3.5.1"),
            "requires the triton module of triton-rocm==3.6.0, installed triton 3.5.1 beside it",
        ),
        (
            ("platform=rocm", "torch=2.3.1+rocm5.7", "lib.pytorch-triton-rocm=2.3.1", "lib.triton=2.2.0"),
            "pytorch-triton-rocm==2.3.1 on Python < 3.12",
        ),
        # PyPI's at the pinned version, no pin known, or a CUDA torch: nothing to report (PyPI's alone:
        # test_pypi_triton_alone_beside_an_official_rocm_torch)
        (("platform=rocm", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.1.0", "lib.triton=3.1.0"), None),
        (("platform=rocm", "torch=2.5.1+rocm6.2", "lib.triton=3.1.0"), None),
        (
            (
                "platform=rocm",
                "python=3.12.1",
                "torch=2.3.1+rocm5.7",
                "lib.pytorch-triton-rocm=2.3.1",
                "lib.triton=2.2.0",
            ),
            None,  # 2.3's ROCm wheels declare no Triton on Python 3.12
        ),
        (
            ("platform=rocm", "torch=2.6.0+rocm6.4.1.git1ded221d", "lib.pytorch-triton-rocm=3.2.0", "lib.triton=3.0.0"),
            None,  # AMD's own build pins its own Triton
        ),
        (("platform=cuda", "torch=2.5.1+cu124", "lib.triton=3.1.0", "lib.pytorch-triton-rocm=3.0.0"), None),
    ],
)
def test_pypi_triton_beside_rocm_triton_both_ways(stack: tuple[str, ...], found: str | None) -> None:
    env = apply_overrides(BASE, list(stack))
    findings = [f for f in evaluate(env) if f.check == requirements.ID]
    if found is None:
        assert findings == []
        return
    (finding,) = findings
    assert found in finding.reason and "(both install the triton module)" in finding.reason
    assert finding.uses == requirements.COMPILE_USES  # eager torch never imports Triton
    assert finding.link == requirements.ROCM_TRITON_WHEEL


def test_pypi_triton_alone_beside_an_official_rocm_torch() -> None:
    """PyPI's triton the only Triton named: its triton module is the one Inductor imports. A replay's unnamed
    ROCm Triton may be installed too (the install order decides): a risk claiming the pair's own texts."""
    env = apply_overrides(BASE, ["platform=rocm", "torch=2.5.1+rocm6.2", "lib.triton=3.2.0"])
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert "the triton module of pytorch-triton-rocm==3.1.0, installed triton 3.2.0 (PyPI's" in finding.reason
    assert finding.uncertain and finding.signature_only and finding.uses == requirements.COMPILE_USES
    assert finding.link == requirements.ROCM_TRITON_WHEEL
    # Inductor's import of a Triton internal the installed release moved (requirements.INDUCTOR_TRITON_IMPORTS)
    assert re.search(
        finding.predicts, "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'"
    )
    assert not re.search(finding.predicts, UNRELATED)


def test_a_stack_file_with_pypi_triton_alone_is_a_risk_too() -> None:
    """A requirements file naming torch+rocm and PyPI's triton: pip installs the pinned ROCm Triton with torch all
    the same, and the install order decides which owns the module (a risk, never counted against the stack)."""
    whole = Environment(
        platform="rocm", python="3.10.14", os="Linux", torch="2.5.1+rocm6.2", libraries={"triton": "3.2.0"}
    )
    whole = replace(whole, source="replay", origin="requirements.txt")  # rocmcompat check FILE
    (finding,) = [f for f in evaluate(whole) if f.check == requirements.ID]
    assert finding.uncertain and "installed triton 3.2.0 (PyPI's" in finding.reason


def test_a_replay_judges_only_the_triton_it_names() -> None:
    """A --rocm-set replay naming the ROCm Triton leaves the base machine's PyPI triton out."""
    base = Environment(platform="cpu", python="3.10.14", os="Linux", libraries={"triton": "3.2.0"})
    stack = ("platform=rocm", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.1.0")
    env = apply_overrides(base, list(stack))
    assert env.libraries.get("triton") == "3.2.0"
    assert [f for f in evaluate(env) if f.check == requirements.ID] == []


def test_the_rocm_build_itself_off_its_pin_is_still_reported() -> None:
    """The ROCm Triton distribution at another version is judged as before, beside PyPI's at the pin's."""
    stack = ("platform=rocm", "torch=2.5.1+rocm6.2", "lib.pytorch-triton-rocm=3.0.0", "lib.triton=3.1.0")
    env = apply_overrides(BASE, list(stack))
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert "installed pytorch-triton-rocm 3.0.0" in finding.reason and "installed triton " not in finding.reason


def test_through_pytest_pypi_triton_on_rocm_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, CORPUS[3][0], ROCM_UPSTREAM, uses="torch.compile", env=BASE, error="RuntimeError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    # a risk (the install order decides which triton owns the module): an unrelated failure names no cause
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert unrelated.get("rocm_note", "").startswith("risk ") and "likely cause" not in unrelated["rocm_note"]


def test_pypi_triton_beside_the_rocm_triton_is_a_risk() -> None:
    """Both install the ``triton`` module: the one installed last owns it, which no stack states."""
    (finding,) = requirements.check(apply_overrides(BASE, list(ROCM_UPSTREAM)))
    assert finding.uncertain
