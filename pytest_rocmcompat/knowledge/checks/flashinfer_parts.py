"""``flashinfer-parts-mismatch``: FlashInfer's prebuilt-kernel packages beside a flashinfer of another release.

FlashInfer ships in three distributions: ``flashinfer-python`` (the library), ``flashinfer-cubin`` (its
prebuilt kernels, on PyPI from 0.4.0) and ``flashinfer-jit-cache`` (its AOT modules, on FlashInfer's own
index, labelled with the CUDA they are built for: ``0.6.10+cu130``). None declares the others, so pip and uv
install any pairing, but ``import flashinfer`` refuses one (``flashinfer/jit/env.py``, read at 0.5.0 and
at SOURCE): a ``flashinfer-cubin`` whose version is not the library's exactly, or a ``flashinfer-jit-cache``
whose version does not begin with it, raises "flashinfer-cubin version (X) does not match flashinfer
version (Y)" unless ``FLASHINFER_DISABLE_VERSION_CHECK`` is set. vLLM and SGLang require
``flashinfer-python`` and import it, so the failure reaches their tests too (``dependency_reach``).

Judged where the stack lists the library and a part. A library of 0.4.x, whose check was not read, is a
risk its own message confirms; one before 0.4.0 has no parts to check.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "flashinfer-parts-mismatch"
SOURCE = (
    "https://github.com/flashinfer-ai/flashinfer/blob/05ce648b408ab17c2c31ad7b498b3c28d15b9369/flashinfer/jit/env.py"
)
LIBRARY = "flashinfer-python"
USES = ("flashinfer", "flashinfer-python")
BYPASS = "FLASHINFER_DISABLE_VERSION_CHECK"
FIRST_PARTS = Version("0.4.0")  # flashinfer-cubin's first release (PyPI, 2025-10-09)
READ_FROM = Version("0.5.0")  # the oldest release whose check was read
# where each part's releases are published
_WHERE = {
    "flashinfer-cubin": "; PyPI, or FlashInfer's index",
    "flashinfer-jit-cache": "; FlashInfer's index, built per CUDA",
}
# the library's own refusal (both parts' messages share it)
PREDICTS = r"flashinfer-(?:cubin|jit-cache) version \([^)\n]{1,60}\) does not match flashinfer version"


def check(env: Environment) -> list[Finding]:
    stated = (env.libraries.get(LIBRARY) or "").strip()
    library = coerce_version(stated)
    if library is None or library < FIRST_PARTS or env.env.get(BYPASS):
        return []
    found = []  # compared as strings, as flashinfer compares its __version__ strings
    cubin = (env.libraries.get("flashinfer-cubin") or "").strip()
    if cubin and cubin != stated:
        found.append(("flashinfer-cubin", cubin, "exactly"))
    cache = (env.libraries.get("flashinfer-jit-cache") or "").strip()
    if cache and not cache.startswith(stated):
        found.append(("flashinfer-jit-cache", cache, "with its CUDA label after it"))
    return [
        Finding(
            check=ID,
            reason=f"{part} {version} beside {LIBRARY} {env.libraries[LIBRARY]}: import flashinfer refuses a {part} "
            f"that is not the library's release ({how})",
            fix=f"install {part}=={library.public} (the library's release{_WHERE[part]}), or set {BYPASS}=1 to bypass "
            "the check",
            link=SOURCE,
            uses=USES,
            uncertain=library < READ_FROM,
        )
        for part, version, how in found
    ]
