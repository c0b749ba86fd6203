"""Generated hostile inputs through the loader, lint, the run writers and the merge.

Builds N matrices (mutations of a valid matrix: hostile text in every kind of value and key,
huge numbers, deep nesting, merge keys, control characters, invalid UTF-8, truncation) and N
JUnit reports (hostile names, messages, properties and measurements, some corrupt), then:

- loads each matrix (in-process) and lints it (``rocmcompat lint``, in-process);
- merges the reports in groups and writes Markdown, HTML and JSON with ``rocmcompat report``
  (in-process), and renders Markdown cells of each report's text as the run report does;
- counts: tracebacks (any exception but ConfigError), inputs past the per-input time limit,
  planted secrets in any output, live links or raw control bytes in any report.

    python bench/fuzz_inputs.py [--matrices 1000] [--reports 1000] [--seed 16] [--limit 10]
        [--out .bench/fuzz_inputs.json]
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
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from _common import REPO, Timeout, alarm, default_out, machine, write_json

sys.path.insert(0, str(REPO))
from tests.hostile import PIECES, SECRET_ENV, SECRET_ENV_NAME, violations

BASE = """\
name: MI300X
platform: rocm
arch: [gfx942, gfx90a]
axes:
  rocm: ["6.2", "6.3"]
  torch: ["2.5", "2.6"]
  libraries:
    vllm: ["0.8.5"]
exclude:
  - {rocm: "6.2", torch: "2.6"}
suites: [preflight, gpu]
floors:
  gemm_bf16_tflops: 600
known_bad:
  - &base
    id: kb-rule
    when: {torch: "<2.6", arch: "gfx94*", env: {HSA_X: present}}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "module 'torch' has no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://example.invalid/x]
    fixed_in: {torch: "2.6"}
  - <<: *base
    id: second-rule
