"""Regenerate ``pytest_rocmcompat/knowledge/data/declared.json`` from PyPI's metadata.

For every release since ``--since`` (default 2020-01-01) of the GPU-stack packages in
:data:`PACKAGES` (torch and its domain libraries, vLLM and SGLang, the Hugging Face libraries,
what fine-tuning, RL and inference stacks put on them, and the compiled scientific layer under them:
NumPy, SciPy, pandas, scikit-learn, numba, llvmlite, pyarrow, OpenCV, sentencepiece), it records what the release *declared*:
its ``Requires-Dist`` lines on the packages in :data:`KEPT` (torch, NumPy, Triton, the
``nvidia-*`` wheels, every package of :data:`PACKAGES` and SGLang's kernels), with their
environment markers but without those gated on an extra (no reader applies them), and
what its wheel file names say (Python tags, platform tags, local version labels); for the packages
in :data:`NATIVE`, the native libraries its wheel carries (``native``). Nothing is downloaded but
metadata:

- the project index ``https://pypi.org/pypi/{name}/json`` lists releases, files and upload dates;
- a wheel's METADATA comes from its PEP 658 file ``{wheel url}.metadata``; the wheel read is the
  Linux x86_64 one where there is one (the build ``pip install`` picks on most GPU hosts);
- a release with no wheel (flash-attn, most DeepSpeed releases) is read from its sdist's
  ``PKG-INFO``, in the first 64 KiB of the archive (an HTTP range request); sdists with metadata
  older than 2.2 publish no requirements, and the data says so (``requires: null``).

Run from the repository root (about 5,900 releases of 77 packages, about 12 minutes, four requests
at a time; 2.7 MB written)::

    python tools/regenerate_declared.py            # writes the committed data file
    python tools/regenerate_declared.py --record DIR --packages vllm   # also saves the responses
    python tools/regenerate_declared.py --offline DIR --out x.json     # from saved responses only

The tests run it ``--offline`` on a small recorded fixture (``tests/tools/fixtures``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import email.parser
import io
import json
import re
import struct
import sys
import tarfile
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge.declared_data import integration_extra

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "declared.json"
INDEX = "https://pypi.org/pypi/{name}/json"
PACKAGES = (
    "torch",
    "vllm",
    "xformers",
    "torchvision",
    "torchaudio",
    "torchao",
    "bitsandbytes",
    "deepspeed",
    "flash-attn",
    "peft",
    "transformers",
    "accelerate",
    "trl",
    "ray",
    # the layer fine-tuning, RL and inference stacks put on torch and Hugging Face
    "huggingface-hub",
    "tokenizers",
    "safetensors",
    "datasets",
    "evaluate",
    "sentence-transformers",
    "diffusers",
    "optimum",
    "optimum-quanto",
    "auto-gptq",
    "autoawq",
    "gptqmodel",
    "compressed-tensors",
    "llmcompressor",
    "unsloth",
    "unsloth-zoo",
    "liger-kernel",
    "torchtune",
    "timm",
    "open-clip-torch",
    "lightning",
    "pytorch-lightning",
    "torchmetrics",
    "torchtext",
    "torchdata",
    "mamba-ssm",
    "causal-conv1d",
    "triton",
    "flashinfer-python",
    "xgrammar",
    "sglang",
    "verl",
    "openrlhf",
    "onnxruntime",
    "onnxruntime-gpu",
    # session 29: NVIDIA's training layer (Transformer Engine's three packages pin each other; Megatron-Core, ModelOpt),
    # TorchRL and its tensordict, torchcodec (torchaudio's decoder from 2.9), SGLang's kernels, the fine-tuning
    # front ends that pin their Hugging Face layer (LLaMA-Factory, axolotl, ms-swift), lm-eval, LMDeploy, vLLM's
    # structured-output and tokenizer packages (outlines, outlines-core, mistral-common) and HQQ
    "transformer-engine",
    "transformer-engine-torch",
    "transformer-engine-cu12",
    "megatron-core",
    "nvidia-modelopt",
    "tensordict",
    "torchrl",
    "torchcodec",
    "sgl-kernel",
    "llamafactory",
    "axolotl",
    "ms-swift",
    "lm-eval",
    "lmdeploy",
    "outlines",
    "outlines-core",
    "mistral-common",
    "hqq",
    # the compiled scientific layer under them: what they declare on NumPy (numba's and SciPy's upper
    # bounds) and which Pythons their wheels serve (NumPy 1.24 has no Python 3.12 wheel)
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "numba",
    "llvmlite",
    "pyarrow",
    "opencv-python",
    "opencv-python-headless",
    "sentencepiece",
)
# requirements kept: the ones a GPU stack breaks on (everything else a release needs is left out):
# torch, NumPy, Triton and the nvidia-* wheels; every package of :data:`PACKAGES` (peft ->
# transformers/accelerate, trl -> transformers, vLLM -> xformers/ray, sentence-transformers ->
# transformers, transformers -> tokenizers/huggingface-hub/safetensors, SGLang -> flashinfer-python/
# xgrammar); and sgl-kernel, which SGLang pins exactly
KEPT = frozenset(
    set(PACKAGES)
    | {"numpy", "pytorch-triton", "pytorch-triton-rocm"}
    # sglang's exact pin on its kernels (built for one torch), not itself a package of PACKAGES
    | {"sgl-kernel"}
)
# packages whose native libraries are listed (``native``: the ``*.so`` files inside the package folder of
# the Linux x86_64 or pure-Python wheel, read from its zip directory): bitsandbytes loads one per CUDA version
NATIVE = frozenset({"bitsandbytes"})
_EXTRA = re.compile(r"\bextra\b")  # a marker naming the extra variable
SDIST_HEAD = 65535  # bytes of an sdist read for its PKG-INFO
ZIP_TAIL = 65536  # bytes at the end of a wheel read for its zip directory, when PEP 658 metadata is missing
WORKERS = 4
TIMEOUT_S = 30
USER_AGENT = "pytest-rocmcompat tools/regenerate_declared.py (metadata only)"

# fetch(url, (first byte, last byte) or None) -> body, or None when the file is not there (404)
Span = tuple[int, int]
Fetch = Callable[[str, "Span | None"], "bytes | None"]


class RegenerateError(Exception):
    """A response the script cannot read; the message names the URL and what was wrong."""


def http_fetch(url: str, span: Span | None) -> bytes | None:
    """GET ``url`` (bytes ``span[0]..span[1]`` if given): one retry, a timeout, ``None`` on 404.

    A server that ignores the range is read no further than the span (from byte 0), or not at all.
    """
    headers = {"User-Agent": USER_AGENT}
    if span is not None:
        headers["Range"] = f"bytes={span[0]}-{span[1]}"
    for attempt in (1, 2):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT_S) as r:
                if span is None:
                    body: bytes = r.read()
                elif r.status == 206:
                    body = r.read(span[1] - span[0] + 1)
                elif span[0] == 0:
                    body = r.read(span[1] + 1)
                else:
                    raise RegenerateError(f"{url}: the server ignores byte ranges")
                return body
        except urllib.error.HTTPError as exc:
            if exc.code in (404, 410):
                return None
            if attempt == 2 or exc.code < 500:
                raise RegenerateError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            if attempt == 2:
                raise RegenerateError(f"{url}: {exc}") from None
        time.sleep(2.0)
    return None  # pragma: no cover - the loop returns or raises


def saved_path(folder: Path, url: str, span: Span | None) -> Path:
    """Where a response to ``url`` is saved under ``folder``: ``host/path`` (``.bytes-A-B`` for a range)."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/") + (f".bytes-{span[0]}-{span[1]}" if span is not None else "")
    if parts.path.endswith("/"):
        name += "index"
    return folder / parts.netloc / name


