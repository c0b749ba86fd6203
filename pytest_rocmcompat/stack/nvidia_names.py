"""An NVIDIA GPU's compute capability from its product name, as reports print it.

``nvidia-smi -L``, ``torch.cuda.get_device_name()`` and PyTorch's ``collect_env`` name a GPU
(``NVIDIA A100-SXM4-80GB``, ``Tesla V100S-PCIE-32GB``, ``NVIDIA GeForce RTX 4070 Laptop GPU``,
``NVIDIA H100 80GB HBM3``) but not its compute capability. The table maps the names of data-centre,
workstation and GeForce parts since Maxwell to their ``sm_XY`` (NVIDIA's CUDA GPUs list, SOURCE);
the first pattern that matches wins, so a longer name comes before its prefix (``A100`` before
``A10``). A name it does not know gives ``""``: the arch is then not stated (``--set arch=`` states it).
"""

from __future__ import annotations

import re

SOURCE = "https://developer.nvidia.com/cuda-gpus"

# (pattern over the name without "NVIDIA "/"Tesla "/"GeForce "/"Quadro " prefixes, arch)
_NAMES: tuple[tuple[str, str], ...] = (
    # Blackwell
    (r"GB300|B300", "sm_103"),
    (r"GB200|B200|B100", "sm_100"),
    (r"GB10\b|DGX Spark", "sm_121"),
    (r"RTX 50\d0|RTX PRO \d{4} Blackwell|RTX PRO \d{4}", "sm_120"),
    (r"Jetson Thor|\bThor\b", "sm_110"),
    # Hopper
    (r"GH200|H200|H100|H800|H20\b", "sm_90"),
    # Ada Lovelace
    (r"RTX 40\d0|\bL40S?\b|\bL4\b|\bL20\b|RTX \d{4} Ada|RTX 6000 Ada", "sm_89"),
    # Ampere
    (r"A100|A800|\bA30\b", "sm_80"),
    (r"Jetson AGX Orin|Orin", "sm_87"),
    (r"RTX 30\d0|\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|RTX A\d{4}|\bA\d{4}\b", "sm_86"),
    # Turing
    (r"\bT4\b|RTX 20\d0|GTX 16\d0|TITAN RTX|Quadro RTX|RTX [4568]000\b|\bT[46]00\b|\bT1[02]00\b", "sm_75"),
    # Volta
    (r"V100|TITAN V\b|GV100", "sm_70"),
    (r"Xavier", "sm_72"),
    # Pascal
    (r"P100|GP100", "sm_60"),
    (r"\bP40\b|\bP4\b|\bP6\b|GTX 10[5-8]0|TITAN Xp|TITAN X \(Pascal\)|Quadro P\d{3,4}|\bP\d{3,4}\b", "sm_61"),
    (r"Jetson TX2|\bTX2\b", "sm_62"),
    # Maxwell
    (r"\bM40\b|\bM60\b|\bM6\b|\bM4\b|GTX 9[5-8]0|GTX TITAN X|Quadro M\d{3,4}", "sm_52"),
    (r"GTX 750|GTX 745|\bM10\b", "sm_50"),
    (r"Jetson (?:TX1|Nano)", "sm_53"),
    # Kepler (torch wheels dropped it; named so a report of one is understood)
    (r"\bK80\b", "sm_37"),
    (r"\bK40\b|\bK20X?\b|GTX TITAN\b|GTX 780", "sm_35"),
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), arch) for p, arch in _NAMES)
_PREFIX = re.compile(r"^(?:NVIDIA\s+)?(?:Tesla\s+|GeForce\s+|Quadro\s+(?=RTX|GV|M\d|P\d))?", re.IGNORECASE)


def nvidia_arch_of_name(name: str) -> str:
    """``sm_XY`` of an NVIDIA product name, or ``""`` when the table does not know it."""
    text = _PREFIX.sub("", name.strip()[:200])
    for pattern, arch in _COMPILED:
        if pattern.search(text):
            return arch
    return ""
