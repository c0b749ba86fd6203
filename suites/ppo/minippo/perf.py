"""Phase timings (rollout / inference / training), throughput and model-FLOPs utilisation."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

PHASES = ("rollout", "inference", "training")


@dataclass
class PhaseClock:
    """Wall seconds and token counts per phase; GPU work is synchronised at each boundary."""

    device: torch.device
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    tokens: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES, 0))

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    @contextmanager
    def phase(self, name: str, tokens: int):
        self._sync()
        start = time.perf_counter()
        try:
            yield
        finally:
            self._sync()
            self.seconds[name] += time.perf_counter() - start
            self.tokens[name] += tokens

    def tokens_per_s(self, name: str) -> float:
        return self.tokens[name] / self.seconds[name] if self.seconds[name] > 0 else 0.0


def train_mfu(parameters: int, tokens_per_s: float, peak_tflops: float | None) -> float | None:
    """Model-FLOPs utilisation, ``6 x parameters x tokens/s / peak`` as a fraction (None
    without a peak)."""
    if not peak_tflops:
        return None
    return 6.0 * parameters * tokens_per_s / (peak_tflops * 1e12)


def breakdown(clock: PhaseClock, mfu: float | None = None) -> str:
    """The per-phase table printed after a run (verl performance-study style)."""
    from tabulate import tabulate

    total = sum(clock.seconds.values()) or 1.0
    rows = [
        [
            name,
            f"{clock.seconds[name]:.3f}",
            f"{100 * clock.seconds[name] / total:.1f}%",
            clock.tokens[name],
            f"{clock.tokens_per_s(name):,.0f}",
            (f"{100 * mfu:.2f}%" if mfu is not None else "n/a") if name == "training" else "",
        ]
        for name in PHASES
    ]
    return tabulate(rows, headers=["phase", "seconds", "share", "tokens", "tokens/s", "MFU"], disable_numparse=True)