def offline_fetch(folder: Path) -> Fetch:
    """Answers from responses saved by ``--record``; a response not saved reads as a 404."""

    def fetch(url: str, span: Span | None) -> bytes | None:
        path = saved_path(folder, url, span)
        return path.read_bytes() if path.is_file() else None

    return fetch


def recording(fetch: Fetch, folder: Path) -> Fetch:
    def fetch_and_save(url: str, span: Span | None) -> bytes | None:
        body = fetch(url, span)
        if body is not None:
            path = saved_path(folder, url, span)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        return body

    return fetch_and_save


# ---- parsing (pure) ----------------------------------------------------------------------
def kept_requirements(lines: Iterable[str]) -> list[str]:
    """The ``Requires-Dist`` lines on the packages in :data:`KEPT`, normalised by :mod:`packaging`;
    those gated on an extra (``; extra == "dev"``) left out, except an *integration* extra: one named after the
    very package it requires (``vllm>=0.10.2; extra == "vllm"``, what ``pip install trl[vllm]`` pins).
    """
    kept = []
    for line in lines:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        name = canonicalize_name(req.name)
        if req.marker is not None and _EXTRA.search(str(req.marker)) and not integration_extra(req):
            continue  # another extra's: no reader applies them (unsloth's hundreds would make the file 9 MB)
        if name in KEPT or name.startswith("nvidia-"):
            kept.append(str(req))
    return kept


