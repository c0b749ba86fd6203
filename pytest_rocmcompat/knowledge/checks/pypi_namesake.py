"""``pypi-namesake``: the stack's package of a GPU library's name is another project published under it.

NVIDIA's apex (mixed precision, fused optimizers, ``apex.amp``) is built from its repository and reports
version ``0.1`` (its ``setup.py``); AMD's ROCm/apex reports ``1.N.0`` (one per torch 2.N, its README's
table). Neither is on PyPI: the distribution ``apex`` there is a 2013 Pyramid toolkit ("Pyramid toolkit to
add Velruse, Flash Messages,CSRF, ReCaptcha and Sessions", releases 0.9.7dev-0.9.10dev; its GitHub
source tagged 0.9.11.dev0), so ``pip install apex`` installs it, and its ``apex/__init__.py`` fails on
Python 3 before anything of NVIDIA's could be imported: ``TypeError: Class advice impossible in Python3.
Use the @implementer class decorator instead.`` (zope.interface's ``implements`` in ``apex/interfaces.py``:
NVIDIA/apex#474, hukkelas/DeepPrivacy#7, zopefoundation/zope.interface#116). A stack listing an apex
0.9.x is that package: certain, for tests that use apex, predicting its import failure and the missing
NVIDIA modules.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "pypi-namesake"
SOURCE = "https://pypi.org/project/apex/"
APEX_PYRAMID = (Version("0.9"), Version("0.10"))  # PyPI's 0.9.7dev-0.9.10dev, GitHub's 0.9.11.dev0
# zope.interface's refusal raised by the Pyramid apex's import (two spaces after "Python3." in the
# original), and what code written for NVIDIA's apex then meets
_NVIDIA_MODULES = "amp|optimizers|normalization|parallel|contrib|transformer|fp16_utils"
PREDICTS = (
    r"Class advice impossible in Python3\.\s+Use the @implementer class decorator"
    rf"|cannot import name '(?:{_NVIDIA_MODULES})' from 'apex'"
    rf"|No module named 'apex\.(?:{_NVIDIA_MODULES}|mlp|fused_dense)"
    rf"|module 'apex' has no attribute '(?:{_NVIDIA_MODULES})'"
)


def is_pyramid_apex(version: Version) -> bool:
    """Whether an ``apex`` release is PyPI's Pyramid toolkit (0.9.x), not NVIDIA's or ROCm's apex."""
    return APEX_PYRAMID[0] <= Version(version.base_version) < APEX_PYRAMID[1]


def check(env: Environment) -> list[Finding]:
    stated = env.libraries.get("apex")
    version = coerce_version(stated)
    if version is None or not is_pyramid_apex(version):
        return []
    return [
        Finding(
            check=ID,
            reason=f"apex {stated} is PyPI's 'apex', a 2013 Pyramid web toolkit, not NVIDIA's apex (version 0.1, "
            "built from its repository) nor ROCm/apex (1.N.0)",
            fix="pip uninstall apex, then build NVIDIA/apex (CUDA) or ROCm/apex (ROCm, the branch for your torch) "
            "from source as their READMEs say",
            link=SOURCE,
            uses=("apex",),
            predicts=PREDICTS,
        )
    ]
