"""``library-min-arch`` per library release: an old release is judged by what it served, a new one
is not flagged for archs it gained, an unlisted version by every release (a conditional finding)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")


def found(library: str, *assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, list(assignments))
    return [f for f in library_arch.check(env) if f.uses == (library,)]


# ---- the table ----------------------------------------------------------------------------------
def test_each_library_has_one_latest_row_and_valid_ranges() -> None:
    for library, vendor in {(r.library, r.vendor) for r in arch_table.LIB_MIN_ARCH}:
        rows = [r for r in arch_table.LIB_MIN_ARCH if (r.library, r.vendor) == (library, vendor)]
        assert [r.versions for r in rows].count("") == 1, (library, vendor)
        for row in rows:
            assert row.source.startswith("https://")
            if not row.rule.startswith("sm>="):
                assert all(arch_table.info(n) is not None for n in row.rule.split()), row


@pytest.mark.parametrize(
    ("library", "vendor", "version", "rule"),
    [
        ("vllm", "amd", "0.4.3", "gfx90a gfx942 gfx1100"),
        ("vllm", "amd", "0.7.2", "gfx90a gfx942 gfx1100"),
        ("vllm", "amd", "0.9.2", "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1200 gfx1201"),
        ("vllm", "amd", "0.14.0", "gfx90a gfx942 gfx950 gfx1100 gfx1101 gfx1150 gfx1151 gfx1200 gfx1201"),
        ("vllm", "nvidia", "0.14.0", "sm>=70"),
        ("vllm", "nvidia", "0.20.2", "sm>=70"),
        ("vllm", "nvidia", "0.21.0", "sm>=75"),
        ("flash_attn", "nvidia", "1.0.9", "sm>=75"),
        ("flash_attn", "nvidia", "2.8.3", "sm>=80"),
        ("flash_attn", "amd", "2.7.4", "gfx90a gfx940 gfx941 gfx942"),
        ("flash_attn", "amd", "2.8.3.post1", "gfx90a gfx942 gfx950"),
    ],
)
def test_a_listed_release_gets_its_row(library: str, vendor: str, version: str, rule: str) -> None:
    assert arch_table.lib_rule(library, vendor, Version(version))[0] == rule


def test_an_unlisted_version_gets_every_arch_some_release_serves() -> None:
    assert arch_table.lib_rule("vllm", "nvidia", None)[0] == "sm>=70"
    assert arch_table.lib_rule("flash_attn", "nvidia", None)[0] == "sm>=80"  # 1.x is another API: legacy
    # flash-attn's RDNA list is main's (2.8.4): no tag has it, so an unlisted flash-attn lacks it
    assert arch_table.lib_rule("flash_attn", "amd", None)[0] == "gfx90a gfx940 gfx941 gfx942 gfx950"
    assert arch_table.lib_rule("no_such_lib", "amd", None) == ("", "")


# ---- vLLM on ROCm -------------------------------------------------------------------------------
@pytest.mark.parametrize("gpu", ["gfx1201", "gfx1200", "gfx950", "gfx1151", "gfx1101"])
def test_old_vllm_on_an_arch_it_gained_later_is_found(gpu: str) -> None:
    (finding,) = found("vllm", "platform=rocm", f"arch={gpu}", "lib.vllm=0.4.3")
    assert f"vllm 0.4.3 has no kernels for {gpu}" in finding.reason and not finding.conditional
    assert finding.link == "https://docs.vllm.ai/en/v0.7.2/getting_started/installation/gpu/"
    assert finding.fix.startswith("use a vllm release that serves")


@pytest.mark.parametrize("gpu", ["gfx1201", "gfx950", "gfx1151"])
def test_latest_vllm_on_those_archs_is_silent(gpu: str) -> None:
    assert found("vllm", "platform=rocm", f"arch={gpu}", "lib.vllm=0.14.0") == []


def test_vllm_0_9_serves_rdna4_but_not_strix_halo() -> None:
    assert found("vllm", "platform=rocm", "arch=gfx1201", "lib.vllm=0.9.2") == []
    (finding,) = found("vllm", "platform=rocm", "arch=gfx1151", "lib.vllm=0.9.2")
    assert "v0.11.0" in finding.link


def test_unlisted_vllm_is_judged_by_every_release() -> None:
    (risk,) = found("vllm", "platform=rocm", "arch=gfx1201")  # some release serves it: only a risk
    assert risk.uncertain and risk.conditional
    assert risk.reason == "the stack does not say which vllm release: vllm <0.7.3 has no kernels for gfx1201"
    assert found("vllm", "platform=rocm", "arch=gfx942") == []  # every release serves it
    (finding,) = found("vllm", "platform=rocm", "arch=gfx906")
    assert finding.conditional and not finding.uncertain and "vllm has no kernels for gfx906" in finding.reason


# ---- vLLM on CUDA -------------------------------------------------------------------------------
def test_vllm_on_volta() -> None:
    assert found("vllm", "platform=cuda", "arch=sm_70", "lib.vllm=0.14.0") == []
    (finding,) = found("vllm", "platform=cuda", "arch=sm_70", "lib.vllm=0.21.0")
    assert "compute capability 7.5 or newer" in finding.reason and "/v0.21.0/" in finding.link
    assert finding.fix.startswith("use a vllm release that serves sm_70")  # an older one does
    (risk,) = found("vllm", "platform=cuda", "arch=sm_70")  # some release serves it: only a risk
    assert risk.uncertain and "the latest vllm has no kernels for sm_70" in risk.reason
    assert found("vllm", "platform=cuda", "arch=sm_75", "lib.vllm=0.31.0") == []
    assert found("vllm", "platform=cuda", "arch=sm_70", "lib.vllm=0.23.1rc1.dev901+g2f3f441f8") != []
    (pascal,) = found("vllm", "platform=cuda", "arch=sm_61", "lib.vllm=0.14.0")
    assert "compute capability 7.0 or newer" in pascal.reason


# ---- flash-attn ---------------------------------------------------------------------------------
@pytest.mark.parametrize("gpu", ["gfx1100", "gfx1101", "gfx1102", "gfx1151", "gfx1201"])
def test_flash_attn_with_rdna_ck_build_is_silent(gpu: str) -> None:
    assert found("flash-attn", "platform=rocm", f"arch={gpu}", "lib.flash_attn=2.8.4") == []
    assert found("flash-attn", "platform=rocm", f"arch={gpu}", "lib.flash_attn=2.9.0") == []
    (unlisted,) = found("flash-attn", "platform=rocm", f"arch={gpu}")  # no tagged release serves it
    assert unlisted.conditional and "v2.8.3/setup.py" in unlisted.link


@pytest.mark.parametrize("version", ["2.6.3", "2.7.4", "2.8.3", "2.8.3.post1"])
def test_older_flash_attn_on_rdna3_is_found(version: str) -> None:
    (finding,) = found("flash-attn", "platform=rocm", "arch=gfx1100", f"lib.flash_attn={version}")
    assert f"flash_attn {version} has no kernels for gfx1100" in finding.reason
    assert finding.link.startswith("https://github.com/Dao-AILab/flash-attention/blob/v2.")
    assert finding.fix.startswith("use a flash_attn release that serves gfx1100")


def test_flash_attn_ck_list_per_release() -> None:
    assert found("flash-attn", "platform=rocm", "arch=gfx950", "lib.flash_attn=2.7.4") != []
    assert found("flash-attn", "platform=rocm", "arch=gfx950", "lib.flash_attn=2.8.0") == []
    assert found("flash-attn", "platform=rocm", "arch=gfx940", "lib.flash_attn=2.7.4") == []
    assert found("flash-attn", "platform=rocm", "arch=gfx940", "lib.flash_attn=2.8.3") != []


@pytest.mark.parametrize("gpu", ["gfx1030", "gfx1103", "gfx906"])
def test_no_flash_attn_release_serves_these(gpu: str) -> None:
    (finding,) = found("flash-attn", "platform=rocm", f"arch={gpu}", "lib.flash_attn=2.8.4")
    assert finding.fix.startswith("run flash_attn tests")


def test_flash_attn_1_serves_turing_2_does_not() -> None:
    assert found("flash-attn", "platform=cuda", "arch=sm_75", "lib.flash_attn=1.0.9") == []
    (finding,) = found("flash-attn", "platform=cuda", "arch=sm_75", "lib.flash_attn=2.8.3")
    assert "compute capability 8.0 or newer" in finding.reason
    (unlisted,) = found("flash-attn", "platform=cuda", "arch=sm_75")  # tests use the 2.x API
    assert unlisted.conditional and "compute capability 8.0" in unlisted.reason