def metadata_requirements(text: str) -> tuple[list[str], str]:
    """(kept requirements, metadata version) of a METADATA / PKG-INFO text."""
    message = email.parser.HeaderParser().parsestr(text)
    return kept_requirements(message.get_all("Requires-Dist") or []), str(message.get("Metadata-Version", ""))


def sdist_pkg_info(head: bytes) -> str | None:
    """The top-level ``PKG-INFO`` of a ``.tar.gz`` sdist from the first bytes of the archive, if there."""
    try:
        with tarfile.open(fileobj=io.BytesIO(head), mode="r|gz") as archive:
            for member in archive:
                if member.name.count("/") == 1 and member.name.endswith("/PKG-INFO") and member.isfile():
                    handle = archive.extractfile(member)
                    return handle.read().decode("utf-8", "replace") if handle else None
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError):
        return None
    return None


def wheel_metadata(fetch: Fetch, url: str, size: int) -> str | None:
    """A wheel's ``*.dist-info/METADATA`` read by byte ranges, as pip's lazy wheel does.

    The zip's central directory from its end, then that one member; ``None`` when not found.
    """
    directory = zip_directory(fetch, url, size)
    member = _metadata_member(directory) if directory is not None else None
    if member is None:
        return None
    method, compressed, offset = member
    local = fetch(url, (offset, offset + 30 + 1024 + compressed))
    return member_text(local, 0, method, compressed) if local is not None else None


def member_text(body: bytes, at: int, method: int, compressed: int) -> str | None:
    """The text of the zip member whose local header starts at ``at`` in ``body`` (stored or deflated);
    ``None`` when no local header is there or it does not inflate.
    """
    if body[at : at + 4] != b"PK\x03\x04":
        return None
    name_len, extra_len = struct.unpack("<HH", body[at + 26 : at + 30])
    data = body[at + 30 + name_len + extra_len : at + 30 + name_len + extra_len + compressed]
    try:
        raw = zlib.decompressobj(-15).decompress(data) if method == 8 else data
    except zlib.error:
        return None
    return raw.decode("utf-8", "replace") if method in (0, 8) else None


