"""Record what torchvision releases built for another torch print on this host's torch (a real GPU run).

For each torchvision wheel in ``WHEELS`` (a folder), that wheel alone is installed into a folder of its own
(``pip install --no-deps --target``), and a fresh interpreter with that folder first on its path (this
host's torch otherwise) imports it and
calls the operators users meet first: ``torchvision.ops.nms`` and ``roi_align`` on GPU tensors, a
transform, and the image extension (``decode_jpeg``). Each call's outcome, the warnings and the
interpreter's output are written to ``OUT/<wheel version>.json``, with the host's torch and GPU.

    python bench/real_texts/torchvision_other_torch.py WHEELS OUT

The recorded files are replayed in ``tests/knowledge/test_torchvision_recorded.py`` through
``requirement-not-met``'s signature for the pair.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import json, traceback, warnings
warnings.simplefilter("always")
calls = {}
caught = []
def call(name, fn):
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fn()
        caught.extend(f"{w.category.__name__}: {w.message}" for w in seen)
        calls[name] = None
    except BaseException as error:
        calls[name] = traceback.format_exception_only(type(error), error)[-1].strip()
import torch
info = {"torch": torch.__version__, "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
def imp():
    global torchvision
    import torchvision
call("import", imp)
def nms():
    import torch, torchvision
    boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0]], device="cuda")
    torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8], device="cuda"), 0.5)
call("nms_cuda", nms)
def roi():
    import torch, torchvision
    x = torch.rand(1, 1, 8, 8, device="cuda")
    torchvision.ops.roi_align(x, [torch.tensor([[0.0, 0.0, 4.0, 4.0]], device="cuda")], output_size=2)
call("roi_align_cuda", roi)
def transform():
    import torch, torchvision.transforms.v2 as T
    T.Resize((4, 4))(torch.rand(3, 8, 8))
call("transform", transform)
def jpeg():
    import torch, torchvision.io as io
    io.decode_jpeg(torch.zeros(10, dtype=torch.uint8))
call("decode_jpeg", jpeg)
print("RESULT " + json.dumps({"info": info, "calls": calls, "warnings": caught}))
"""


def main(wheels: Path, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for wheel in sorted(wheels.glob("torchvision-*.whl")):
        version = wheel.name.split("-")[1]
        target = out / f"site-{version}"
        install = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--no-index",
                "--target",
                str(target),
                str(wheel),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        # the wheel's folder first: it shadows a torchvision the host has, torch stays the host's
        env = {**os.environ, "PYTHONPATH": str(target)}
        run = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=False, timeout=300, env=env
        )
        result = next((json.loads(line[7:]) for line in run.stdout.splitlines() if line.startswith("RESULT ")), None)
        record = {
            "torchvision": version,
            "install": install.returncode,
            "returncode": run.returncode,
            "result": result,
            "stderr": run.stderr[-6000:],
        }
        (out / f"{version}.json").write_text(json.dumps(record, indent=1) + "\n")
        print(version, json.dumps(result)[:600] if result else run.stderr[-600:], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
