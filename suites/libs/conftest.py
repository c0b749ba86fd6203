"""Fixtures of the library smoke suite.

Every test module here is marked ``uses("<library>")`` so known-bad rules with
``applies_to.uses`` reach it. A library that is not installed is a skip naming
it; an installed library is imported inside the test, unguarded, so the errors
users report (``AttributeError: module 'torch' has no attribute 'int1'``) are the
failure text that rule signatures match.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata

import pytest

VERSION_PROPERTY = "rocm_lib_version."
TINY_LLAMA = {
    "vocab_size": 128,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
}


def installed_version(*distributions: str) -> tuple[str, str] | None:
    """``(distribution, version)`` of the first installed distribution of ``distributions``."""
    for name in distributions:
        try:
            return name, metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


@pytest.fixture
def library(request: pytest.FixtureRequest) -> Callable[..., str]:
    """``library("torchao")``: the installed version, recorded as the JUnit property
    ``rocm_lib_version.torchao``; a skip naming the library when it is missing.

    Extra names are other distributions of the same import (``triton`` ships as
    ``pytorch-triton-rocm`` with ROCm torch wheels).
    """

    def require(name: str, *alternatives: str) -> str:
        found = installed_version(name, *alternatives)
        if found is None:
            names = ", ".join((name, *alternatives))
            pytest.skip(f"library {name} is not installed (no distribution {names}); pip install {name}")
        # user_properties directly, as rocm_measure does (record_property warns under xunit2)
        request.node.user_properties.append((VERSION_PROPERTY + name, found[1]))
        return found[1]

    return require


@pytest.fixture(scope="session")
def device(torch):
    """The device under test: the first GPU when torch sees one (ROCm answers through
    ``torch.cuda``), else the CPU."""
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


@pytest.fixture
def no_tf32(torch):
    """Full-precision fp32 matmuls while the test runs (references compare in fp32).

    torch >= 2.9 has ``fp32_precision``; reading the legacy ``allow_tf32`` after anyone used
    the new API raises, so the new API is used where it exists."""
    backends = (torch.backends.cuda.matmul, torch.backends.cudnn)
    if all(hasattr(b, "fp32_precision") for b in backends):
        saved = [b.fp32_precision for b in backends]
        for b in backends:
            b.fp32_precision = "ieee"
        yield
        for b, value in zip(backends, saved, strict=False):
            b.fp32_precision = value
        return
    saved = [b.allow_tf32 for b in backends]
    for b in backends:
        b.allow_tf32 = False
    yield
    for b, value in zip(backends, saved, strict=False):
        b.allow_tf32 = value


@pytest.fixture(scope="session")
def rel_error(torch) -> Callable[..., float]:
    """``rel_error(result, reference)``: ``||result - reference|| / ||reference||`` in float64."""

    def error(result, reference) -> float:
        result, reference = result.detach().double().cpu(), reference.detach().double().cpu()
        return float(torch.linalg.norm(result - reference) / torch.linalg.norm(reference))

    return error


@pytest.fixture
def tiny_llama(torch):
    """``tiny_llama(attn="eager", **overrides)``: a 2-layer Llama built from a config (random
    init, seed 0, no download). Each call builds its own config: transformers' ``from_config``
    writes the attention implementation into the config object it is given."""

    def build(attn: str = "eager", **overrides):
        from transformers import AutoModelForCausalLM, LlamaConfig  # after the test's library() check

        config = LlamaConfig(**{**TINY_LLAMA, **overrides})
        torch.manual_seed(0)
        return AutoModelForCausalLM.from_config(config, attn_implementation=attn)

    return build
