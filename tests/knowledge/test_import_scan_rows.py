"""The run-time rows ``tools/import_scan.py`` generated from the released wheels (``data/import_scan.json``).

Every row is well formed and predicts CPython's own text; the scan reproduces the two rows first found by hand
(peft 0.5.0 and 0.6.1); hand-written rows win over generated ones; and verbatim messages from public reports
are predicted through the registry, and not once the dependency is fixed.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.import_scan_rows import import_scan_rows, without_hand_written
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS, RuntimeRow
from pytest_rocmcompat.stack.environment import Environment

DATA = json.loads(
    resources.files("pytest_rocmcompat.knowledge").joinpath("data/import_scan.json").read_text(encoding="utf-8")
)
ROWS = DATA["rows"]
IMPORT_DIST = {
    "transformers": "transformers",
    "accelerate": "accelerate",
    "huggingface_hub": "huggingface-hub",
    "torch": "torch",
    "trl": "trl",
    "peft": "peft",
    "vllm": "vllm",
}
REPOS = {
    "peft": "https://github.com/huggingface/peft/blob/v{}/src/peft/",
    "trl": "https://github.com/huggingface/trl/blob/v{}/trl/",
    "accelerate": "https://github.com/huggingface/accelerate/blob/v{}/src/accelerate/",
    "sentence-transformers": "https://github.com/UKPLab/sentence-transformers/blob/v{}/sentence_transformers/",
    "deepspeed": "https://github.com/deepspeedai/DeepSpeed/blob/v{}/deepspeed/",
    "transformers": "https://github.com/huggingface/transformers/blob/v{}/src/transformers/",
    "diffusers": "https://github.com/huggingface/diffusers/blob/v{}/src/diffusers/",
    "torchao": "https://github.com/pytorch/ao/blob/v{}/torchao/",
    "xformers": "https://github.com/facebookresearch/xformers/blob/v{}/xformers/",
    "bitsandbytes": "https://pypi.org/project/bitsandbytes/{}/",  # no tag pattern used
    "unsloth": "https://pypi.org/project/unsloth/{}/",  # its tags do not name its PyPI releases
    "vllm": "https://github.com/vllm-project/vllm/blob/v{}/vllm/",
    "liger-kernel": "https://github.com/linkedin/Liger-Kernel/blob/v{}/src/liger_kernel/",
    "verl": "https://github.com/volcengine/verl/blob/v{}/verl/",
    "autoawq": "https://github.com/casper-hansen/AutoAWQ/blob/v{}/awq/",
    "auto-gptq": "https://github.com/AutoGPTQ/AutoGPTQ/blob/v{}/auto_gptq/",
    "gptqmodel": "https://github.com/ModelCloud/GPTQModel/blob/v{}/gptqmodel/",
}


def test_the_file_says_what_made_it() -> None:
    assert DATA["tool"] == "tools/import_scan.py"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", DATA["generated"])
    assert {(p["dependent"], p["dependency"]) for p in DATA["pairs"]} >= {
        ("peft", "accelerate"),
        ("trl", "transformers"),
    }
    assert 10 <= len(ROWS) <= 400  # small: it is packaged


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['dist']}-{r['since']}-{r['name']}")
def test_each_row_is_well_formed(row: dict) -> None:
    req = Requirement(row["requirement"])
    assert canonicalize_name(req.name) == IMPORT_DIST[row["module"].split(".")[0]]
    assert row["until"] is None or Version(row["since"]) < Version(row["until"])
    assert row["source"].startswith(REPOS[row["dist"]].format(row["since"])), row["source"]
    pattern = re.compile(row["message"])
    # what CPython prints for `from module import name`: the name missing, or the module itself
    name_missing = f"cannot import name '{row['name']}' from '{row['module']}' (/usr/lib/python3/site-packages/x.py)"
    module_missing = f"ModuleNotFoundError: No module named '{row['module']}'"
    assert pattern.search(name_missing) or pattern.search(module_missing)
    assert not pattern.search(name_missing.replace(row["name"], row["name"] + "_other", 1).replace(".", "_"))


def test_rows_are_sorted_and_unique() -> None:
    keys = [(r["dist"], r["module"], r["name"], Version(r["since"])) for r in ROWS]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def _row(dist: str, since: str, module: str, name: str) -> dict:
    (row,) = [r for r in ROWS if (r["dist"], r["since"], r["module"], r["name"]) == (dist, since, module, name)]
    return row


def test_the_hand_found_rows_are_reproduced() -> None:
    npu = _row("peft", "0.5.0", "accelerate.utils", "is_npu_available")
    assert (npu["requirement"], npu["until"]) == ("accelerate>=0.21.0.dev0", "0.6.0")  # 0.6.0 declares it
    assert npu["source"] == "https://github.com/huggingface/peft/blob/v0.5.0/src/peft/utils/other.py#L24"
    storage = _row("peft", "0.6.1", "transformers.pytorch_utils", "id_tensor_storage")
    assert (storage["requirement"], storage["until"]) == ("transformers>=4.30.0.dev0", "0.6.2")  # 0.6.2: its own copy
    assert storage["source"] == "https://github.com/huggingface/peft/blob/v0.6.1/src/peft/peft_model.py#L35"


def test_the_scan_reproduces_other_hand_written_rows() -> None:
    """accelerate 0.32.0 and sentence-transformers 2.4.0, first written by hand, found again row for row."""
    for dist, since, until, requirement in [
        ("accelerate", "0.32.0", "0.33.0", "huggingface-hub>=0.21.0.dev0"),
        ("sentence-transformers", "2.4.0", "2.7.0", "transformers>=4.34.0.dev0"),
    ]:
        # the hand row states the release (``>=0.21.0``); the generated floor also admits its dev/pre-releases
        stated = requirement.removesuffix(".dev0")
        (hand,) = [r for r in RUNTIME_MINIMUMS[dist] if r.since == since and r.requirement == stated]
        generated = [r for r in import_scan_rows()[dist] if r.since == since and r.requirement == requirement]
        assert generated and all(r.until == until == hand.until for r in generated), generated
        tag = hand.source.split("/blob/")[1].split("/")[0]
        assert all(f"/blob/{tag}/" in r.source for r in generated)  # read at the same release tag


def test_hand_written_rows_win_and_generated_ones_carry_their_message() -> None:
    generated = import_scan_rows()
    # a hand row stating the requirement over all its releases and predicting its failure wins: trl's
    # top_k_top_p_filtering (transformers < 4.39), hand-written with that message, is not added again
    (top_k,) = [r for r in generated["trl"] if "top_k_top_p_filtering" in r.message]
    assert top_k not in RUNTIME_MINIMUMS["trl"]
    assert any(
        r.requirement == "transformers<4.39.0" and "top_k_top_p_filtering" in r.message for r in RUNTIME_MINIMUMS["trl"]
    )
    # a hand row that names no failure does not hide the generated one's: peft 0.5.0's is_npu_available is kept
    (npu,) = [r for r in generated["peft"] if r.since == "0.5.0" and "is_npu_available" in r.message]
    assert npu in RUNTIME_MINIMUMS["peft"]
    # deepspeed 0.18.9's missing torch.utils._sympy.functions (torch 2.0) beside the hand row of the same floor,
    # whose message is another failure (torch.compiler): kept, so the first failure is predicted
    (sympy,) = [r for r in generated["deepspeed"] if "_sympy" in r.message]
    assert sympy in RUNTIME_MINIMUMS["deepspeed"]
    # a generated row that no hand row states is merged, with its message (CPython's text)
    (cache,) = [r for r in generated["peft"] if r.message == "cannot import name 'Cache' from 'transformers'"]
    assert cache in RUNTIME_MINIMUMS["peft"]
    hand = RuntimeRow("1.0", "x>=2", "s", "2.0", r"cannot import name 'a' from 'x'")
    same = RuntimeRow("1.5", "x>=2.0.dev0", "g", "2.0", "cannot import name 'a' from 'x'")
    assert without_hand_written([same], [hand]) == ()  # the same release bound, releases and failure
    kept = (
        RuntimeRow("2.0", "x>=2", "g"),  # after it
        RuntimeRow("1.5", "x>=3", "g", "2.0"),  # another requirement
        RuntimeRow("1.5", "x>=2", "g"),  # past the hand row's releases
        RuntimeRow("1.5", "x>=2", "g", "2.0", "No module named 'x\\.b'"),  # another failure
    )
    assert without_hand_written(kept, [hand]) == kept


def _env(**libraries: str) -> Environment:
    return Environment(platform="cpu", python="3.11.7", os="Linux", libraries=dict(libraries))


def _predicts(libraries: dict[str, str]) -> list[str]:
    return [f.predicts for f in evaluate(_env(**libraries)) if f.check == requirements.ID]


# (stack, the dependency at a release that has the name, verbatim message from a public report, that report)
VERBATIM = [
    # accelerate 0.32.0's accelerator.py imports split_torch_state_dict_into_shards (huggingface_hub 0.21.0) and
    # declares huggingface-hub unbounded (0.33.0 declares >=0.21.0)
    (
        {"accelerate": "0.32.0", "huggingface-hub": "0.20.3"},
        {"huggingface-hub": "0.21.0"},
        "ImportError: cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub' "
        "(/home/ehosseiniasl/.local/lib/python3.10/site-packages/huggingface_hub/__init__.py)",
        "https://github.com/ZhangXInFD/SpeechTokenizer/issues/12",
    ),
    (
        {"accelerate": "0.32.0", "huggingface-hub": "0.17.3"},  # the PR: transformers 4.34.1 installs 0.17.3
        {"huggingface-hub": "0.24.0"},
        "cannot import name 'split_torch_state_dict_into_shards' from 'huggingface_hub'",
        "https://github.com/mlflow/mlflow/pull/12582",
    ),
    # sentence-transformers 2.4.0 to 2.6.1 import is_nltk_available from transformers.utils.import_utils
    # (transformers 4.34.0) while declaring transformers>=4.32.0 (fixed by UKPLab/sentence-transformers#2574)
    (
        {"sentence-transformers": "2.6.1", "transformers": "4.33.3"},
        {"transformers": "4.34.0"},
        "ImportError: cannot import name 'is_nltk_available' from 'transformers.utils.import_utils' "
        "(/app/conda_envs/myenv/lib/python3.8/site-packages/transformers/utils/import_utils.py)",
        "https://github.com/huggingface/sentence-transformers/issues/2560",
    ),
    (
        {"sentence-transformers": "2.5.1", "transformers": "4.21.0"},  # the report's transformers; its own floor too
        {"transformers": "4.41.2"},
        "BUG:cannot import name 'is_nltk_available' from 'transformers.utils.import_utils'",
        "https://github.com/huggingface/transformers/issues/29527",
    ),
    # peft 0.14.0's peft_model.py line 37 imports Cache first (transformers 4.36.0): the hand row's message names
    # EncoderDecoderCache only; the report quotes that line, then CPython's error on its first missing name
    (
        {"peft": "0.14.0", "transformers": "4.35.2"},
        {"transformers": "4.43.0"},
        "ImportError: cannot import name 'Cache' from 'transformers' "
        "(F:\\ComfyUI-aki-v1.5\\ComfyUI-aki-v1.5\\python\\lib\\site-packages\\transformers\\__init__.py)",
        "https://github.com/smthemex/ComfyUI_Sonic/issues/8",
    ),
]


@pytest.mark.parametrize(("libraries", "fixed", "message", "report"), VERBATIM)
def test_the_reported_failures_are_predicted(
    libraries: dict[str, str], fixed: dict[str, str], message: str, report: str
) -> None:
    (dependent, version), (dependency, installed) = libraries.items()
    # a generated row covers the release, rejects the dependency installed, and its message is the report's
    rows = [
        r
        for r in import_scan_rows()[dependent]
        if Version(r.since) <= Version(version) < Version(r.until or "999")
        and not Requirement(r.requirement).specifier.contains(installed)
        and Requirement(r.requirement).specifier.contains(fixed[dependency])
    ]
    assert any(re.search(r.message, message) for r in rows), report
    # the registry reports the stack, its signature matching the report; not once the dependency is fixed
    (predicts,) = _predicts(libraries)
    assert re.search(predicts, message), report
    assert _predicts({**libraries, **fixed}) == [], report


def test_an_unnamed_package_s_reason_names_each_range_once() -> None:
    """Generated rows come one per imported name: diffusers beside huggingface-hub 0.7.0 has many rows of the
    same releases and requirement, each clause said once.
    """
    from pytest_rocmcompat.knowledge.checks.requirements import unnamed_findings

    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"huggingface-hub": "0.7.0"})
    (diffusers,) = [f for f in unnamed_findings(env) if f.uses == ("diffusers",)]
    clauses = diffusers.reason.split(": ", 1)[1].split("; ")
    assert len(clauses) == len(set(clauses)) > 1, diffusers.reason


def test_unsloth_rows_follow_the_transformers_internals_it_imports() -> None:
    """unsloth 2024.9.post3's kernels/cross_entropy_loss.py runs ``from transformers.models.llama.modeling_llama
    import (LlamaForCausalLM, CausalLMOutputWithPast, Optional, Union, Cache, List, Tuple)`` at ``import unsloth``
    (read in its PyPI wheel): typing names modeling_llama stopped importing in 4.51, so ``import unsloth`` fails there
    although unsloth declares no transformers ceiling."""
    row = _row("unsloth", "2024.9.post3", "transformers.models.llama.modeling_llama", "List")
    assert (row["requirement"], row["until"]) == ("transformers>=4.28.0.dev0,<4.51.0", "2024.11.2")
    env = Environment(
        platform="cuda",
        python="3.11.9",
        torch="2.5.1+cu124",
        libraries={"unsloth": "2024.11.1", "transformers": "4.51.3"},  # 2024.11.1 declares no transformers bound
    )
    reasons = [f.reason for f in evaluate(env) if f.check == "requirement-not-met"]
    assert any("unsloth 2024.11.1" in r and ",<4.51.0" in r for r in reasons), reasons
    ok = Environment(
        platform="cuda",
        python="3.11.9",
        torch="2.5.1+cu124",
        libraries={"unsloth": "2024.11.1", "transformers": "4.46.3"},
    )
    assert not [f for f in evaluate(ok) if f.check == "requirement-not-met" and "unsloth" in f.reason]
