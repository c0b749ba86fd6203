"""``nvidia-driver-gpu-unsupported``: a driver branch too old or too new for a GPU, and what such a driver logs."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import nvidia_driver_gpu
from pytest_rocmcompat.knowledge.checks import nvidia_driver_gpu_data as data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.gpu_vendor_builds import GPU_SUITE
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
SIGNATURE = compile_signature(PREDICTS[nvidia_driver_gpu.ID])


def _findings(*stack: str, base: Environment = BASE) -> list[Finding]:
    env = apply_overrides(base, list(stack)) if stack else base
    return [f for f in evaluate(env) if f.check == nvidia_driver_gpu.ID]


# ---- too old: a branch released before the architecture's first GPU -------------------------------
@pytest.mark.parametrize(
    ("arch", "driver", "first"),
    [
        ("sm_120", "535.104.05", 570),  # an RTX 5090 on 535
        ("sm_120", "565.77", 570),  # one branch below the floor
        ("sm_100", "565.57.01", 570),  # a B200 on the branch before Blackwell's
        ("sm_89", "515.65.01", 520),  # an RTX 4090 on 515
        ("sm_90", "515.105.01", 520),  # an H100 on the last R515 release
        ("sm_90a", "470.256.02", 520),  # a variant target reads as its architecture
        ("sm_86", "440.100", 450),
        ("sm_80", "440.33.01", 450),  # an A100 on 440
        ("sm_75", "396.54", 410),
        ("sm_70", "381.22", 384),
    ],
)
def test_a_driver_older_than_the_architectures_first_branch_cannot_drive_it(arch: str, driver: str, first: int) -> None:
    (finding,) = _findings(f"arch={arch}", f"driver={driver}")
    name = arch.rstrip("a")
    assert finding.reason.startswith(f"NVIDIA driver {driver} is older than R{first}, the first driver branch")
    assert f"a later {name} GPU may need a later branch" in finding.reason  # the floor is no promise above it
    assert f"R{first} or later" in finding.fix
    assert finding.link == data.BY_ARCH[name].source


# ---- too new: a branch after NVIDIA dropped the architecture ----------------------------------------
@pytest.mark.parametrize(
    ("arch", "driver", "last"),
    [
        ("sm_61", "590.44.01", 580),  # a GTX 1080 on R590
        ("sm_52", "595.71.05", 580),
        ("sm_50", "590.48.01", 580),
        ("sm_60", "595.45.04", 580),
        ("sm_70", "590.48.01", 580),  # Volta too
        ("sm_35", "535.129.03", 470),  # a GT 710 on 535 (siderolabs/talos#8764)
        ("sm_37", "495.29.05", 470),  # a K80 on the branch after R470
        ("sm_30", "510.108.03", 470),
        ("sm_61", "591.44", 580),  # Windows numbers R590 591.xx
    ],
)
def test_a_driver_newer_than_the_architectures_last_branch_ignores_it(arch: str, driver: str, last: int) -> None:
    (finding,) = _findings(f"arch={arch}", f"driver={driver}")
    assert finding.reason == (
        f"NVIDIA driver {driver} is newer than R{last}, the last driver branch that supports {arch} GPUs: "
        f"it ignores this {arch} GPU"
    )
    assert f"R{last} legacy driver branch" in finding.fix


@pytest.mark.parametrize(
    ("arch", "driver"),
    [
        # exactly the first branch is fine (its first release, or any later one)
        ("sm_120", "570.86.16"),
        ("sm_100", "570.86.15"),
        ("sm_89", "520.56.06"),
        ("sm_90", "520.61.05"),
        ("sm_80", "450.36.06"),
        ("sm_86", "450.80.02"),
        ("sm_75", "410.48"),
        ("sm_70", "384.81"),
        ("sm_90", "580.159.04"),  # the recorded H100
        ("sm_120", "595.45.04"),  # no architecture with a floor has a last branch yet
        # exactly the last branch is fine, on Linux and in Windows' numbering of it
        ("sm_61", "580.126.09"),
        ("sm_61", "581.57"),
        ("sm_70", "580.65.06"),
        ("sm_35", "470.256.02"),
        ("sm_35", "474.44"),
        # Kepler to Pascal have no sourced floor: an old driver is not judged
        ("sm_61", "367.48"),
        # no row: never judged
        ("sm_87", "35.3.1"),
        ("sm_72", "595.45.04"),
        ("sm_103", "535.104.05"),
    ],
)
def test_a_branch_between_the_bounds_or_an_unknown_architecture_is_no_problem(arch: str, driver: str) -> None:
    assert _findings(f"arch={arch}", f"driver={driver}") == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx942", "driver=6.8.5"),  # AMD: driver is the amdgpu version
        ("arch=gfx90a", "driver=6.5.0-14-generic"),  # an in-kernel amdgpu
        ("arch=gfx1100", "driver=535.104.05"),  # an AMD GPU is never judged against NVIDIA's branches
        ("arch=sm_120",),  # no driver stated
        ("platform=cuda", "driver=535.104.05"),  # no GPU stated
        ("arch=sm_120", "driver=6.5.0-14-generic"),  # what is no NVIDIA driver version
        ("arch=sm_120", "driver=30.10"),
    ],
)
def test_amd_gpus_and_stacks_without_an_nvidia_driver_give_nothing(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


def test_a_probed_amd_host_is_not_judged_whatever_its_driver_reads() -> None:
    probed = Environment(platform="rocm", gpus=(GPU(0, "AMD Instinct MI300X", "gfx942"),), driver="535.104.05")
    assert _findings(base=probed) == []


def test_a_mixed_host_names_only_the_unsupported_architecture() -> None:
    (old,) = _findings("arch=sm_120,sm_90", "driver=535.104.05")
    assert "sm_120" in old.reason and "sm_90 " not in old.reason
    (new,) = _findings("arch=sm_61,sm_120", "driver=590.44.01")
    assert "sm_61" in new.reason and "sm_120" not in new.reason
    # two unsupported architectures: one finding each, the GPUs' order kept
    both = _findings("arch=sm_35,sm_61", "driver=590.44.01")
    assert [f.reason.rsplit(" ", 2)[-2] for f in both] == ["sm_35", "sm_61"]


def test_the_finding_reaches_every_gpu_test_and_nothing_else() -> None:
    (finding,) = _findings("arch=sm_120", "driver=535.104.05")
    assert finding.markers == ("gpus",) and finding.nodeids == GPU_SUITE
    assert not finding.everything and not finding.uses and not finding.uncertain and not finding.conditional
    (rule,) = compile_rules(evaluate(apply_overrides(BASE, ["arch=sm_120", "driver=535.104.05"])))
    assert rule.id == nvidia_driver_gpu.ID and rule.applies_to.markers == ("gpus",) and not rule.applies_to.everything


# ---- the table ------------------------------------------------------------------------------------
_NVIDIA = ("https://docs.nvidia.com/", "https://forums.developer.nvidia.com/", "https://github.com/NVIDIA/")


def test_every_row_is_sourced_from_nvidia_and_the_asked_architectures_are_covered() -> None:
    for row in data.ROWS:
        assert row.source.startswith(_NVIDIA), row
        assert not row.also or row.also.startswith(_NVIDIA), row
        assert row.first is not None or row.last is not None, row
        assert row.first is None or row.last is None or row.first < row.last, row
    assert len(data.BY_ARCH) == len(data.ROWS)  # one row per architecture
    lasts = {row.arch: row.last for row in data.ROWS if row.last is not None}
    assert lasts == {"sm_30": 470, "sm_35": 470, "sm_37": 470, **dict.fromkeys(
        ("sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_70"), 580)}  # fmt: skip
    firsts = {row.arch: row.first for row in data.ROWS if row.first is not None}
    assert firsts == {
        "sm_70": 384, "sm_75": 410, "sm_80": 450, "sm_86": 450, "sm_89": 520, "sm_90": 520, "sm_100": 570,
        "sm_120": 570,
    }  # fmt: skip


@pytest.mark.parametrize("driver", ["535.104.05", "581.29", "470.256.02", "384.81"])
def test_driver_branch_reads_nvidia_versions_only(driver: str) -> None:
    assert nvidia_driver_gpu.driver_branch(driver) == int(driver.split(".", maxsplit=1)[0])
    assert nvidia_driver_gpu.driver_branch("6.8.5") is None
    assert nvidia_driver_gpu.driver_branch("6.5.0-14-generic") is None
    assert nvidia_driver_gpu.driver_branch(None) is None
    assert nvidia_driver_gpu.driver_branch("535") is None  # no release number: not a driver version


# ---- the texts: what such a driver logs, quoted from real reports ---------------------------------
# (message as the source quotes it, source). A message wrapped over lines keeps its line breaks.
VERBATIM: list[tuple[str, str]] = [
    # a GeForce GT 710 (Kepler, sm_35) under 535.129.03: support moved to the 470.xx legacy branch
    (
        "NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please",
        "https://github.com/siderolabs/talos/issues/8764",
    ),
    (
        "NVRM:  information.  The 535.129.03 NVIDIA driver will ignore",
        "https://github.com/siderolabs/talos/issues/8764",
    ),
    (
        "kern: warning: [2024-05-20T02:46:53.859954762Z]: NVRM: No NVIDIA GPU found.",
        "https://github.com/siderolabs/talos/issues/8764",
    ),
    # a GeForce GTX 1050 (Pascal, sm_61) under 595.71.05: R580 was its last branch
    (
        "[Sun May 17 15:55:50 2026] NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this system is\n"
        "                           NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
        "                           NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
        "                           NVRM:  information.  The 595.71.05 NVIDIA driver will ignore\n"
        "                           NVRM:  this GPU.  Continuing probe...\n"
        "[Sun May 17 15:55:50 2026] NVRM: No NVIDIA GPU found.",
        "https://github.com/NixOS/nixos-hardware/issues/1880",
    ),
    # the same under 595.58.03, read from the journal
    (
        "Apr 13 16:41:14 nixos kernel: NVRM: No NVIDIA GPU found.",
        "https://github.com/NixOS/nixos-hardware/issues/1828",
    ),
    # an older driver's wording: an ION GPU (340.xx legacy) under 346.72
    (
        "[    6.215044] NVRM: No NVIDIA graphics adapter found!",
        "https://github.com/plexinc/plex-media-player/issues/71",
    ),
    (
        "[    6.215019] NVRM:  information.  The 346.72 NVIDIA driver will ignore",
        "https://github.com/plexinc/plex-media-player/issues/71",
    ),
    # a GPU the release does not list: 520.56.06 refusing a 10de:25a0, 367.57 a 10de:13b0, 280.13 a 10de:1050
    (
        "[  +0.000005] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:25a0)\n"
        "              NVRM: installed in this system is not supported by the\n"
        "              NVRM: NVIDIA 520.56.06 driver release.",
        "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/393",
    ),
    (
        "[   73.757880] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:13b0)\n"
        "               NVRM: installed in this system is not supported by the 367.57\n"
        "               NVRM: NVIDIA Linux driver release.  Please see 'Appendix",
        "https://github.com/Bumblebee-Project/Bumblebee/issues/810",
    ),
    (
        "[  652.483305] NVRM: in this system is not supported by the 280.13 NVIDIA Linux",
        "https://github.com/MrMEEE/bumblebee-Old-and-abbandoned/issues/583",
    ),
]

# Texts the signature must not claim: each names another cause, even where this stack's tests may print it.
NOT_CLAIMED: list[tuple[str, str]] = [
    # a GPU out of memory: a driver that drives the GPU
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", "another failure"),
    # torch's cudaErrorInsufficientDriver text: no driver library at all (or one older than the runtime),
    # built-for-other-vendor's and cuda-newer-than-driver's; a present driver that ignores the GPU does not say it
    (
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx",
        "a missing driver",
    ),
    ("CUDA driver version is insufficient for CUDA runtime version", "cuda-newer-than-driver"),
    # device counts of zero: also CUDA_VISIBLE_DEVICES="" or a container started without the GPU
    ("RuntimeError: No CUDA GPUs are available", "hidden devices"),
    ("cudaErrorNoDevice: no CUDA-capable device is detected", "hidden devices"),
    # nvidia-smi: a GPU that failed to initialise (BAR, GSP firmware), a module never loaded (DKMS, Secure Boot)
    ("No devices were found", "RmInitAdapter failures"),
    (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
        "NVIDIA driver is installed and running.",
        "a module not loaded",
    ),
    ("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)", "GPU initialisation"),
    # the open kernel modules on a GPU without GSP: the module flavour, not the branch (install the proprietary one)
    (
        "NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1bb3)\n"
        "               NVRM: installed in this system is not supported by open\n"
        "               NVRM: nvidia.ko because it does not include the required GPU\n"
        "               NVRM: System Processor (GSP).",
        "the open module flavour",
    ),
    ("CUDA error: no kernel image is available for execution on the device", "arch-not-in-build"),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM, ids=[str(i) for i in range(len(VERBATIM))])
def test_the_signature_matches_what_such_a_driver_logs(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is not None


@pytest.mark.parametrize(("message", "why"), NOT_CLAIMED, ids=[why for _, why in NOT_CLAIMED])
def test_the_signature_claims_no_other_cause(message: str, why: str) -> None:
    assert SIGNATURE.search(message) is None


def test_predicted_is_known_bad_and_unrelated_fails_with_the_stack_problem(pytester: pytest.Pytester) -> None:
    props = run_cases(
        pytester,
        "NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please",
        ("arch=sm_61", "driver=590.44.01", "torch_archs=sm_61,sm_90"),  # torch serves the GPU: only the driver fails it
    )
    assert props["test_predicted"]["rocm_outcome"] == "known-bad"
    assert props["test_predicted"]["rocm_rule"] == nvidia_driver_gpu.ID
    assert props["test_unrelated"]["rocm_outcome"] == "fail"
    assert props["test_unrelated"]["rocm_diagnosis"].startswith(f"{nvidia_driver_gpu.ID}: NVIDIA driver 590.44.01")
    # not a GPU test: not reached, so its failure stays a plain fail, even with the predicted text
    assert "rocm_rule" not in props["test_elsewhere"] and props["test_elsewhere"].get("rocm_outcome") != "known-bad"
