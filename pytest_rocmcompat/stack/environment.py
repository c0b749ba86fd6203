"""The :class:`Environment` value object: one snapshot of a GPU software stack.

It is pure data with a JSON round-trip, so a machine's environment can be
recorded (``rocmcompat probe --json``) and replayed anywhere
(``pytest --rocm-env env.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from packaging.version import Version

from pytest_rocmcompat.stack.arch import arch_vendor, normalize_arch
from pytest_rocmcompat.stack.versions import build_tag_version, coerce_version

Platform = Literal["rocm", "cuda", "cpu"]
Source = Literal["live", "replay", "overridden"]
PLATFORMS: tuple[str, ...] = ("rocm", "cuda", "cpu")
SCHEMA_VERSION = 1
ENVIRONMENT_FILE_BYTES = 4 * 2**20  # a recorded environment is a few KB; 8 GPUs with notes stay far below


class EnvironmentFileError(ValueError):
    """A recorded environment file could not be read; the message names the file."""


@dataclass(frozen=True)
class GPU:
    """One device as the probe saw it."""

    index: int
    name: str
    arch: str
    memory_bytes: int | None = None
    vendor: str = "unknown"  # amd | nvidia | unknown

    def __post_init__(self) -> None:
        object.__setattr__(self, "arch", normalize_arch(self.arch) if self.arch else "")
        if self.vendor == "unknown" and self.arch:
            object.__setattr__(self, "vendor", arch_vendor(self.arch))


@dataclass(frozen=True)
class Environment:
    """Platform, devices, toolkit and library versions, and GPU-stack variables.

    ``torch`` keeps the full version string with its local tag
    (``"2.5.1+rocm6.2"``); ``env`` holds only allow-listed variables with secret
    values already redacted; ``notes`` records every probe source that failed.
    """

    platform: str = "cpu"
    gpus: tuple[GPU, ...] = ()
    rocm: str | None = None
    hip: str | None = None
    cuda: str | None = None
    driver: str | None = None
    torch: str | None = None
    python: str = ""
    os: str = ""
    libraries: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    source: str = "live"
    origin: str = ""  # where a replay came from, or what was overridden
    notes: tuple[str, ...] = ()
    # Derived facts (all optional: older recorded files have none of them).
    torch_archs: tuple[str, ...] | None = None  # torch.cuda.get_arch_list(); None: not probed
    nccl: str | None = None  # NCCL/RCCL version torch loaded (torch.cuda.nccl.version())
    driver_cuda: str | None = None  # highest CUDA the driver supports (NVML / nvidia-smi)
    requires: dict[str, tuple[str, ...]] = field(default_factory=dict)  # dist -> Requires-Dist
    torch_cxx11_abi: bool | None = None  # torch._C._GLIBCXX_USE_CXX11_ABI; None: not probed

    # ---- derived views -------------------------------------------------
    @property
    def archs(self) -> tuple[str, ...]:
        """Distinct GPU architectures, in device order."""
        seen: dict[str, None] = {}
        for gpu in self.gpus:
            if gpu.arch:
                seen.setdefault(gpu.arch)
        return tuple(seen)

    @property
    def system(self) -> str:
        """The operating system ``os`` names, its first word (``Linux``, ``Windows``, ``Darwin``); ``""`` if unknown."""
        return self.os.split(" ", 1)[0]

    @property
    def torch_version(self) -> Version | None:
        return coerce_version(self.torch)

    @property
    def torch_local(self) -> str | None:
        v = self.torch_version
        return v.local if v is not None else None

    @property
    def torch_rocm(self) -> Version | None:
        """ROCm release torch was built for: its ``+rocmX.Y`` tag, else its HIP version."""
        tagged = build_tag_version(self.torch_local, "rocm")
        if tagged is not None:
            return tagged
        hip = coerce_version(self.hip)
        return Version(f"{hip.major}.{hip.minor}") if hip is not None else None

    @property
    def torch_cuda(self) -> Version | None:
        """CUDA release torch was built for: its ``+cuXYZ`` tag, else ``cuda``."""
        tagged = build_tag_version(self.torch_local, "cuda")
        return tagged if tagged is not None else coerce_version(self.cuda)

    @property
    def rocm_version(self) -> Version | None:
        """System ROCm version, falling back to the one torch was built for."""
        return coerce_version(self.rocm) or self.torch_rocm

    @property
    def cuda_version(self) -> Version | None:
        return coerce_version(self.cuda) or self.torch_cuda

    def field_version(self, axis: str) -> Version | None:
        """The version an axis or condition compares against (``torch``, ``lib.peft``...)."""
        if axis.startswith("lib."):
            return coerce_version(self.libraries.get(normalize_library(axis[4:])))
        getters = {
            "rocm": lambda: self.rocm_version,
            "cuda": lambda: self.cuda_version,
            "hip": lambda: coerce_version(self.hip),
            "driver": lambda: coerce_version(self.driver),
            "torch": lambda: self.torch_version,
            "python": lambda: coerce_version(self.python),
            "torch_rocm": lambda: self.torch_rocm,
            "torch_cuda": lambda: self.torch_cuda,
            "nccl": lambda: coerce_version(self.nccl),
            "driver_cuda": lambda: coerce_version(self.driver_cuda),
        }
        if axis not in getters:
            raise KeyError(axis)
        return getters[axis]()

    def summary(self) -> str:
        """One line for the report header."""
        parts = [f"platform={self.platform}"]
        if self.archs:
            parts.append(f"arch={','.join(self.archs)} x{len(self.gpus)}")
        for key in ("rocm", "hip", "cuda", "driver", "torch"):
            value = getattr(self, key)
            if value:
                parts.append(f"{key}={value}")
        if self.python:  # a stack file states none unless --set python= says it
            parts.append(f"python={self.python}")
        if self.source != "live":
            parts.append(f"[{self.source}{': ' + self.origin if self.origin else ''}]")
        return " ".join(parts)

    # ---- serialisation -------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["gpus"] = [asdict(g) for g in self.gpus]
        data["notes"] = list(self.notes)
        data["torch_archs"] = list(self.torch_archs) if self.torch_archs is not None else None
        data["requires"] = {k: list(v) for k, v in self.requires.items()}
        data["schema"] = SCHEMA_VERSION
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Environment:
        """Build from :meth:`to_dict` output; raise ``ValueError`` naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("top level must be a JSON object")
        data = dict(data)
        data.pop("schema", None)
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}")
        if data.get("platform", "cpu") not in PLATFORMS:
            raise ValueError(f"platform: {data['platform']!r} is not one of {', '.join(PLATFORMS)}")
        gpus = []
        for i, g in enumerate(data.get("gpus") or []):
            if not isinstance(g, dict):
                raise ValueError(f"gpus[{i}]: expected an object")
            try:
                gpus.append(GPU(**g))
            except TypeError as exc:
                raise ValueError(f"gpus[{i}]: {exc}") from None
        data["gpus"] = tuple(gpus)
        data["notes"] = tuple(data.get("notes") or ())
        for key in ("libraries", "env"):
            value = data.get(key) or {}
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                raise ValueError(f"{key}: expected an object of strings")
            data[key] = dict(value)
        for key in ("rocm", "hip", "cuda", "driver", "torch", "nccl", "driver_cuda"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(f"{key}: expected a string or null")
        if data.get("torch_cxx11_abi") is not None and not isinstance(data["torch_cxx11_abi"], bool):
            raise ValueError("torch_cxx11_abi: expected true, false or null")
        archs = data.get("torch_archs")
        if archs is not None:
            if not isinstance(archs, list) or not all(isinstance(a, str) for a in archs):
                raise ValueError("torch_archs: expected a list of strings or null")
            data["torch_archs"] = tuple(archs)
        requires = data.get("requires") or {}
        if not isinstance(requires, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(r, str) for r in v)
            for k, v in requires.items()
        ):
            raise ValueError("requires: expected an object of string lists")
        data["requires"] = {k: tuple(v) for k, v in requires.items()}
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> Environment:
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str) -> Environment:
        """Read a recorded environment, labelled ``source="replay"``."""
        from pytest_rocmcompat.safe_io.input_files import InputError, read_text_file

        what = "a recorded environment (rocmcompat probe --json)"
        try:  # a regular file of bounded size: never a FIFO or /dev/zero
            text = read_text_file(path, limit=ENVIRONMENT_FILE_BYTES, what=what)
        except InputError as exc:
            where = f"{path}:{exc.line}" if exc.line else str(path)
            raise EnvironmentFileError(f"{where}: {exc}") from None
        except OSError as exc:
            raise EnvironmentFileError(f"{path}: cannot read the recorded environment: {exc.strerror or exc}") from None
        try:
            env = cls.from_json(text)
        except json.JSONDecodeError as exc:
            raise EnvironmentFileError(
                f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); write it with `rocmcompat probe --json > FILE`"
            ) from None
        except (ValueError, TypeError) as exc:
            raise EnvironmentFileError(f"{path}: not a recorded environment: {exc}") from None
        return replace(env, source="replay", origin=str(path))


def normalize_library(name: str) -> str:
    """PEP 503 normalised distribution name: ``Flash_Attn`` -> ``flash-attn``."""
    return re.sub(r"[-_.]+", "-", name).lower()
