"""The torch rows ``tools/import_scan.py`` generated (``data/import_scan.json``), each checked by hand in the
dependent's release file and the torch wheels' zip directories (2026-11-27), and verbatim messages from public
reports they predict through the registry, and not on a torch that has the module.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS, UPPER_BOUNDS
from pytest_rocmcompat.stack.environment import Environment

DATA = json.loads(
    resources.files("pytest_rocmcompat.knowledge").joinpath("data/import_scan.json").read_text(encoding="utf-8")
)
ROWS = DATA["rows"]
_DS = "https://github.com/deepspeedai/DeepSpeed/blob/"


def _row(dist: str, since: str, module: str, name: str) -> dict:
    (row,) = [r for r in ROWS if (r["dist"], r["since"], r["module"], r["name"]) == (dist, since, module, name)]
    return row


def test_torch_is_sampled_by_minor_from_1_13() -> None:
    (pair,) = [p for p in DATA["pairs"] if (p["dependent"], p["dependency"]) == ("deepspeed", "torch")]
    assert pair["dependency_releases"][:4] == ["1.13.1", "2.0.1", "2.1.2", "2.2.2"]
    assert DATA["dependency_since_of"] == {"torch": "2022-10-01"}


# (dist, since, module, name, requirement, until, source): each read by hand
CHECKED = [
    # DeepSpeed 0.8.0's sdist, deepspeed/runtime/zero/stage_1_and_2.py line 8: `from torch._six import inf`
    # (reached by `import deepspeed`); torch/_six.py is in the torch 1.13.1 wheel, not in 2.0.1 (its directory).
    # DeepSpeed 0.8.2 imports inf from torch (deepspeedai/DeepSpeed#2863): the hand-written UPPER_BOUNDS fact
    (
        "deepspeed",
        "0.8.0",
        "torch._six",
        "inf",
        "torch<2.0.0",
        "0.8.2",
        f"{_DS}v0.8.0/deepspeed/runtime/zero/stage_1_and_2.py#L8",
    ),
    # DeepSpeed 0.18.9's AutoSP (reached from runtime/engine.py): compile/passes/sp_compile.py line 11 imports
    # maybe_get_fake_mode from torch._subclasses.fake_tensor, which defines it first in the 2.2.2 wheel (not 2.1.2)
    (
        "deepspeed",
        "0.18.9",
        "torch._subclasses.fake_tensor",
        "maybe_get_fake_mode",
        "torch>=2.2.0.dev0",
        "0.19.8",
        f"{_DS}v0.18.9/deepspeed/compile/passes/sp_compile.py#L11",
    ),
    # compile/custom_ops/all_to_all.py line 8: torch/utils/_sympy/functions.py is first in the 2.1.2 wheel
    (
        "deepspeed",
        "0.18.9",
        "torch.utils._sympy.functions",
        "FloorDiv",
        "torch>=2.1.0.dev0",
        "0.19.8",
        f"{_DS}v0.18.9/deepspeed/compile/custom_ops/all_to_all.py#L8",
    ),
    # accelerate 1.10.0's wheel: accelerate/__init__.py imports .parallelism_config, whose line 20 is
    # `from torch.distributed.device_mesh import init_device_mesh`; torch/distributed/device_mesh.py is first in
    # the 2.2.2 wheel (not 2.1.2); accelerate 1.10.0 declares torch>=2.0.0; 1.10.1 no longer imports it there
    (
        "accelerate",
        "1.10.0",
        "torch.distributed.device_mesh",
        "init_device_mesh",
        "torch>=2.2.0.dev0",
        "1.10.1",
        "https://github.com/huggingface/accelerate/blob/v1.10.0/src/accelerate/parallelism_config.py#L20",
    ),
]


@pytest.mark.parametrize(("dist", "since", "module", "name", "requirement", "until", "source"), CHECKED)
def test_the_rows_read_by_hand(
    dist: str, since: str, module: str, name: str, requirement: str, until: str, source: str
) -> None:
    row = _row(dist, since, module, name)
    assert (row["requirement"], row["until"], row["source"]) == (requirement, until, source)


def test_the_hand_found_torch_six_fact_is_reproduced() -> None:
    fixed_in, requirement, _source = UPPER_BOUNDS["deepspeed"]
    row = _row("deepspeed", "0.8.0", "torch._six", "inf")
    assert (row["until"], row["requirement"]) == (fixed_in, requirement + ".0")  # torch<2.0 as torch<2.0.0
    # the generated row joins the run-time table (no hand run-time row states it; UPPER_BOUNDS is another table)
    assert any(r.since == "0.8.0" and r.message == row["message"] for r in RUNTIME_MINIMUMS["deepspeed"])


def test_no_row_for_names_torch_binds_in_c_or_dynamically() -> None:
    for row in ROWS:
        if row["requirement"].startswith("torch"):
            assert row["module"] != "torch" and not row["module"].startswith("torch._C"), row


def _predicts(dist: str, version: str, torch: str) -> list[str]:
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={dist: version}, torch=torch)
    return [f.predicts for f in evaluate(env) if f.check == requirements.ID]


# (dependent, release, torch without the module, torch with it, verbatim message, report)
VERBATIM = [
    # the traceback runs through deepspeed/runtime/utils.py's `from torch._six import inf`
    (
        "deepspeed",
        "0.8.0",
        "2.0.1",
        "1.13.1",
        "ModuleNotFoundError: No module named 'torch._six'",
        "https://github.com/rmihaylov/falcontune/issues/21",
    ),
    # the traceback runs through accelerate/__init__.py (transformers' integrations/peft.py importing accelerate)
    (
        "accelerate",
        "1.10.0",
        "2.1.2",
        "2.2.2",
        "No module named 'torch.distributed.device_mesh'",
        "https://github.com/programmablebio/ptm-mamba/issues/9",
    ),
]


@pytest.mark.parametrize(("dist", "version", "torch", "fixed", "message", "report"), VERBATIM)
def test_the_reported_failures_are_predicted(
    dist: str, version: str, torch: str, fixed: str, message: str, report: str
) -> None:
    assert any(re.search(p, message) for p in _predicts(dist, version, torch)), report
    assert not any(re.search(p, message) for p in _predicts(dist, version, fixed)), report
    # by a generated row's own message (PREDICTS' generic `No module named 'torch.…'` would match it too)
    own = [r.message for r in RUNTIME_MINIMUMS[dist] if r.message and re.search(r.message, message)]
    assert own, f"no row of {dist} names the reported failure"


@pytest.mark.parametrize("torch", ["2.2.0a0+git81ea7a4", "2.2.0.dev20231010", "2.2.0"])
def test_a_snapshot_of_the_floor_release_is_not_claimed(torch: str) -> None:
    """A generated floor admits the release's dev and pre-releases (NGC's and ROCm's ``2.2.0a0+git``, a
    nightly): accelerate 1.10.0's ``torch.distributed.device_mesh`` floor claims 2.1.x, not a 2.2 snapshot.
    """
    env = Environment(platform="cpu", python="3.11.7", os="Linux", torch=torch, libraries={"accelerate": "1.10.0"})
    assert not [f for f in evaluate(env) if f.check == requirements.ID and "device_mesh" in f.predicts]
    older = Environment(
        platform="cpu", python="3.11.7", os="Linux", torch="2.1.0a0+git", libraries={"accelerate": "1.10.0"}
    )
    assert [f for f in evaluate(older) if f.check == requirements.ID]
