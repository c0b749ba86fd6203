#!/usr/bin/env bash
# Release check on a lent GPU machine (no network): the probe with the torch build's targets
# and the built-in checks, the wheel installed in a fresh venv outside the checkout running
# `rocmcompat run --matrix MATRIX`, and the repeat-run probe cost. Everything lands in OUTDIR.
#   bash bench/gpu_release_check.sh "$OUT" h100
# Expects the project wheel in .dist/ and junitparser's wheel in .whl/ (carried).
set -uo pipefail
out=$1; matrix=${2:-h100}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"; log="$out/log.txt"
{
  python -c "import sys, torch, pytest, regex; print(sys.version.split()[0], 'torch', torch.__version__, 'pytest', pytest.__version__)"
  nvidia-smi -L
  python -m pip install -q --no-deps --no-build-isolation .whl/*.whl
  python -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
} >"$log" 2>&1
python -m pytest_rocmcompat probe >"$out/probe.txt" 2>&1; echo "probe exit $?" >>"$log"
python -m pytest_rocmcompat probe --json >"$out/probe.json" 2>>"$log"
# The wheel in a fresh venv outside the checkout .
venv=/tmp/rocmcompat-venv; rm -rf "$venv" /tmp/rocmcompat-run
python -m venv "$venv" >>"$log" 2>&1
# torch & co. live in the image's own venv: the fresh venv sees them through a .pth file
python -c "import site; print(site.getsitepackages()[0])" \
  >"$("$venv/bin/python" -c "import site; print(site.getsitepackages()[0])")/_image_site.pth"
"$venv/bin/python" -m pip install -q --no-deps --no-index .whl/*.whl .dist/*.whl >>"$log" 2>&1
mkdir -p /tmp/rocmcompat-run
start=$SECONDS
(cd /tmp/rocmcompat-run && "$venv/bin/rocmcompat" run --matrix "$matrix" -rsfE) \
  >"$out/run.txt" 2>&1
echo "rocmcompat run exit $? wall $((SECONDS - start)) s" >>"$log"
res=/tmp/rocmcompat-run/rocmcompat-results
ls -la "$res" >>"$log" 2>&1
cp "$res/junit.xml" "$out/junit.xml" 2>>"$log"; cp "$res/COMPAT.md" "$out/COMPAT.md" 2>>"$log"
timeout 200 python bench/probe_time.py --repeat-only --reps 5 --out "$out/probe_time.json" \
  >>"$log" 2>&1; echo "probe_time exit $?" >>"$log"
tail -c 4000 "$log"; tail -c 3000 "$out/probe.txt"; tail -c 2500 "$out/run.txt"
