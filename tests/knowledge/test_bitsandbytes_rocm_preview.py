"""``bitsandbytes-rocm-build`` beyond PyPI: the preview wheels' ROCm libraries and targets, and the
loader's messages quoted from real ROCm reports."""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm, bitsandbytes_rocm_data
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str) -> list[tuple[str, bool, str]]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [(f.reason, f.uncertain, f.link) for f in evaluate(env) if f.check == bitsandbytes_rocm.ID]


@pytest.mark.parametrize(
    ("stack", "problem", "link"),
    [
        # multi-backend-refactor's previews (0.43.3.dev ... 0.45.3.devN, then 1.0.0): gfx90a;gfx942;gfx1100
        (
            ("arch=gfx1030", "torch=2.4.1+rocm6.1", "lib.bitsandbytes=0.43.3.dev0"),
            "library has no kernels for gfx1030 (gfx90a, gfx942, gfx1100)",
            bitsandbytes_rocm_data.SOURCE_MBR,
        ),
        (
            ("arch=gfx1101", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.44.1.dev0+9315692"),
            "a multi-backend-refactor preview wheel or a source build",
            bitsandbytes_rocm_data.SOURCE_MBR,
        ),
        (
            ("arch=gfx1030", "rocm=6.2.4", "lib.bitsandbytes=1.0.0"),
            "no kernels for gfx1030",
            bitsandbytes_rocm_data.SOURCE_MBR,
        ),
        # ... and ROCm 6.1, 6.2, 6.3 libraries only
        (
            ("arch=gfx90a", "torch=2.7.1+rocm6.4", "lib.bitsandbytes=0.45.3.dev271"),
            "ship no ROCm 6.4 library (ROCm 6.1, 6.2, 6.3)",
            bitsandbytes_rocm_data.SOURCE_MBR,
        ),
        # main's previews before #1788: gfx90a/gfx942/gfx1100 on ROCm 6.1.2-7.0 (installation.mdx 0.48.0)
        (
            ("arch=gfx1101", "torch=2.8.0+rocm6.4", "lib.bitsandbytes=0.48.2.dev0"),
            "no kernels for gfx1101",
            bitsandbytes_rocm_data.SOURCE_MAIN_048,
        ),
        (
            ("arch=gfx942", "torch=2.9.0+rocm7.1", "lib.bitsandbytes=0.48.1.dev0"),
            "no ROCm 7.1 library",
            bitsandbytes_rocm_data.SOURCE_MAIN_048,
        ),
        # 0.49's dev previews: RDNA4 only in the ROCm 6.4+ libraries
        (
            ("arch=gfx1201", "torch=2.6.0+rocm6.2", "lib.bitsandbytes=0.49.1.dev0"),
            "ROCm 6.2 library has no kernels for gfx1201",
            bitsandbytes_rocm_data.SOURCE_MAIN,
        ),
        # no ROCm stated: a GPU in none of the version's preview libraries
        (
            ("arch=gfx1102", "lib.bitsandbytes=0.47.0.dev0"),
            "no preview wheel of it has kernels for gfx1102",
            bitsandbytes_rocm_data.SOURCE_MAIN_048,
        ),
        # a GPU no build lists: under a dev version or a local label a source build may still target it
        (
            ("arch=gfx906", "rocm=6.2.4", "lib.bitsandbytes=0.44.1.dev0"),
            "has no ROCm build for gfx906",
            bitsandbytes_rocm.SOURCE_FIRST,
        ),
        (
            ("arch=gfx906", "rocm=6.2.4", "lib.bitsandbytes=0.43.3+rocm"),
            "has no ROCm build for gfx906",
            bitsandbytes_rocm.SOURCE_FIRST,
        ),
    ],
)
def test_a_dev_bitsandbytes_on_what_its_previews_lack_is_a_risk(
    stack: tuple[str, ...], problem: str, link: str
) -> None:
    (found,) = _found(*stack)
    assert problem in found[0] and found[1] is True and found[2] == link


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1100", "torch=2.4.1+rocm6.1", "lib.bitsandbytes=0.43.3.dev0"),
        ("arch=gfx942", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.44.1.dev0+9315692"),
        ("arch=gfx90a", "rocm=6.3.2", "lib.bitsandbytes=1.0.0"),
        ("arch=gfx90a", "torch=2.6.0+rocm6.3", "lib.bitsandbytes=0.45.3.dev271"),
        ("arch=gfx1100", "torch=2.8.0+rocm6.4", "lib.bitsandbytes=0.48.2.dev0"),
        ("arch=gfx942", "torch=2.8.0+rocm7.0", "lib.bitsandbytes=0.48.1.dev0"),
        ("arch=gfx1201", "torch=2.9.1+rocm6.4", "lib.bitsandbytes=0.49.1.dev0"),
        ("arch=gfx950", "torch=2.10.0+rocm7.2", "lib.bitsandbytes=0.49.2.dev0"),
        ("arch=gfx1030", "torch=2.12.0+rocm7.14", "lib.bitsandbytes=0.50.1.dev0"),  # 7.14: RDNA2 added
        ("arch=gfx1100", "lib.bitsandbytes=0.47.0.dev0"),
        # beyond the tabled dev versions, or a pre-release that is no preview: only floor and unlisted GPUs
        ("arch=gfx1030", "torch=2.12.0+rocm7.2", "lib.bitsandbytes=0.51.0.dev0"),
        ("arch=gfx1030", "rocm=6.2.4", "lib.bitsandbytes=0.44.0rc1"),
        ("arch=gfx1030", "rocm=6.2.4", "lib.bitsandbytes=0.42.0.dev0"),  # before any ROCm preview
    ],
)
def test_a_dev_bitsandbytes_on_what_its_previews_carry_says_nothing(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_pypi_release_and_a_gpu_no_build_lists_stay_verdicts() -> None:
    (pypi,) = _found("arch=gfx1101", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.45.0")
    assert "carries no ROCm library" in pypi[0] and pypi[1] is False
    (unlisted,) = _found("arch=gfx906", "rocm=6.2.4")  # no bitsandbytes named: conditional, still certain
    assert unlisted[1] is False
    (floor,) = _found("arch=gfx1100", "rocm=5.7.1", "lib.bitsandbytes=0.44.1.dev0")  # ROCm 5: no build at all
    assert "has no ROCm 5.7 build" in floor[0] and floor[1] is False


def test_preview_rows_follow_the_build_scripts() -> None:
    mbr = bitsandbytes_rocm_data.preview_of(Version("0.45.3.dev271"))
    assert mbr is not None and mbr.branch == "multi-backend-refactor" and set(mbr.rocm) == {"6.1", "6.2", "6.3"}
    assert set(mbr.rocm["6.2"]) == {"gfx90a", "gfx942", "gfx1100"}
    assert bitsandbytes_rocm_data.preview_of(Version("0.45.0")) is None  # a release is no preview
    assert bitsandbytes_rocm_data.preview_of(Version("0.51.0.dev0")) is None  # not tabled
    late = bitsandbytes_rocm_data.preview_of(Version("0.50.2.dev0"))
    assert late is not None and "gfx1250" in late.rocm["7.14"] and "6.2" not in late.rocm
    early = bitsandbytes_rocm_data.preview_of(Version("0.50.0.dev0"))
    assert early is not None and "gfx1250" not in early.rocm["7.14"] and "gfx1102" in early.rocm["6.2"]
    # every preview target is one a release or preview lists (EVER stays the never-served complement)
    assert {
        t for p in bitsandbytes_rocm_data.PREVIEWS for row in p.rocm.values() for t in row
    } <= bitsandbytes_rocm.EVER


# (message as the report quotes it, report). Messages the ROCm loader prints when no library serves.
VERBATIM = [
    (  # multi-backend-refactor's cextension.py: a library built for another ROCm than torch's
        "ROCm Setup failed despite ROCm being available. Please run the following command to get more information:",
        "https://github.com/ROCm/bitsandbytes/issues/82",
    ),
    (  # the same template before the ROCm wording (its source, 0.43.1-0.45)
        "CUDA Setup failed despite CUDA being available. Please run the following command to get more information:",
        "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.3/bitsandbytes/cextension.py",
    ),
    (
        "Could not find the bitsandbytes ROCm binary at "
        "PosixPath('/home/USER/ROCm/Almalinux/bitsandbytes/bitsandbytes/libbitsandbytes_rocm63.so')",
        "https://github.com/ROCm/bitsandbytes/issues/82",
    ),
    (  # the rocm_enabled fork's library, built for its CDNA fallback list, on a gfx1100
        "Error invalid device function at line 679 in file /bitsandbytes/csrc/ops.hip",
        "https://github.com/ROCm/bitsandbytes/issues/29",
    ),
    (
        "The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, "
        "8-bit multiplication, and GPU quantization are unavailable.",
        "https://github.com/ROCm/bitsandbytes/issues/64",
    ),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_predicts_the_rocm_loaders_messages(message: str, source: str) -> None:
    assert source in (bitsandbytes_rocm.__doc__ or "")  # cited where the held-out citation check sees it
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        # bitsandbytes' rocminfo warning (cuda_specs.py): no library problem
        "ROCm GPU architecture detection failed despite ROCm being available.",
        "RuntimeError: HIP error: out of memory",
        "CUDA setup complete",
    ],
)
def test_does_not_claim_other_rocm_failures(message: str) -> None:
    assert compile_signature(bitsandbytes_rocm.PREDICTS).search(message) is None


def test_a_preview_risk_becomes_an_at_risk_rule_that_only_the_loaders_message_confirms() -> None:
    env = apply_overrides(
        BASE, ["platform=rocm", "arch=gfx1030", "torch=2.5.1+rocm6.2", "lib.bitsandbytes=0.44.1.dev0"]
    )
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id == bitsandbytes_rocm.ID]
    assert rule.at_risk
    assert rule.signature_matches("Error invalid device function at line 679 in file /bitsandbytes/csrc/ops.hip")
    assert not rule.signature_matches("ValueError: a genuinely different regression")
