"""Which NVIDIA kernel driver branches can drive which GPU architecture (``nvidia-driver-gpu-unsupported``).

Each row is one architecture with the sourced branch bounds NVIDIA states for it, and the
NVIDIA page (or NVIDIA's own repository file) each bound comes from:

- ``first``: the first driver branch that supported *any* GPU of the architecture, so a driver
  of an earlier branch cannot drive one. A later GPU of the same architecture may need a later
  branch (the GPU Operator asks 570.133.20 or later for an HGX B200): below ``first`` is certain,
  at or above it is no promise. Sources: for Volta, Turing and Ampere, NVIDIA's *CUDA Toolkit,
  Driver, and Architecture Matrix* (the architecture's first CUDA toolkit: 9.0, 10.0, 11.0, for
  Ampere's 8.0 and 8.6 alike) with the CUDA release notes' driver table (CUDA 9.0.76 needs
  384.81, 10.0.130 410.48, 11.0.1 RC 450.36.06); for Ada, Hopper and Blackwell, the driver's own
  released-GPU name table (``src/nvidia/generated/g_nv_name_released.h`` in
  NVIDIA/open-gpu-kernel-modules, code both kernel module flavours share): 520.56.06 is the first
  release naming an AD10x (GeForce RTX 4090) or GH100 (H100 PCIe) product, 570.86.15 the first
  naming a GB100 one (B200), 570.86.16 a GB20x one (GeForce RTX 5090). The last release of the
  branches before names none (515.105.01 no Ada or Hopper product; 525.147.05 … 565.77 and the
  long-term 535/550 up to 535.288.01/550.163.01 no Blackwell product), though 560/565 already
  carry GB100 code. The repository starts at R515: R470/R510 are not read there.
- ``last``: the last driver branch that supports the architecture (the matrix's *Last Driver
  Support*): R470 for Kepler, R580 for Maxwell, Pascal and Volta (NVIDIA's deprecation schedule:
  "The release 580 series will be the last to support GPUs based on the Maxwell, Pascal, and
  Volta architectures"; the legacy releases list 470.xx for GKxxx "Kepler" GPUs). Verified in
  the drivers' own kernel messages: 535.129.03 ignores a GeForce GT 710 ("supported through the
  NVIDIA 470.xx Legacy drivers", siderolabs/talos#8764), 595.71.05 a GeForce GTX 1050 ("580.xx
  Legacy drivers", NixOS/nixos-hardware#1880). A newer branch counts from the next ten (R480,
  R590): Windows numbers a branch's releases above it (R580 ships 581.xx, R470 474.xx), and no
  Linux branch sits between (R495 followed R470, R590 followed R580).

Left out, unsourced: sm_62 and sm_72 (Tegra X2 and Xavier integrated GPUs, driven by Jetson
Linux, not by these branches; the matrix lists Pascal 6.0/6.1 and Volta 7.0 only), sm_32 (Tegra
K1), sm_87/sm_101/sm_110/sm_121 (Jetson Orin/Thor, DGX Spark) and sm_103 (no first branch
found on an NVIDIA page); floors for Kepler, Maxwell and Pascal (not sought: drivers that old
predate every CUDA 11+ build). An architecture without a row is never judged.
"""

from __future__ import annotations

from dataclasses import dataclass

MATRIX = "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"
CUDA_DRIVER_TABLE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver"
DEPRECATION_SCHEDULE = "https://forums.developer.nvidia.com/t/unix-graphics-feature-deprecation-schedule/60588"
LEGACY_RELEASES = "https://forums.developer.nvidia.com/t/current-graphics-driver-releases/28500"
_NAMES = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/{tag}/src/nvidia/generated/g_nv_name_released.h"


@dataclass(frozen=True)
class Row:
    """An architecture's driver branch bounds; ``None`` where no bound is sourced (or none exists yet)."""

    arch: str
    first: int | None  # the first branch that supported any GPU of the arch
    last: int | None  # the last branch that supports the arch
    source: str  # the page the bounds come from (the finding's link)
    also: str = ""  # a second NVIDIA page the row rests on


ROWS: tuple[Row, ...] = (
    # Kepler: the matrix's rows 3.0/3.2 and 3.5/3.7, last driver R470; 470.xx is the GKxxx legacy release
    Row("sm_30", None, 470, MATRIX, LEGACY_RELEASES),
    Row("sm_35", None, 470, MATRIX, LEGACY_RELEASES),
    Row("sm_37", None, 470, MATRIX, LEGACY_RELEASES),
    # Maxwell 5.0/5.2/5.3, Pascal 6.0/6.1, Volta 7.0: last driver R580 (the matrix; the deprecation schedule)
    Row("sm_50", None, 580, MATRIX, DEPRECATION_SCHEDULE),
    Row("sm_52", None, 580, MATRIX, DEPRECATION_SCHEDULE),
    Row("sm_53", None, 580, MATRIX, DEPRECATION_SCHEDULE),
    Row("sm_60", None, 580, MATRIX, DEPRECATION_SCHEDULE),
    Row("sm_61", None, 580, MATRIX, DEPRECATION_SCHEDULE),
    # Volta's first toolkit is CUDA 9.0 (matrix), which needs driver >= 384.81 (release notes' table)
    Row("sm_70", 384, 580, MATRIX, CUDA_DRIVER_TABLE),
    # Turing: CUDA 10.0, >= 410.48
    Row("sm_75", 410, None, MATRIX, CUDA_DRIVER_TABLE),
    # Ampere 8.0 and 8.6: CUDA 11.0, >= 450.36.06 (GeForce RTX 30 came with R455, but the branch floor is R450)
    Row("sm_80", 450, None, MATRIX, CUDA_DRIVER_TABLE),
    Row("sm_86", 450, None, MATRIX, CUDA_DRIVER_TABLE),
    # Ada and Hopper: 520.56.06 first names an AD10x (RTX 4090) and a GH100 (H100 PCIe) product
    Row("sm_89", 520, None, _NAMES.format(tag="520.56.06")),
    Row("sm_90", 520, None, _NAMES.format(tag="520.56.06")),
    # Blackwell: 570.86.15 first names a GB100 product (B200), 570.86.16 a GB20x one (RTX 5090)
    Row("sm_100", 570, None, _NAMES.format(tag="570.86.15")),
    Row("sm_120", 570, None, _NAMES.format(tag="570.86.16")),
)
BY_ARCH: dict[str, Row] = {row.arch: row for row in ROWS}