"""


def hostile(rng: random.Random) -> str:
    return " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))


def matrix_text(rng: random.Random) -> bytes:
    """One mutation of BASE (most are invalid on purpose)."""
    lines = BASE.splitlines()
    kind = rng.randrange(10)
    i = rng.randrange(len(lines))
    h = hostile(rng).replace("\\", "\\\\").replace('"', '\\"')
    if kind == 0:  # a value replaced by hostile text
        key, sep, _ = lines[i].partition(":")
        lines[i] = f'{key}{sep} "{h}"' if sep else f'  - "{h}"'
    elif kind == 1:  # a hostile key
        lines.insert(i, " " * (len(lines[i]) - len(lines[i].lstrip())) + f'"{h}": 1')
    elif kind == 2:  # huge numbers in versions and specifiers
        digits = "9" * rng.choice([31, 400, 5000])
        lines[i] = lines[i].replace('"2.5"', f'"{digits}"').replace('"<2.6"', f'"<2.{digits}"')
        lines.append(f'  - {{id: big, reason: r, when: {{python: ">={digits}"}}}}')
    elif kind == 3:  # deep nesting
        depth = rng.choice([70, 300, 3000])
        lines.append("description: " + "[" * depth + "]" * depth)
    elif kind == 4:  # a signature
        lines.append(f"  - {{id: sig{i}, reason: r, action: xfail, signature: '{rng.choice(SIGS)}'}}")
    elif kind == 5:  # truncation
        return "\n".join(lines).encode()[: rng.randrange(len(BASE))]
    elif kind == 6:  # invalid UTF-8 somewhere
        data = "\n".join(lines).encode()
        at = rng.randrange(len(data))
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\x80\x80", b"\xed\xb2\x80"]) + data[at:]
    elif kind == 7:  # raw control characters (NUL, ESC) in text
        lines[i] += rng.choice(["\x00", "\x1b[31m", "\x07", "\x85"])
    elif kind == 8:  # a merge key with the rule's own id and a hostile reason
        lines.append(f'  - <<: *base\n    id: merged{i}\n    reason: "{h}"')
    else:  # include of something that is not a matrix file
        lines.append(f"include: [{rng.choice(['/dev/zero', '/dev/urandom', 'nope.yaml', '.', '/etc/passwd'])}]")
    return "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"


SIGS = [
    r"(a+)+$",
    r"(a|aa)+$",
    r"^(\w+\s?)*$",
    r"Memory access fault by GPU node-\d+",
    r"x{99999999999}",
    "(" * 300 + ")" * 300,
    r"[",
    r"(?P<x>a)(?P=x)+",
]


def junit_report(rng: random.Random) -> bytes:
    if rng.random() < 0.1:  # corrupt or foreign files among them
        return rng.choice([b"", b"<testsuites><testsuite", b"\xff\xfe<x/>", b"<html/>", os.urandom(64)])
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name="pytest", tests="3")
    props = ET.SubElement(suite, "properties")
    for name in ("rocm_env.platform", "rocm_env.torch", "rocm_env.arch", "rocm_var.VLLM_INDEX_URL", "rocm_env.origin"):
        ET.SubElement(props, "property", name=name, value=_xml(hostile(rng) if rng.random() < 0.5 else "rocm"))
    for n in range(rng.randint(1, 5)):
        case = ET.SubElement(
            suite, "testcase", classname=_xml(f"suites.gpu.test_{hostile(rng)}"), name=_xml(f"test_{n} {hostile(rng)}")
        )
        cp = ET.SubElement(case, "properties")
        ET.SubElement(
            cp,
            "property",
            name="rocm_metric.gemm_bf16_tflops",
            value=json.dumps({"value": rng.random() * 1000, "unit": hostile(rng), "detail": hostile(rng)}),
        )
        ET.SubElement(
            cp,
            "property",
            name="rocm_outcome",
            value=rng.choice(["fail", "known-bad", "crashed", "hang", "stale-rule", "x"]),
        )
        ET.SubElement(cp, "property", name="rocm_rule", value=_xml(hostile(rng)))
        ET.SubElement(cp, "property", name="rocm_signature", value=_xml(hostile(rng)))
        if rng.random() < 0.6:
            f = ET.SubElement(case, "failure", message=_xml(hostile(rng)))
            f.text = _xml(hostile(rng))
    return ET.tostring(root, encoding="utf-8")


def _xml(text: str) -> str:  # as pytest's writer escapes characters XML cannot hold
    return "".join(
        c if c in "\t\n\r" or " " <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c > "\uffff" else f"#x{ord(c):02X}"
        for c in text
    )


def guarded(fn, limit: float, stats: dict, what: str):
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        return fn()
    except Timeout:
        stats["hangs"] += 1
        stats["examples"].append(f"{what}: past {limit} s")
    except BaseException as exc:
        stats["tracebacks"] += 1
        stats["examples"].append(f"{what}: {type(exc).__name__}: {exc!s:.200}\n{traceback.format_exc()[-800:]}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        stats["slowest_s"] = max(stats["slowest_s"], time.perf_counter() - start)
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrices", type=int, default=1000)
    ap.add_argument("--reports", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds allowed per input (a hang past it)")
    ap.add_argument("--out", default=str(default_out("fuzz_inputs")))
    args = ap.parse_args()
    os.environ[SECRET_ENV_NAME] = SECRET_ENV
    os.environ["ROCMCOMPAT_CACHE_DIR"] = "off"
    from pytest_rocmcompat.cli.main import main as cli
    from pytest_rocmcompat.errors import ConfigError
    from pytest_rocmcompat.matrix.loader import load_matrix
    from pytest_rocmcompat.safe_io.escape import md_cell

    rng = random.Random(args.seed)
    stats = dict.fromkeys(
        (
            "matrices",
            "reports",
            "tracebacks",
            "hangs",
            "secrets",
            "live_links",
            "control_bytes",
            "other_violations",
            "outputs_checked",
            "loaded_ok",
            "config_errors",
        ),
        0,
    )
    stats.update(slowest_s=0.0, examples=[])
    work = Path(tempfile.mkdtemp(prefix="rocmcompat-fuzz-"))
    os.chdir(work)
    started = time.perf_counter()

    def check(text: str, kind: str, what: str) -> None:
        stats["outputs_checked"] += 1
        for v in violations(text, kind):
            key = (
                "secrets"
                if v.startswith("secret")
                else "live_links"
                if v.startswith("live")
                else "control_bytes"
                if v.startswith("control")
                else "other_violations"
            )
            stats[key] += 1
            stats["examples"].insert(0, f"{what}: {v}")  # violations before hangs

    for n in range(args.matrices):
        Path("m.yaml").write_bytes(matrix_text(rng))
        stats["matrices"] += 1

        def load() -> None:
            try:
                load_matrix("m.yaml")
                stats["loaded_ok"] += 1
            except ConfigError as exc:
                stats["config_errors"] += 1
                check(str(exc), "terminal", f"matrix {n} problems")  # noqa: B023  called within this iteration

        guarded(load, args.limit, stats, f"matrix {n} load")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            guarded(lambda: cli(["lint", "m.yaml"]), args.limit, stats, f"matrix {n} lint")
        check(out.getvalue() + err.getvalue(), "terminal", f"matrix {n} lint output")

    batch: list[str] = []
    for n in range(args.reports):
        path = f"r{n}.xml"
        Path(path).write_bytes(junit_report(rng))
        stats["reports"] += 1
        batch.append(path)
        text = Path(path).read_bytes().decode("utf-8", "replace")
        check(md_cell(text, 100_000), "md", f"report {n} as a run-report cell")
        if len(batch) == 10 or n == args.reports - 1:
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                guarded(
                    lambda: cli(["report", *batch, "-o", "m.md", "--html", "m.html", "--json", "m.json"]),  # noqa: B023  called at once
                    args.limit,
                    stats,
                    f"reports {batch[0]}..{batch[-1]}",
                )
            check(err.getvalue(), "terminal", f"report batch {n} stderr")
            for name, kind in (("m.md", "md"), ("m.html", "html"), ("m.json", "json")):
                if Path(name).exists():
                    check(Path(name).read_text(encoding="utf-8"), kind, f"batch ending {n}: {name}")
                    Path(name).unlink()
            batch = []
    stats["seconds"] = round(time.perf_counter() - started, 1)
    stats["slowest_s"] = round(stats["slowest_s"], 3)
    stats["examples"] = stats["examples"][:20]
    result = {"machine": machine(), "seed": args.seed, "limit_s": args.limit, **stats}
    write_json(Path(args.out), result)
    print(json.dumps({k: v for k, v in result.items() if k not in ("machine",)}, indent=2))
    failures = stats["tracebacks"] + stats["hangs"] + stats["secrets"] + stats["live_links"] + stats["control_bytes"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
