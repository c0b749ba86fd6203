"""Cost of one isolated test (spawn + child pytest start-up) against running it in-process.

Runs real pytest sessions of N trivial tests, interleaved: in-process, isolated, and isolated
with ``import torch`` in the test; plus ``python -c "import torch"`` on its own. The per-test
overhead is (isolated session - in-process session) / N. Target (issue 3): an isolated test
that imports torch costs less than twice ``python -c "import torch"``.

    python bench/isolation_overhead.py [--tests 5] [--reps 5] [--out .bench/isolation_overhead.json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import default_out, interleave, summary, table, timed_run, write_json

from pytest_rocmcompat.probe.environment import Environment


def write_suite(root: Path, n: int) -> None:
    plain = "\n".join(f"def test_{i}():\n    pass\n" for i in range(n))
    isolated = "import pytest\n" + "\n".join(
        f"@pytest.mark.isolated(timeout=300)\ndef test_{i}():\n    pass\n" for i in range(n))
    with_torch = "import pytest\n" + "\n".join(
        f"@pytest.mark.isolated(timeout=300)\ndef test_{i}():\n    import torch\n    torch.ones(1)\n"
        for i in range(n))
    (root / "test_plain.py").write_text(plain)
    (root / "test_isolated.py").write_text(isolated)
    (root / "test_isolated_torch.py").write_text(with_torch)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "env.json").write_text(Environment(python="3").to_json())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", default=default_out("isolation_overhead"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, args.tests)
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rocm-env", "env.json"]

        def session(name: str):
            return lambda: timed_run([*base, name], cwd=root)[0]

        times = interleave({
            "in-process": session("test_plain.py"),
            "isolated": session("test_isolated.py"),
            "isolated+torch": session("test_isolated_torch.py"),
            "import torch": lambda: timed_run([sys.executable, "-c", "import torch"])[0],
        }, args.reps)
    med = {k: summary(v)["median"] for k, v in times.items()}
    n = args.tests
    per_test = (med["isolated"] - med["in-process"]) / n
    per_test_torch = (med["isolated+torch"] - med["in-process"]) / n
    ratio = per_test_torch / med["import torch"]
    print(table([(k, v) for k, v in med.items()], ("median wall time (s)", "value")))
    print(table([
        ("isolated test, plain", per_test),
        ("isolated test, import torch", per_test_torch),
        ("python -c 'import torch'", med["import torch"]),
        ("ratio (target < 2.0)", ratio),
    ], ("per-test cost (s)", "value")))
    write_json(args.out, {"tests": n, "reps": args.reps, "samples": times, "medians": med,
                          "per_test_s": per_test, "per_test_torch_s": per_test_torch,
                          "ratio_vs_import_torch": ratio, "target_met": ratio < 2.0})
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
