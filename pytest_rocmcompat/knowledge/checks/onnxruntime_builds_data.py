"""Which onnxruntime distributions share one package, and the CUDA/cuDNN each onnxruntime-gpu release needs.

Read by :mod:`pytest_rocmcompat.knowledge.checks.onnxruntime_builds`. Every row names its source.

Left out on purpose, with the reason:

- ``onnxruntime-gpu`` builds from ONNX Runtime's other package feeds (the CUDA 12 builds of 1.17/1.18,
  the CUDA 11 builds of 1.19 and later, the CUDA 13 builds before 1.27) carry the same version as
  the PyPI wheel and no label: ``pip freeze`` does not tell them apart, so :data:`CUDA_BUILDS`
  describes the PyPI wheel only (what ``pip install onnxruntime-gpu==X`` installs).
- releases before 1.7 (CUDA 10.x) and after 1.31.1 (not checked): the stack is not judged.
- ``onnxruntime-rocm`` / ``onnxruntime-migraphx`` wheels from AMD's ``repo.radeon.com`` (AMD's
  install page: https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/install-onnx.html)
  against the system ROCm: which ROCm such a wheel was built for was not verified from its version,
  so only the three PyPI ``onnxruntime-rocm`` releases of :data:`ROCM_WHEELS` are judged.
- ``onnxruntime-migraphx`` builds other than PyPI's (AMD labels its own, ``1.23.2+rocm7.14.0``): their
  ROCm release is not read, so only the PyPI versions of :data:`MIGRAPHX_WHEELS` are judged, and as a
  risk (an unlabelled AMD build of the same version may link another ROCm). Every ``migraphx_*`` C API
  symbol those providers import is in ``migraphx.h`` of ROCm/AMDMIGraphX from tag ``rocm-7.0.0`` on
  (``migraphx_shapes_size``, which 1.24.2+ import, since ``rocm-6.4.0``; ``migraphx_quantize_bf16`` since
  ``rocm-7.0.0``), so no MIGraphX release within ROCm 7 is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

# ---- several onnxruntime distributions in one environment -------------------------------------
# "There are two Python packages for ONNX Runtime. Only one of these packages should be installed at
# a time in any one environment. The GPU package encompasses most of the CPU functionality."
# (ONNX Runtime's Python install page; docs/get-started/with-python.md of the gh-pages branch at
# 93f3c4bb0e216a9a8c759418eb9705ec256b6a66)
ONE_PACKAGE_SOURCE = "https://onnxruntime.ai/docs/get-started/with-python.html#install-onnx-runtime"
# Each is imported as ``onnxruntime``: its wheel installs the top-level ``onnxruntime`` directory
# (read from the wheels themselves: onnxruntime_openvino-1.24.1 and onnxruntime_directml-1.24.4 hold
# only ``onnxruntime/`` and their dist-info), so whichever was installed last owns the files and the
# other's execution providers are gone. onnxruntime-extensions#404: "If I had already installed
# onnxruntime-gpu then onnxruntime installs in the same directory overwriting it, and then the GPU
# execution providers are unavailable."
TRAINING = "onnxruntime-training"
DISTRIBUTIONS: tuple[str, ...] = (
    "onnxruntime",  # CPU
    "onnxruntime-gpu",  # CUDA, TensorRT
    "onnxruntime-rocm",  # ROCm, MIGraphX
    "onnxruntime-migraphx",  # MIGraphX
    "onnxruntime-directml",  # DirectML (Windows)
    "onnxruntime-openvino",  # OpenVINO
    # ONNX Runtime's training build installs the ``onnxruntime`` package too (PyPI's onnxruntime-training
    # wheels 1.15.0 to 1.19.2 hold ``onnxruntime/capi/build_and_package_info.py`` with ``package_name =
    # 'onnxruntime-training'``); the probe records it
    TRAINING,
)


# ---- onnxruntime-gpu's CUDA and cuDNN, per release ---------------------------------------------
@dataclass(frozen=True)
class CudaBuild:
    """The CUDA and cuDNN major the PyPI ``onnxruntime-gpu`` wheels of ``[since, until)`` load."""

    since: str
    until: str
    cuda: int
    cudnn: int
    source: str


CUDA_EP_PAGE = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"
CUDA_BUILDS: tuple[CudaBuild, ...] = (
    # The requirements table: 1.7-1.8 CUDA 11.0.3 / cuDNN 8.0.4, 1.9-1.12 11.4 / 8.2.4, 1.13-1.14
    # 11.6 / 8.2.4, 1.15-1.17 11.8 / 8.2.4 (docs/execution-providers/CUDA-ExecutionProvider.md of the
    # gh-pages branch); for 1.17 "The default CUDA version for ORT 1.17 is CUDA 11.8"; for 1.18 a
    # maintainer (jywu-msft, microsoft/onnxruntime#20829): "we plan to publish 1.18.1 gpu packages
    # built against CUDA 12.x and CuDNN 9.x ... (in addition to the default gpu packages built against
    # CUDA 11.8 + CuDNN 8.x)", and microsoft/onnxruntime#21377: "changing the defaults for ORT 1.19
    # (make the pypi/nuget default to CUDA 12.x and host the 11.8 packages on the alt feed)".
    CudaBuild("1.7", "1.19", 11, 8, "https://github.com/microsoft/onnxruntime/pull/21377"),
    # "Starting with version 1.19, CUDA 12.x becomes the default version when distributing ONNX
    # Runtime GPU packages in PyPI"; "ONNX Runtime built with cuDNN 8.x is not compatible with cuDNN
    # 9.x, and vice versa" (the CUDA EP page). A maintainer's table (tianleiwu,
    # microsoft/onnxruntime#21684): "12.x | 9.x | 2.4.1 | 1.19.2 | pip install onnxruntime-gpu==1.19.2".
    # From 1.21.0 to 1.26.0 the wheel's own extras say so: nvidia-cuda-runtime-cu12~=12.0; extra ==
    # "cuda", nvidia-cudnn-cu12~=9.0; extra == "cudnn" (Requires-Dist, read with pip).
    CudaBuild("1.19", "1.27", 12, 9, CUDA_EP_PAGE),
    # onnxruntime-gpu 1.27.0's Requires-Dist: nvidia-cuda-runtime-cu13~=13.0; extra == "cuda",
    # nvidia-cudnn-cu13~=9.0; extra == "cudnn"; 1.28.0, 1.29.0, 1.30.0 and 1.31.1: nvidia-cuda-runtime~=13.0,
    # nvidia-cudnn-cu13~=9.0 (read with pip from the PyPI wheels' metadata)
    CudaBuild("1.27", "1.32", 13, 9, "https://pypi.org/project/onnxruntime-gpu/1.27.0/"),
)


# ---- onnxruntime-rocm's PyPI wheels and the ROCm they link -----------------------------------
@dataclass(frozen=True)
class RocmWheel:
    """The ROCm release a PyPI ``onnxruntime-rocm`` wheel was built against, and a soname it needs."""

    rocm: str  # the release of its RUNPATH (/opt/rocm-X.Y.Z/lib)
    needs: str  # the HIP runtime its ROCm provider library links (NEEDED)
    source: str
    targets: tuple[str, ...] = ()  # the gfx targets its ROCm provider's kernels are built for

    @property
    def major(self) -> int:
        return int(self.rocm.split(".", 1)[0])


# Read with readelf from onnxruntime/capi/libonnxruntime_providers_rocm.so in the PyPI wheels (the
# manylinux cp311 and cp312 wheels of each release agree): 1.22.2.post1 NEEDED libamdhip64.so.6,
# libhipblas.so.2, librocm_smi64.so.7, RUNPATH /opt/rocm/lib:/opt/rocm-6.4.2/lib; 1.22.2.post2 and .post3
# NEEDED libamdhip64.so.7, libhipblas.so.3, librocm_smi64.so.1, RUNPATH /opt/rocm/lib:/opt/rocm-7.2.4/lib.
# ROCm 7 changed the HIP runtime's soname (libamdhip64.so.6 -> .7), so a wheel of one major cannot load
# on the other.
# ``targets``: the offload bundles of the same library (its "amdgcn-amd-amdhsa--gfxNNN" entries, read
# with strings from the cp311 wheels): post1 gfx908 gfx90a gfx940 gfx941 gfx942 gfx1030 gfx1100 gfx1101
# gfx1200 gfx1201; post2 and post3 the same less gfx940 and gfx941. None has gfx950, gfx1102, gfx115x or
# gfx906: on such a GPU the provider's own kernels have no code object to run.
_POST1_TARGETS = (
    "gfx908",
    "gfx90a",
    "gfx940",
    "gfx941",
    "gfx942",
    "gfx1030",
    "gfx1100",
    "gfx1101",
    "gfx1200",
    "gfx1201",
)
_POST2_TARGETS = ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201")
ROCM_WHEELS: dict[str, RocmWheel] = {
    "1.22.2.post1": RocmWheel(
        "6.4.2", "libamdhip64.so.6", "https://pypi.org/project/onnxruntime-rocm/1.22.2.post1/#files", _POST1_TARGETS
    ),
    "1.22.2.post2": RocmWheel(
        "7.2.4", "libamdhip64.so.7", "https://pypi.org/project/onnxruntime-rocm/1.22.2.post2/#files", _POST2_TARGETS
    ),
    "1.22.2.post3": RocmWheel(
        "7.2.4", "libamdhip64.so.7", "https://pypi.org/project/onnxruntime-rocm/1.22.2.post3/#files", _POST2_TARGETS
    ),
}


# ---- onnxruntime builds a ROCm stack may hold that have no ROCm execution provider ---------------
# ``kProvidersInPriorityOrder`` (onnxruntime/core/providers/get_execution_providers.cc) is compiled into
# libonnxruntime with each provider's availability; read from the PyPI wheels (and, where the wheel
# loads here, ``onnxruntime.get_available_providers()``): onnxruntime 1.22.0 ['AzureExecutionProvider',
# 'CPUExecutionProvider']; onnxruntime-migraphx 1.23.0 ['MIGraphXExecutionProvider', 'CPUExecutionProvider'];
# onnxruntime-rocm 1.22.1 (cp310, manylinux_2_38) MIGraphX and CPU available, ROCM not, and its
# build_and_package_info.py says package_name = 'onnxruntime-migraphx'; onnxruntime-rocm 1.22.2.post3
# ['ROCMExecutionProvider', 'CPUExecutionProvider']. Every onnxruntime-migraphx wheel (1.23.0 to 1.27.1)
# ships libonnxruntime_providers_migraphx.so and no libonnxruntime_providers_rocm.so, and from 1.23 no build
# of any name has the ROCm provider ("ROCM EP was removed from the source tree", v1.23.0 release notes;
# gpu_vendor_builds_data.ORT_ROCM_EP_SOURCE). onnxruntime-rocm 1.23 or later is built-for-other-vendor's,
# onnxruntime-gpu on ROCm too.
@dataclass(frozen=True)
class NoRocmProvider:
    """A distribution (its releases in ``versions``) whose build has no ``ROCMExecutionProvider``."""

    dist: str
    versions: str  # a PEP 440 specifier; "" for every release
    holds: str  # what it is and the execution providers it has (``get_available_providers()``)
    migraphx: bool  # it has MIGraphXExecutionProvider (only the ROCm provider is missing)
    source: str
    unlabelled: bool = False  # only a version without a local label (a label names another build)

    def covers(self, dist: str, version: Version) -> bool:
        if self.unlabelled and version.local is not None:
            return False
        return dist == self.dist and SpecifierSet(self.versions).contains(version.public, prereleases=True)


NO_ROCM_PROVIDER: tuple[NoRocmProvider, ...] = (
    NoRocmProvider(
        "onnxruntime-migraphx",
        "",
        "onnxruntime's MIGraphX build: MIGraphXExecutionProvider, CPUExecutionProvider",
        True,
        "https://pypi.org/project/onnxruntime-migraphx/#files",
    ),
    # another build of 1.22.1 (AMD's repo.radeon.com wheels hold "the MIGraphX and ROCm Execution Providers",
    # https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/install-onnx.html) may have it
    NoRocmProvider(
        "onnxruntime-rocm",
        "==1.22.1",
        "PyPI's wheel is a MIGraphX build: MIGraphXExecutionProvider, CPUExecutionProvider",
        True,
        "https://pypi.org/project/onnxruntime-rocm/1.22.1/#files",
    ),
    # PyPI's is the CPU build; a source build keeps the name unless built --use_rocm (onnxruntime-rocm) or,
    # in later setup.py, --use_migraphx (onnxruntime-migraphx)
    NoRocmProvider(
        "onnxruntime",
        "",
        "PyPI's wheel is the CPU build: AzureExecutionProvider, CPUExecutionProvider",
        False,
        ONE_PACKAGE_SOURCE,
    ),
    # PyPI's onnxruntime-training wheels (1.12.0 to 1.19.2, its every release) are CUDA builds:
    # onnxruntime/capi/build_and_package_info.py says cuda_version = '10.2' in 1.12.0, '11.6' in 1.13.1, 1.14.0
    # and 1.14.1, '11.8' in 1.15.0, 1.15.1, 1.16.0, 1.16.2, 1.16.3, 1.17.1, 1.18.0, 1.19.1 and 1.19.2 (read by range
    # requests from the manylinux wheels). ONNX
    # Runtime's setup.py puts no local version on "default training packages to pypi" and "+rocm" plus the ROCm
    # release on its other ROCm training builds (:data:`ROCM_LABEL_SOURCE`), so only an unlabelled version is PyPI's.
    # ORTModule asks a ROCm torch for the ROCm provider: ``providers = ["ROCMExecutionProvider"] if
    # self.is_rocm_pytorch else ["CUDAExecutionProvider"]`` (training/ortmodule/_graph_execution_manager.py, 1.17.1).
    NoRocmProvider(
        TRAINING,
        ">=1.12,<1.20",
        "PyPI's wheel is a CUDA build, with no AMD provider",
        False,
        "https://pypi.org/project/onnxruntime-training/#files",
        unlabelled=True,
    ),
)


# ---- ROCm builds whose local version names their ROCm release ------------------------------------
# ONNX Runtime's setup.py labels a ROCm training build: ``local_version = "+rocm" + rocm_version.replace(".", "")``
# ("removing '.' to make Rocm version number in the same form as Pytorch", so ``+rocm57`` is ROCm 5.7), and
# its ROCm builds name themselves onnxruntime-rocm (``--use_rocm``). Its ``rocm_dependencies`` (the ROCm
# libraries auditwheel leaves out of the wheel) list each major's sonames apart: libamdhip64.so.5 and .so.6,
# libhiprtc.so.5 and .so.6, librocblas.so.3 and .so.4, librocm_smi64.so.5 and .so.6; ROCm 7 moved to
# libamdhip64.so.7 (:data:`ROCM_WHEELS`). So a labelled build's ROCm provider loads only on its label's major.
ROCM_LABEL_SOURCE = "https://github.com/microsoft/onnxruntime/blob/00157c7d4b6f4a323afc3e9fba69f60f7569163c/setup.py"
ROCM_LABELLED: tuple[str, ...] = (TRAINING, "onnxruntime-rocm")


# ---- the MIGraphX provider of PyPI's onnxruntime-migraphx (and onnxruntime-rocm 1.22.1) wheels -----
# Read with readelf from onnxruntime/capi/libonnxruntime_providers_migraphx.so of the cp311 wheels (1.22.1:
# cp310): NEEDED libmigraphx_c.so.3 and libamdhip64.so.7 (1.22.1: libamdhip64.so.6), RUNPATH
# /opt/rocm-X.Y.Z/lib:/opt/rocm-X.Y.Z/lib/migraphx/lib:/opt/rocm/lib. ``targets`` is empty: MIGraphX
# compiles its kernels for the GPU at run time.
_MIGRAPHX_PYPI = "https://pypi.org/project/onnxruntime-migraphx/{}/#files"
MIGRAPHX_WHEELS: dict[tuple[str, str], RocmWheel] = {
    ("onnxruntime-rocm", "1.22.1"): RocmWheel(
        "6.4.1", "libamdhip64.so.6", "https://pypi.org/project/onnxruntime-rocm/1.22.1/#files"
    ),
    **{
        ("onnxruntime-migraphx", version): RocmWheel(rocm, "libamdhip64.so.7", _MIGRAPHX_PYPI.format(version))
        for version, rocm in (
            ("1.23.0", "7.0.1"),
            ("1.23.2", "7.1.1"),
            ("1.24.2", "7.1.1"),
            ("1.24.4", "7.2.2"),
            ("1.25.0", "7.2.2"),
            ("1.27.0", "7.2.4"),
            ("1.27.1", "7.2.4"),
        )
    },
}
