"""A test that uses a library reaches the findings of what that library requires (knowledge/dependency_reach.py)."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import rocm_visibility
from pytest_rocmcompat.knowledge.dependency_reach import DependencyReach, typical_needs
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
from pytest_rocmcompat.knowledge.rules.model import AppliesTo, Rule
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.test_ray_rocm import NO_GPU_MESSAGES
from tests.knowledge.two_ways import UNRELATED, run_source

ROCM = Environment(platform="rocm", python="3.11")


def test_a_stated_release_reaches_what_it_declares() -> None:
    # verl 0.4.1 declares ray[default]>=2.41.0 (PyPI metadata, the generated data); its extras are not followed
    assert any(r.startswith("ray") for r in declared_data.release("verl", "0.4.1").requires or ())
    reach = DependencyReach(Environment(platform="rocm", python="3.11", libraries={"verl": "0.4.1"}))
    assert {"ray", "transformers", "accelerate"} <= reach.expand(frozenset({"verl"}))
    # verl 0.1 declared no Ray: a stack naming it does not reach Ray through verl
    old = DependencyReach(Environment(platform="rocm", python="3.11", libraries={"verl": "0.1"}))
    assert "ray" not in old.expand(frozenset({"verl"}))


def test_transitive_but_never_through_torch() -> None:
    reach = DependencyReach(ROCM)
    # PEFT -> transformers -> tokenizers, and PEFT -> accelerate
    assert {"transformers", "tokenizers", "accelerate", "torch"} <= reach.expand(frozenset({"peft"}))
    # torch's requirements are its runtime: eager tests do not use Triton
    assert "triton" not in reach.expand(frozenset({"peft"}))
    assert reach.expand(frozenset({"torch"})) == {"torch"}
    # a library that requires Triton itself reaches it
    assert "triton" in reach.expand(frozenset({"liger-kernel"}))


def test_an_unstated_release_reaches_what_its_releases_typically_declare() -> None:
    # PEFT 0.1.0 alone declared bitsandbytes: not what a PEFT test typically runs
    peft = typical_needs("peft", "3.11")
    assert "transformers" in peft and "bitsandbytes" not in peft
    assert typical_needs("not-a-package-the-data-lists", "3.11") == frozenset()


def test_installed_metadata_wins_with_extras_and_other_markers_left_out() -> None:
    env = Environment(
        platform="rocm",
        python="3.11",
        libraries={"mylib": "1.0"},
        requires={
            "mylib": ("ray>=2.10", "foo; extra == 'bar'", "old-thing; python_version < '3.8'", "not a requirement ((")
        },
    )
    assert DependencyReach(env).needs("MyLib") == {"ray"}


def test_cuda_wheels_metadata_is_not_read_on_rocm() -> None:
    # vLLM's PyPI metadata is its CUDA build's; on ROCm only an installed build's own metadata counts
    cuda = DependencyReach(Environment(platform="cuda", python="3.11", libraries={"vllm": "0.6.3"}))
    rocm = DependencyReach(Environment(platform="rocm", python="3.11", libraries={"vllm": "0.6.3"}))
    assert "xformers" in cuda.needs("vllm")
    assert rocm.needs("vllm") == frozenset()
    recorded = Environment(
        platform="rocm", python="3.11", libraries={"vllm": "0.6.3"}, requires={"vllm": ("ray>=2.9",)}
    )
    assert DependencyReach(recorded).needs("vllm") == {"ray"}


def test_cycles_end() -> None:
    env = Environment(requires={"a": ("b",), "b": ("a", "c"), "c": ()})
    assert DependencyReach(env).expand(frozenset({"a"})) == {"a", "b", "c"}


def test_the_engine_matches_a_rule_on_a_required_library() -> None:
    rules = [Rule("ray-example", "an example rule on Ray", applies_to=AppliesTo(everything=False, uses=("ray",)))]
    active = ActiveRules(rules, Environment(platform="rocm", python="3.11", libraries={"verl": "0.4.1"}))
    (through,) = active.match(ItemFacts("t::a", frozenset(), frozenset({"verl"})))
    assert through.id == "ray-example" and through.at_risk  # reached through verl's requirement: a risk
    (direct,) = active.match(ItemFacts("t::d", frozenset(), frozenset({"verl", "ray"})))
    assert direct.id == "ray-example" and not direct.at_risk  # the test says it uses Ray itself
    assert active.match(ItemFacts("t::b", frozenset(), frozenset({"transformers"}))) == []
    assert active.match(ItemFacts("t::c", frozenset(), frozenset())) == []


_VERL_TESTS = """
import pytest

