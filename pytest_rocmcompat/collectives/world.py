"""The world a launch runs: ranks spawned here (single node), or the torchrun/Slurm one.

Single node: the ranks meet through a file store in a private temporary directory
(``init_method=file://...``), so no port is chosen and parallel sessions cannot race
for one. A session launched by torchrun or Slurm (``MASTER_ADDR`` plus ``WORLD_SIZE``
and ``RANK``, or ``SLURM_NTASKS`` and ``SLURM_PROCID``) spans nodes: each session spawns
its own rank, and the ranks meet over TCP at ``MASTER_ADDR:MASTER_PORT+1`` (the launcher's
own store keeps ``MASTER_PORT``), or at ``ROCMCOMPAT_COLLECTIVES_PORT`` when set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CPU_WORLDS = (2, 3)


@dataclass(frozen=True)
class World:
    backend: str  # gloo | nccl (RCCL on ROCm)
    size: int
    device: str  # cpu | cuda (ROCm answers through torch.cuda too)
    ranks: tuple[int, ...]  # the ranks this session spawns
    local_ranks: tuple[int, ...]  # their device indices
    master: tuple[str, int] | None = None  # None: file store in the launch's temporary directory
    full: bool = False  # the whole machine's (or launcher's) GPU world: its figures meet the floors

    @property
    def id(self) -> str:
        return f"{'env-' if self.master else ''}{self.backend}-{self.size}"

    def metric(self, name: str) -> str:
        """The name a bandwidth figure is recorded under: the plain metric (compared with the
        matrix's floors) for the full GPU world, tagged with the world id otherwise.
        """
        return name if self.full else f"{name}[{self.id}]"

    def init_method(self, tmp: Path) -> str:
        if self.master is None:
            return (tmp / "rendezvous").resolve().as_uri()
        host, port = self.master
        return f"tcp://{'[' + host + ']' if ':' in host else host}:{port}"


def local_worlds(gpus: int) -> list[World]:
    """Gloo on 2 and 3 CPU ranks; nccl on 2, 4, ... and every GPU when there are 2 or more."""
    worlds = [World("gloo", n, "cpu", tuple(range(n)), tuple(range(n))) for n in CPU_WORLDS]
    sizes = sorted({n for n in (2, 4, 8, 16) if n < gpus} | ({gpus} if gpus >= 2 else set()))
    worlds += [World("nccl", n, "cuda", tuple(range(n)), tuple(range(n)), full=n == gpus) for n in sizes]
    return worlds


class WorldError(ValueError):
    """The launcher's environment variables do not describe a world."""


def _int(environ: Mapping[str, str], *names: str) -> int | None:
    for name in names:
        if environ.get(name, "").strip():
            try:
                return int(environ[name])
            except ValueError:
                raise WorldError(
                    f"environment variable {name}={environ[name]!r} is not a whole number; "
                    "the collectives suite reads the torchrun/Slurm world from it"
                ) from None
    return None


def env_world(environ: Mapping[str, str], gpus: int) -> World | None:
    """The world of a torchrun / Slurm launched session, or ``None`` when there is none."""
    addr = environ.get("MASTER_ADDR", "").strip()
    size = _int(environ, "WORLD_SIZE", "SLURM_NTASKS")
    rank = _int(environ, "RANK", "SLURM_PROCID")
    if not addr or size is None or rank is None:
        return None
    local = _int(environ, "LOCAL_RANK", "SLURM_LOCALID")
    port = _int(environ, "ROCMCOMPAT_COLLECTIVES_PORT")
    if port is None:
        master_port = _int(environ, "MASTER_PORT")
        port = (master_port if master_port is not None else 29500) + 1
    if not 0 <= rank < size:
        raise WorldError(f"RANK={rank} is outside WORLD_SIZE={size}")
    if not 0 < port < 65536:
        raise WorldError(f"rendezvous port {port} is not a TCP port (MASTER_PORT / ROCMCOMPAT_COLLECTIVES_PORT)")
    local = rank if local is None else local
    gpu = gpus > 0
    return World("nccl" if gpu else "gloo", size, "cuda" if gpu else "cpu", (rank,), (local,), (addr, port), full=gpu)


def worlds(environ: Mapping[str, str] | None = None, gpus: int = 0) -> list[World]:
    """The worlds this session runs: the launcher's world if there is one, else the local ones."""
    environ = os.environ if environ is None else environ
    world = env_world(environ, gpus)
    return [world] if world is not None else local_worlds(gpus)