def zip_directory(fetch: Fetch, url: str, size: int) -> bytes | None:
    """A zip's central directory, read from the end of the file by byte ranges (ZIP64 aware: where the
    end record's fields are full, the ZIP64 end record its locator points at gives the directory's size
    and offset); ``None`` when not found.
    """
    tail_start = max(0, size - ZIP_TAIL)
    tail = fetch(url, (tail_start, size - 1))
    if tail is None:
        return None
    end = tail.rfind(b"PK\x05\x06")
    if end < 0 or len(tail) < end + 22:
        return None
    cd_size, cd_offset = struct.unpack("<II", tail[end + 12 : end + 20])
    locator = end - 20
    if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        at = struct.unpack("<Q", tail[locator + 8 : locator + 16])[0]
        record = tail[at - tail_start : at - tail_start + 56] if at >= tail_start else fetch(url, (at, at + 55))
        if record is None or record[:4] != b"PK\x06\x06" or len(record) < 56:
            return None
        cd_size, cd_offset = struct.unpack("<QQ", record[40:56])
    if cd_offset >= tail_start:
        return tail[cd_offset - tail_start : cd_offset - tail_start + cd_size]
    return fetch(url, (cd_offset, cd_offset + cd_size - 1)) or b""


def zip_members(directory: bytes) -> Iterator[tuple[str, int, int, int]]:
    """(name, compression method, compressed size, local header offset) of each central directory entry;
    a full size or offset field is read from the entry's ZIP64 extra field.
    """
    at = 0
    while directory[at : at + 4] == b"PK\x01\x02" and at + 46 <= len(directory):
        method = struct.unpack("<H", directory[at + 10 : at + 12])[0]
        compressed, uncompressed = struct.unpack("<II", directory[at + 20 : at + 28])
        name_len, extra_len, comment_len = struct.unpack("<HHH", directory[at + 28 : at + 34])
        offset = struct.unpack("<I", directory[at + 42 : at + 46])[0]
        extra = directory[at + 46 + name_len : at + 46 + name_len + extra_len]
        full = 0xFFFFFFFF
        if full in (compressed, uncompressed, offset):
            i = 0
            while i + 4 <= len(extra):
                tag, length = struct.unpack("<HH", extra[i : i + 4])
                if tag == 1:
                    values = [struct.unpack("<Q", extra[j : j + 8])[0] for j in range(i + 4, i + 4 + length - 7, 8)]
                    if uncompressed == full and values:
                        values.pop(0)
                    if compressed == full and values:
                        compressed = values.pop(0)
                    if offset == full and values:
                        offset = values.pop(0)
                    break
                i += 4 + length
        yield directory[at + 46 : at + 46 + name_len].decode("utf-8", "replace"), method, compressed, offset
        at += 46 + name_len + extra_len + comment_len


def _metadata_member(directory: bytes) -> tuple[int, int, int] | None:
    """(compression method, compressed size, local header offset) of ``NAME.dist-info/METADATA``."""
    for name, method, compressed, offset in zip_members(directory):
        if name.count("/") == 1 and name.endswith(".dist-info/METADATA"):
            return method, compressed, offset
    return None


def native_libraries(directory: bytes, package: str) -> list[str]:
    """The ``*.so`` files under the wheel's top-level ``package`` folder, as paths inside it (sorted)."""
    prefix = package.replace("-", "_") + "/"
    return sorted(
        name[len(prefix) :] for name, *_ in zip_members(directory) if name.startswith(prefix) and name.endswith(".so")
    )