@pytest.mark.uses("verl")
def test_predicted():
    raise ValueError({predicted!r})

@pytest.mark.uses("verl")
def test_unrelated():
    raise ValueError({unrelated!r})

@pytest.mark.uses("transformers")
def test_no_ray():
    raise ValueError({predicted!r})
"""


def test_rays_no_gpu_reaches_a_verl_test_both_ways(pytester: pytest.Pytester) -> None:
    # Ray 2.9.3 counts no AMD GPU (rocm-visible-devices); verl requires Ray, transformers does not
    stack = (
        "platform=rocm",
        "arch=gfx90a",
        "torch=2.1.2+rocm5.6",
        "torch_archs=gfx90a",
        "lib.ray=2.9.3",
        "lib.verl=0.4.1",
    )
    predicted = NO_GPU_MESSAGES[8][0].split("ValueError: ", 1)[1]
    cases = run_source(pytester, _VERL_TESTS.format(predicted=predicted, unrelated=UNRELATED), stack)
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"] == rocm_visibility.ID
    assert cases["test_unrelated"].get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in cases["test_unrelated"]
    assert "rocm_rule" not in cases["test_no_ray"]


_MATRIX = """
name: reach
known_bad:
  - id: ray-example
    when: {platform: rocm}
    applies_to: {uses: [ray]}
    action: xfail
    signature: "Ray's own known text"
    reason: an example rule on Ray
    links: [https://example.org/ray]
"""

_REACH_TESTS = """
import pytest

@pytest.mark.uses("verl")
def test_verl_passes():
    pass

@pytest.mark.uses("ray")
def test_ray_passes():
    pass

@pytest.mark.uses("verl")
def test_verl_known():
    raise RuntimeError("Ray's own known text")

@pytest.mark.uses("verl")
def test_verl_other():
    raise ValueError("a genuinely different regression")
"""


def test_a_rule_reached_through_a_requirement_is_a_risk(pytester: pytest.Pytester) -> None:
    """Its text still makes the failure known-bad; a pass stands (no stale rule), another failure gets no cause."""
    from pytest_rocmcompat.stack.overrides import apply_overrides
    from tests.knowledge.two_ways import junit_properties

    env = apply_overrides(Environment(python="3.11.7"), ["platform=rocm", "arch=gfx942", "lib.verl=0.4.1"])
    (pytester.path / "env.json").write_text(env.to_json(), encoding="utf-8")
    pytester.makefile(".yaml", matrix=_MATRIX)
    pytester.makepyfile(test_reach=_REACH_TESTS)
    pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-matrix", "matrix.yaml", "--rocm-no-bundled", "-p", "no:cacheprovider",
        "--junitxml", "junit.xml",
    )  # fmt: skip
    cases = junit_properties(pytester.path / "junit.xml")
    assert cases["test_verl_known"]["rocm_outcome"] == "known-bad"
    assert cases["test_ray_passes"]["rocm_outcome"] == "stale-rule"  # reached directly: a pass contradicts it
    assert cases["test_verl_passes"].get("rocm_outcome", "pass") == "pass"
    assert cases["test_verl_other"].get("rocm_outcome", "fail") == "fail"
    assert (
        cases["test_verl_other"].get("rocm_note", "").startswith("risk ")
        and "likely cause" not in cases["test_verl_other"]["rocm_note"]
        and "rocm_diagnosis" not in cases["test_verl_other"]
    )
    # --collect-only says how the rule reaches each test
    listing = pytester.runpytest(
        "--rocm-env", "env.json", "--rocm-matrix", "matrix.yaml", "--rocm-no-bundled", "-p", "no:cacheprovider",
        "--collect-only", "-q",
    ).stdout.str()  # fmt: skip
    assert "test_reach.py::test_verl_passes: XFAIL [ray-example]" in listing
    assert "(reached because verl requires ray: a risk for this test)" in listing
    ray_line = next(line for line in listing.splitlines() if line.startswith("test_reach.py::test_ray_passes:"))
    assert "reached because" not in ray_line
