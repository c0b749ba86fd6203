"""Ray: import (Ray 2.45/2.46 assert here on ROCm when only CUDA_VISIBLE_DEVICES is set;
Ray >=2.45 rejects ROCR_VISIBLE_DEVICES). The cluster test is in test_ray_cluster.py."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("ray")


def test_import_ray(library) -> None:
    version = library("ray")
    import ray  # Ray 2.45/2.46 on ROCm assert here when only CUDA_VISIBLE_DEVICES is set

    assert ray.__version__ == version
