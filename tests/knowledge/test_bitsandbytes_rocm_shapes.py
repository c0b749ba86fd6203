"""``bitsandbytes-rocm-build`` on stacks as users state them: no platform, a ROCm release only, Windows, dev
versions only source builds carry, 0.50's library fallback and overrides, and the messages of real ROCm reports.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm, bitsandbytes_rocm_data
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
CDNA = bitsandbytes_rocm_data.SOURCE_CDNA
WIN = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.49.2/docs/source/installation.mdx"
WIN_50 = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.50.1/docs/source/installation.mdx"


def _found(*stack: str) -> list[tuple[str, bool, str]]:
    env = apply_overrides(BASE, list(stack))
    return [(f.reason, f.uncertain, f.link) for f in evaluate(env) if f.check == bitsandbytes_rocm.ID]


# (stack, what the finding says, uncertain, link): shapes the check was silent on before this round
FOUND = [
    # no platform stated: an AMD GPU, a ROCm release or a +rocm torch makes the stack ROCm
    (("arch=gfx1100", "lib.bitsandbytes=0.43.1"), "from PyPI carries no ROCm library", False, bitsandbytes_rocm.SOURCE_PREVIEW),
    # 0.42.0 on ROCm >= 5.7 may be ROCm/bitsandbytes' rocm5.7_internal_testing fork (its version): a risk;
    # another release (or an older ROCm) has no ROCm 5 build at all
    (("rocm=5.7", "lib.bitsandbytes=0.42.0"), "has no ROCm 5.7 build", True, bitsandbytes_rocm.SOURCE_FLOOR),
    (("torch=2.2.0+rocm5.7", "lib.bitsandbytes=0.42.0"), "has no ROCm 5.7 build", True, bitsandbytes_rocm.SOURCE_FLOOR),
    (("rocm=5.7", "lib.bitsandbytes=0.43.1"), "has no ROCm 5.7 build", False, bitsandbytes_rocm.SOURCE_FLOOR),
    (("rocm=5.6", "lib.bitsandbytes=0.42.0"), "has no ROCm 5.6 build", False, bitsandbytes_rocm.SOURCE_FLOOR),
    (("rocm=5.6", "lib.bitsandbytes=0.41.3.post1"), "has no ROCm 5.6 build", True, bitsandbytes_rocm.SOURCE_FLOOR),
    (("hip=6.2.41133", "arch=gfx1100", "lib.bitsandbytes=0.44.1"), "carries no ROCm library", False, bitsandbytes_rocm.SOURCE_PREVIEW),
    # an untagged torch implies a CUDA platform, but the GPU is AMD
    (("platform=cuda", "arch=gfx1030", "lib.bitsandbytes=0.45.0"), "carries no ROCm library", False, bitsandbytes_rocm.SOURCE_PREVIEW),
    # dev versions only source builds carry: their CMake falls back to CDNA targets
    (("platform=rocm", "arch=gfx1100", "lib.bitsandbytes=0.44.0.dev0"), "no kernels for gfx1100 unless built", True, CDNA),
    (("platform=rocm", "arch=gfx1100", "torch=2.3.0+rocm6.0", "lib.bitsandbytes=0.43.2.dev0"), "gfx1100", True, CDNA),
    (("platform=rocm", "arch=gfx1031", "rocm=6.2.4", "lib.bitsandbytes=0.43.2.dev0+local"), "gfx1031", True, CDNA),
    # ... and ROCm/bitsandbytes' fork built them on ROCm before 6.1: the floor is a risk there
    (("platform=rocm", "arch=gfx90a", "torch=2.3.0+rocm6.0", "lib.bitsandbytes=0.43.2.dev0"), "has no ROCm 6.0 build", True, bitsandbytes_rocm.SOURCE_FLOOR),
    # Windows: 0.49 ships no ROCm library for it, 0.50 RDNA only for ROCm 7.2 and 7.14
    (("platform=rocm", "os=Windows", "arch=gfx1201", "lib.bitsandbytes=0.49.1"), "ships no ROCm library for Windows", False, WIN),
    (("platform=rocm", "os=Windows", "arch=gfx1103", "torch=2.9.1+rocm7.2", "lib.bitsandbytes=0.50.0"), "no kernels for gfx1103 in its ROCm 7.2", False, WIN_50),
    (("platform=rocm", "os=Windows", "arch=gfx1100", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0"), "ships no library for ROCm 6.4", False, WIN_50),
    # 0.50's loader: the same major's nearest library, or what BNB_ROCM_VERSION names
    (("platform=rocm", "arch=gfx1030", "torch=2.9.1+rocm7.3", "lib.bitsandbytes=0.50.0"), "ROCm 7.2 library, which its loader picks for ROCm 7.3", False, WIN_50),
    (("platform=rocm", "arch=gfx942", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0", "env.BNB_ROCM_VERSION=62"), "ships no libbitsandbytes_rocm62", False, bitsandbytes_rocm.SOURCE_LOADER_050),
    (("platform=rocm", "arch=gfx942", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0", "env.BNB_ROCM_VERSION=6.4"), "digits only", False, bitsandbytes_rocm.SOURCE_LOADER_050),
    (("platform=rocm", "arch=gfx1030", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0", "env.BNB_ROCM_VERSION=64"), "no kernels for gfx1030 in the ROCm 6.4 library", False, bitsandbytes_rocm.SOURCE_LOADER_050),
    # 0.49 refuses BNB_CUDA_VERSION under ROCm
    (("platform=rocm", "arch=gfx942", "torch=2.6.0+rocm6.3", "lib.bitsandbytes=0.49.1", "env.BNB_CUDA_VERSION=126"), "refuses BNB_CUDA_VERSION=126", False, bitsandbytes_rocm.SOURCE_REFUSES_CUDA_OVERRIDE),
    # a dev build before #1889 on ROCm 7.10+ looks for libbitsandbytes_rocm80.so (7.10), rocm82.so (7.12)
    (("platform=rocm", "arch=gfx1151", "torch=2.10.0+rocm7.12", "lib.bitsandbytes=0.49.2.dev0"), "looks for libbitsandbytes_rocm82", False, bitsandbytes_rocm.SOURCE_NAME_BUG),
    (("platform=rocm", "arch=gfx1103", "rocm=7.10", "lib.bitsandbytes=0.48.2.dev0"), "looks for libbitsandbytes_rocm80", False, bitsandbytes_rocm.SOURCE_NAME_BUG),
    # a source build names its library after the system ROCm, the loader wants torch's (ROCm/bitsandbytes#82)
    (("platform=rocm", "arch=gfx90a", "rocm=6.3.2", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.43.3.dev0"), "names its library libbitsandbytes_rocm63) finds no libbitsandbytes_rocm62", True, bitsandbytes_rocm.SOURCE_NAMED_BY_HIP),
    (("platform=rocm", "arch=gfx942", "rocm=6.4.4", "torch=2.9.1+rocm7.0", "lib.bitsandbytes=0.50.1.dev0+g1234"), "finds no libbitsandbytes_rocm70", True, bitsandbytes_rocm.SOURCE_NAMED_BY_HIP),
]  # fmt: skip


@pytest.mark.parametrize(("stack", "problem", "uncertain", "link"), FOUND)
def test_shapes_users_state_are_found(stack: tuple[str, ...], problem: str, uncertain: bool, link: str) -> None:
    (found,) = _found(*stack)
    assert problem in found[0] and found[1] is uncertain and found[2] == link


# Shapes nothing sourced says are broken: silent
SILENT = [
    ("lib.bitsandbytes=0.43.1",),  # no GPU, platform or ROCm: not a ROCm stack
    ("platform=cuda", "arch=sm_80", "rocm=6.2", "lib.bitsandbytes=0.43.1"),  # NVIDIA GPUs win over a stray rocm=
    ("platform=rocm", "arch=gfx1100", "lib.bitsandbytes-rocm=0.37.2"),  # a fork's name: its targets are its own
    ("arch=gfx1100", "lib.bitsandbytes=0.43.3.dev0"),  # multi-backend-refactor's previews carry gfx1100
    ("arch=gfx1100", "lib.bitsandbytes=0.44.0.dev0+abc1234"),  # with a hash: a multi-backend-refactor preview
    ("arch=gfx90a", "lib.bitsandbytes=0.44.0.dev0"),  # the fork's CDNA fallback serves gfx90a
    ("platform=rocm", "os=Windows", "arch=gfx1100", "torch=2.9.1+rocm7.2", "lib.bitsandbytes=0.50.0"),
    ("platform=rocm", "os=Linux 5.15.153.1-microsoft-standard-WSL2", "arch=gfx1100", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.49.1"),
    ("platform=rocm", "arch=gfx942", "torch=2.9.1+rocm7.3", "lib.bitsandbytes=0.50.0"),  # loads the 7.2 library
    ("platform=rocm", "arch=gfx942", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.50.0", "env.BNB_ROCM_VERSION=70"),
    ("platform=rocm", "arch=gfx1151", "torch=2.12.0+rocm7.14", "lib.bitsandbytes=0.50.0.dev0"),  # after #1889
    # a PyPI wheel carries a library per ROCm (the system's does not matter); from #1980 the same major serves
    ("platform=rocm", "arch=gfx90a", "rocm=6.3.2", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.49.1"),
    ("platform=rocm", "arch=gfx942", "rocm=7.2.1", "torch=2.9.1+rocm7.0", "lib.bitsandbytes=0.50.1.dev0+g1234"),
]  # fmt: skip


@pytest.mark.parametrize("stack", SILENT)
def test_shapes_nothing_is_known_about_say_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_loader_fallback_follows_cextension() -> None:
    rows = bitsandbytes_rocm_data.LINUX_0501
    pick = bitsandbytes_rocm._library_for
    v50, v49 = bitsandbytes_rocm.LOADER_FALLBACK, Version("0.49.2")
    assert pick(v50, rows, Version("7.3")) == "7.2"  # highest older, same major
    assert pick(v50, rows, Version("6.2")) == "6.4"  # else lowest newer, same major
    assert pick(v50, rows, Version("7.14")) == "7.14"
    assert pick(v50, rows, Version("8.0")) is None  # no cross-major fallback
    assert pick(v49, bitsandbytes_rocm_data.LINUX_0492, Version("6.1")) is None


def test_windows_rows_are_the_guides() -> None:
    assert all(w.windows == {} for w in bitsandbytes_rocm_data.PYPI_WHEELS if w.first < Version("0.50"))
    win = bitsandbytes_rocm_data.WINDOWS_0501
    assert set(win) == {"7.2", "7.14"} and "gfx1103" not in win["7.2"] and "gfx1103" not in win["7.14"]
    assert "gfx1030" in win["7.14"] and not any(t.startswith("gfx9") for row in win.values() for t in row)


def test_source_only_versions() -> None:
    of = bitsandbytes_rocm_data.source_only_of
    assert of(Version("0.43.2.dev0")) is not None and of(Version("0.43.2.dev0+rocm")) is not None
    assert of(Version("0.44.0.dev0")) is not None and of(Version("0.44.0.dev0+abc1234")) is None
    assert of(Version("0.44.0rc1")) is None and of(Version("0.43.2")) is None and of(Version("0.43.3.dev0")) is None


# (message as the report quotes it, report): real bitsandbytes failures on ROCm stacks
REPORTS = [
    ("Error invalid device function at line 224 in file /src/csrc/ops.hip", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1464"),
    (
        "OSError: /opt/conda/envs/py_3.10/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: "
        "cannot open shared object file: No such file or directory.",
        "https://github.com/ROCm/bitsandbytes/issues/35",
    ),
    (
        "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, "
        "8-bit multiplication, and GPU quantization are unavailable.",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/372",
    ),
    ("WARNING: No libcudart.so found! Install CUDA or the cudatoolkit package (anaconda)!", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/47"),
    ('warn("The installed version of bitsandbytes was compiled without GPU support. "', "https://github.com/oobabooga/textgen/issues/4558"),
    ("hipErrorNoBinaryForGpu", "https://github.com/broncotc/bitsandbytes-rocm/issues/3"),
    ("[bug]: Docker - The installed version of bitsandbytes was compiled without GPU support", "https://github.com/invoke-ai/InvokeAI/issues/8678"),
    ("Could not load bitsandbytes native library: 'NoneType' object has no attribute 'split'", "https://github.com/ROCm/ROCm-docker/issues/149"),
    ("CUDA Setup failed despite CUDA being available. Please run the following command to get more information:", "https://github.com/ROCm/ROCm-docker/issues/149"),
    (
        "Could not find the bitsandbytes ROCm binary at "
        "PosixPath('/home/mcon/AMD/.venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_rocm63.so')",
        "https://github.com/ROCm/legacy-rocm-build/issues/4358",
    ),
    (
        "RuntimeError: Configured ROCm binary not found at "
        "/home/jerry/Desktop/bitsandbytes/bitsandbytes/libbitsandbytes_rocm80.so",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1799",
    ),
    (
        "bitsandbytes library load error: Configured ROCm binary not found at C:\\Users\\stefa\\AppData\\Local\\Amuse"
        "\\PythonRuntime\\Pipelines\\.rocm-721\\Lib\\site-packages\\bitsandbytes\\libbitsandbytes_rocm72.dll",
        "https://github.com/saddam213/AmuseAI/issues/6",
    ),
    ("'NoneType' object has no attribute 'cget_col_row_stats'", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1427"),
    ('major, minor = map(int, torch.version.cuda.split("."))', "https://github.com/oobabooga/textgen/issues/3339"),
    (
        "[bitsandbytes.cextension|ERROR]bitsandbytes library load error: Configured ROCm binary not found at "
        "/home/ubuntu/unsloth-env/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_rocm82.so",
        "https://github.com/amd/playbooks/issues/250",
    ),
]  # fmt: skip

# (text as bitsandbytes' source has it, source): the new alternatives no report quotes
SOURCE = [
    (
        'raise RuntimeError(f"No compatible {BNB_BACKEND} binary found at {cuda_binary_path}")',
        bitsandbytes_rocm.SOURCE_LOADER_050,
    ),
    (
        "raise RuntimeError(f\"{override_var}={override_value!r}: value must be digits only (e.g. '124' for 12.4).\")",
        bitsandbytes_rocm.SOURCE_LOADER_050,
    ),
    ('f"BNB_CUDA_VERSION={override_value} detected for ROCm!! \\n"', bitsandbytes_rocm.SOURCE_REFUSES_CUDA_OVERRIDE),
    (
        "f\"Method '{name}' not available in CPU-only version of bitsandbytes.\\n\"",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.49.0/bitsandbytes/cextension.py",
    ),
]


@pytest.mark.parametrize(("message", "source"), REPORTS)
def test_predicts_what_rocm_reports_quote(message: str, source: str) -> None:
    assert source in (bitsandbytes_rocm.__doc__ or "")  # cited where the held-out citation check sees it
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None


@pytest.mark.parametrize(("message", "source"), SOURCE)
def test_predicts_the_loaders_own_texts(message: str, source: str) -> None:
    assert source.startswith("https://github.com/bitsandbytes-foundation/bitsandbytes/blob/")
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "AttributeError: 'NoneType' object has no attribute 'split'",  # any None.split, without bitsandbytes' line
        "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `HIPBLAS_STATUS_NOT_SUPPORTED`",
        "OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory",
        "No prebuilt binary for ROCm 6.2, loading ROCm 6.4 instead. Set BNB_ROCM_VERSION to override.",  # a warning
        "Exception: cublasLt ran into an error!",
    ],
)
def test_does_not_claim_nearby_failures(message: str) -> None:
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is None


def test_a_windows_verdict_makes_a_certain_rule() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "os=Windows", "arch=gfx1201", "lib.bitsandbytes=0.49.1"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == bitsandbytes_rocm.ID]
    assert not rule.at_risk and rule.signature_matches(REPORTS[11][0])


@pytest.mark.parametrize(
    ("stack", "predicted", "certain"),
    [
        (("arch=gfx1100", "lib.bitsandbytes=0.43.1"), REPORTS[7][0], True),  # no platform stated
        (("platform=rocm", "os=Windows", "arch=gfx1201", "lib.bitsandbytes=0.49.1"), REPORTS[11][0], True),
        # a risk: only its predicted failure is claimed; an unrelated one gets no diagnosis from it
        (("platform=rocm", "arch=gfx1100", "lib.bitsandbytes=0.44.0.dev0"), REPORTS[0][0], False),
    ],
)  # fmt: skip
def test_predicted_is_known_bad_and_unrelated_fails(
    pytester: pytest.Pytester, stack: tuple[str, ...], predicted: str, certain: bool
) -> None:
    """Through pytest: the predicted failure ends known-bad, an unrelated one fails with the diagnosis."""
    found, unrelated = predicted_and_unrelated(pytester, predicted, stack, uses="bitsandbytes", env=BASE)
    assert found["rocm_rule"] == bitsandbytes_rocm.ID
    assert "rocm_rule" not in unrelated
    assert unrelated.get("rocm_diagnosis", "").startswith(f"{bitsandbytes_rocm.ID}: ") is certain


# No bitsandbytes named on a GPU some release serves: which release is installed decides (PyPI before
# 0.49.0 has no ROCm library): uncertain, confirmed only by a failure the check predicts
@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1103",),  # an APU: 0.50 lists it
        ("arch=gfx1035",),  # 0.50's ROCm 7.14 library lists it
        ("arch=gfx1031", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        ("platform=rocm", "arch=gfx1100", "rocm=6.2.4"),
    ],
)
def test_an_unnamed_bitsandbytes_is_an_uncertain_finding(stack: tuple[str, ...]) -> None:
    (finding,) = [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == bitsandbytes_rocm.ID]
    assert finding.uncertain and finding.conditional and "before 0.49.0 carry no ROCm library" in finding.reason


@pytest.mark.parametrize(
    ("message", "claimed"),
    [
        ("The installed version of bitsandbytes was compiled without GPU support.", True),
        ("AttributeError: 'NoneType' object has no attribute 'cquantize_blockwise_fp16_nf4'", True),
        # another library's missing kernel, an ordinary bug: not a bitsandbytes without a ROCm library
        ("RuntimeError: HIP error: invalid device function", False),
        ("AttributeError: 'NoneType' object has no attribute 'config'", False),
    ],
)
def test_an_unnamed_bitsandbytes_claims_only_a_missing_library(message: str, claimed: bool) -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx942", "torch=2.7.1+rocm6.4"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == bitsandbytes_rocm.ID]
    assert rule.at_risk and rule.signature_matches(message) is claimed


def test_a_probed_machine_without_bitsandbytes_gets_no_unnamed_finding() -> None:
    """Live or recorded, an unnamed bitsandbytes is not installed: nothing to judge."""
    from pytest_rocmcompat.stack.environment import GPU

    live = Environment(platform="rocm", python="3.11.7", os="Linux", torch="2.7.1+rocm6.4",
                       gpus=(GPU(0, "AMD Instinct MI300X", "gfx942"),))  # fmt: skip
    assert bitsandbytes_rocm.check(live) == []
    assert bitsandbytes_rocm.check(apply_overrides(live, ["platform=rocm"])) != []  # stated: a risk