def wheel_facts(filenames: Iterable[str]) -> dict[str, list[str] | bool]:
    """Python tags, platform tags and local version labels named by a release's wheel files, and
    ``sdist: true`` when it also published a source archive (pip's fallback where no wheel fits).
    """
    pythons: set[str] = set()
    platforms: set[str] = set()
    local: set[str] = set()
    sdist = False
    for filename in filenames:
        sdist = sdist or filename.endswith((".tar.gz", ".zip"))
        try:
            _name, version, _build, tags = parse_wheel_filename(filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        for tag in tags:
            pythons.add(tag.interpreter if tag.abi in ("none", tag.interpreter) else f"{tag.interpreter}-{tag.abi}")
            platforms.add(tag.platform)
        if version.local:
            local.add(version.local)
    facts: dict[str, list[str] | bool] = {"python": sorted(pythons, key=_tag_order), "platforms": sorted(platforms)}
    if local:
        facts["local"] = sorted(local)
    if sdist:
        facts["sdist"] = True
    return facts


def _tag_order(tag: str) -> tuple[str, int, str]:
    head = tag.split("-", 1)[0]
    digits = "".join(c for c in head if c.isdigit())
    return (head.rstrip("0123456789"), int(digits[1:] or 0) if len(digits) > 1 else int(digits or 0), tag)


def metadata_file(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The wheel whose METADATA speaks for the release: Linux x86_64, else pure Python, else any; else the sdist."""
    wheels = [f for f in files if str(f.get("filename", "")).endswith(".whl")]

    def rank(f: dict[str, Any]) -> tuple[int, str]:
        name = str(f["filename"])
        if "linux" in name and "x86_64" in name:
            return (0, name)
        return (1, name) if name.endswith("-none-any.whl") else (2, name)

    if wheels:
        return sorted(wheels, key=rank)[0]
    sdists = [f for f in files if str(f.get("filename", "")).endswith(".tar.gz")]
    return sdists[0] if sdists else None


def releases_since(index: dict[str, Any], since: str) -> dict[str, dict[str, Any]]:
    """``{version: {"date", "files", "yanked"}}`` of the releases first uploaded on or after ``since``."""
    found: dict[str, dict[str, Any]] = {}
    for version, files in (index.get("releases") or {}).items():
        if not files:
            continue
        try:
            Version(version)
        except InvalidVersion:
            continue
        uploaded = min(str(f.get("upload_time_iso_8601") or f.get("upload_time") or "") for f in files)[:10]
        if uploaded >= since:
            yanked = all(f.get("yanked") for f in files)
            found[version] = {"date": uploaded, "files": files, "yanked": yanked}
    return dict(sorted(found.items(), key=lambda kv: Version(kv[0])))


# ---- one package -------------------------------------------------------------------------
def read_release(
    fetch: Fetch, index_url: str, version: str, release: dict[str, Any], native: str | None = None
) -> dict[str, Any]:
    """The data file's entry for one release (see the module docstring); with ``native`` (the package
    name, one of :data:`NATIVE`) also the native libraries of its wheel.
    """
    files = release["files"]
    entry: dict[str, Any] = {"date": release["date"]}
    if release["yanked"]:
        entry["yanked"] = True
    chosen = metadata_file(files)
    requires: list[str] | None = None
    if chosen is None:
        entry["from"] = "no wheel or .tar.gz sdist"
    else:
        url = urljoin(index_url, str(chosen["url"]))
        filename = str(chosen["filename"])
        if filename.endswith(".whl"):
            body = fetch(url + ".metadata", None)
            text = body.decode("utf-8", "replace") if body is not None else None
            entry["from"] = f"{filename}.metadata"
            if text is None and int(chosen.get("size") or 0) > 0:
                text = wheel_metadata(fetch, url, int(chosen["size"]))
                entry["from"] = f"{filename} METADATA (zip directory by byte ranges)"
            if text is not None:
                requires = metadata_requirements(text)[0]
            else:
                entry["from"] = f"{filename}: metadata not readable"
        else:
            head = fetch(url, (0, SDIST_HEAD))
            text = sdist_pkg_info(head) if head is not None else None
            if text is None:
                entry["from"] = f"{filename}: PKG-INFO not in its first {SDIST_HEAD + 1} bytes"
            else:
                found, meta_version = metadata_requirements(text)
                # an integration extra alone does not show the base requirements were published
                if any(not _EXTRA.search(r.partition(";")[2]) for r in found) or _at_least(meta_version, "2.2"):
                    requires = found
                    entry["from"] = f"{filename} PKG-INFO"
                else:
                    entry["from"] = f"{filename} PKG-INFO (metadata {meta_version}: requirements not published)"
    entry["requires"] = requires
    if native is not None and chosen is not None:
        libraries = wheel_native(fetch, urljoin(index_url, str(chosen["url"])), chosen, native)
        if libraries is not None:
            entry["native"] = libraries
    entry.update(wheel_facts(str(f.get("filename", "")) for f in files))
    return entry


def wheel_native(fetch: Fetch, url: str, chosen: dict[str, Any], package: str) -> list[str] | None:
    """:func:`native_libraries` of the chosen file when it is a Linux x86_64 or pure-Python wheel; else ``None``."""
    filename, size = str(chosen["filename"]), int(chosen.get("size") or 0)
    linux = "linux" in filename and "x86_64" in filename
    if not filename.endswith(".whl") or size <= 0 or not (linux or filename.endswith("-none-any.whl")):
        return None
    directory = zip_directory(fetch, url, size)
    return native_libraries(directory, package) if directory else None


def _at_least(text: str, floor: str) -> bool:
    try:
        return Version(text) >= Version(floor)
    except InvalidVersion:
        return False


def project_index(fetch: Fetch, name: str) -> tuple[str, dict[str, Any]]:
    """``(url, page)``: PyPI's JSON project page of ``name``; :class:`RegenerateError` when it is missing or not one."""
    index_url = INDEX.format(name=name)
    body = fetch(index_url, None)
    if body is None:
        raise RegenerateError(f"{index_url}: no such project (404)")
    try:
        index = json.loads(body)
    except ValueError as exc:
        raise RegenerateError(f"{index_url}: not JSON ({exc})") from None
    if not isinstance(index, dict) or not isinstance(index.get("releases"), dict):
        raise RegenerateError(f"{index_url}: no 'releases' object (not a PyPI JSON project page)")
    return index_url, index


def read_package(fetch: Fetch, name: str, since: str, pool: ThreadPoolExecutor) -> dict[str, Any]:
    index_url, index = project_index(fetch, name)
    releases = releases_since(index, since)
    native = name if name in NATIVE else None
    entries = pool.map(lambda kv: read_release(fetch, index_url, kv[0], kv[1], native), releases.items())
    return dict(zip(releases, entries, strict=True))


def regenerate(fetch: Fetch, packages: Iterable[str], since: str, today: str) -> dict[str, Any]:
    """The whole data file as a JSON-ready dict."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        data = {name: read_package(fetch, name, since, pool) for name in packages}
    return {
        "generated": today,
        "since": since,
        "generator": "tools/regenerate_declared.py",
        "index": INDEX,
        "metadata": "PEP 658: {wheel url}.metadata of the release's Linux x86_64 wheel (else a pure-Python one); "
        "releases without wheels: PKG-INFO in the first 64 KiB of the sdist",
        "kept": [*sorted(KEPT), "nvidia-*"],
        "extras": "requirements gated on an extra (; extra == ...) are left out, except a versioned one gated on "
        'an extra named after the package it requires (an integration extra: vllm>=0.10.2; extra == "vllm")',
        "native": f"packages {', '.join(sorted(NATIVE))}: the *.so files in the package folder of the same wheel "
        "(its zip directory, read by byte ranges)",
        "packages": data,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=OUT, help="data file to write (default: the committed one)")
    parser.add_argument("--packages", default=",".join(PACKAGES), help="comma-separated PyPI names")
    parser.add_argument("--since", default="2020-01-01", help="first upload date kept (YYYY-MM-DD)")
    parser.add_argument("--date", default=None, help="generation date written to the file (default: today, UTC)")
    parser.add_argument("--offline", type=Path, default=None, help="answer from responses saved by --record")
    parser.add_argument("--record", type=Path, default=None, help="save every response under this folder")
    args = parser.parse_args(argv)
    fetch: Fetch = offline_fetch(args.offline) if args.offline else http_fetch
    if args.record:
        fetch = recording(fetch, args.record)
    today = args.date or dt.datetime.now(dt.timezone.utc).date().isoformat()
    names = [canonicalize_name(n) for n in args.packages.split(",") if n.strip()]
    try:
        data = regenerate(fetch, names, args.since, today)
    except RegenerateError as exc:
        print(f"regenerate_declared: {exc}; nothing was written", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    count = sum(len(v) for v in data["packages"].values())
    print(f"regenerate_declared: {count} releases of {len(names)} packages since {args.since} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
