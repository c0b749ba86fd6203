"""Generated hostile stack files through ``rocmcompat check``'s reader and the checks, every format.

Seeds: the test fixtures of each format (pip freeze, requirements, uv.lock, conda export, conda list)
two recorded probes (``rocmcompat probe --json``) and the real collect_env reports of tests/data/collect_env. Each input is one seed mutated: long runs
of blanks, tabs or one character inserted into a line, a line repeated, hostile pieces (control
characters, lone surrogates, terminal escapes, planted secrets), truncation, line endings changed.
Each is read as the command reads it (``stack_file_environment``: detection, parsing, ``--set``) and
judged by the checks and rules and printed (``rocmcompat check --json`` and the text, in-process), under a per-input
time limit. Counts: tracebacks (any exception but the reader's one-paragraph errors, exit 2), inputs past the limit (a
hang: a pattern that backtracks), what tests/hostile's ``violations`` finds in what is printed (a planted secret, a raw
control character, a lone surrogate).

    python bench/fuzz_stack_files.py [--inputs 600] [--seed 30] [--limit 10] [--out .bench/fuzz_stack_files.json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from _common import REPO, Timeout, alarm, default_out, machine, write_json

sys.path.insert(0, str(REPO))
from tests.hostile import PIECES, SECRET_ENV, SECRET_ENV_NAME, SECRETS, violations

RUNS = (" " * 20_000, "\t" * 20_000, "=" * 20_000, "a" * 20_000, " x" * 10_000, "(" * 5_000, "0." * 10_000)


def seeds() -> list[tuple[str, str]]:
    """(file name, text) of every format."""
    from tests.stack.test_stack_files import CONDA_EXPORT, CONSTRAINTS, PIP_FREEZE, REQUIREMENTS, UV_LOCK

    found = [
        ("freeze.txt", PIP_FREEZE),
        ("requirements.txt", REQUIREMENTS),
        ("constraints.txt", CONSTRAINTS),
        ("uv.lock", UV_LOCK),
        ("environment.yml", CONDA_EXPORT),
        ("conda-list.txt", "# packages in environment at /opt/conda:\ntorch 2.3.1 py3.10_cuda12.1 pytorch\n"),
    ]
    for name in ("env_h100_live.json", "env_h100_archs.json"):  # recorded probes (rocmcompat probe --json)
        found.append((f"probe-{name}", (REPO / "tests" / "data" / name).read_text(encoding="utf-8")))
    for path in sorted((REPO / "tests" / "data" / "collect_env").glob("*.txt")):
        found.append((path.name, path.read_text(encoding="utf-8")))
    return found


def mutate(rng: random.Random, text: str) -> str:
    lines = text.splitlines() or [""]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        line = lines[i]
        at = rng.randint(0, len(line))
        kind = rng.randrange(6)
        if kind == 0:
            lines[i] = line[:at] + rng.choice(RUNS) + line[at:]
        elif kind == 1:
            lines[i] = line[:at] + " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3))) + line[at:]
        elif kind == 2:
            lines[i] = line[:at] + rng.choice(SECRETS) + line[at:]
        elif kind == 3:
            lines[i:i] = [line] * rng.randint(2, 2_000)
        elif kind == 4:
            lines = lines[: rng.randint(1, len(lines))]
            lines[-1] = lines[-1][: rng.randint(0, len(lines[-1]))]
        else:
            lines[i] = line.upper() if rng.random() < 0.5 else line[::-1]
    return ("\r\n" if rng.random() < 0.2 else "\n").join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=600)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds allowed per input (a hang past it)")
    ap.add_argument("--out", default=str(default_out("fuzz_stack_files")))
    args = ap.parse_args()
    os.environ["ROCMCOMPAT_CACHE_DIR"] = "off"
    os.environ[SECRET_ENV_NAME] = SECRET_ENV  # a secret in this process's environment: never printed either
    from pytest_rocmcompat.cli.main import main as cli

    rng = random.Random(args.seed)
    pool = seeds()
    stats: dict = {"inputs": 0, "refused": 0, "read": 0, "tracebacks": 0, "hangs": 0, "leaks": 0, "slowest_s": 0.0}
    slowest = ""
    examples: list[str] = []
    signal.signal(signal.SIGALRM, alarm)
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.inputs):
            name, seed = pool[n % len(pool)]
            text = mutate(rng, seed)
            path = Path(tmp) / name
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
            sets = rng.choice(([], ["arch=gfx942"], ["arch=sm_80", "python=3.11"], ["platform=rocm"]))
            stats["inputs"] += 1
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, args.limit)
            out, err = io.StringIO(), io.StringIO()
            try:
                with redirect_stdout(out), redirect_stderr(err):
                    status = cli(["check", str(path), *(f"--set={a}" for a in sets), *(["--json"] if n % 2 else [])])
                stats["refused" if status == 2 else "read"] += 1
                printed = out.getvalue() + err.getvalue()
                wrong = violations(printed, "json" if n % 2 else "terminal")
                if wrong:
                    stats["leaks"] += 1
                    examples.append(f"{name}: printed {', '.join(wrong)}")
            except Timeout:
                stats["hangs"] += 1
                examples.append(f"{name}: past {args.limit} s")
            except BaseException as exc:  # a traceback (or an exit other than the command's) is what this counts
                stats["tracebacks"] += 1
                examples.append(f"{name}: {type(exc).__name__}: {exc!s:.200}\n{traceback.format_exc()[-600:]}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                took = time.perf_counter() - start
                if took > stats["slowest_s"]:
                    stats["slowest_s"], slowest = round(took, 3), name
    result = {"machine": machine(), "seed": args.seed, "limit_s": args.limit, **stats, "slowest_input": slowest}
    result["examples"] = examples[:20]
    write_json(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=1))
    for example in examples[:8]:
        print(example)
    return 1 if stats["tracebacks"] or stats["hangs"] or stats["leaks"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
