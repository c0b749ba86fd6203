"""Replay the public incident corpus through the plugin and print recall and false-positive rate.

The corpus is three files: ``incidents.yaml`` (split by a hash of the id), ``collected.yaml``
(issue 25 item 5: split by breakage class, the held-out classes named at its top) and
``blind.yaml`` (issue 25 item 5: collected blind, without reading the knowledge, and committed
before any knowledge that might catch it; every incident ``split: blind``). Each incident
is replayed as a user's CI would meet it: a fresh directory
with one test carrying the incident's markers that raises the quoted error text, a real
``python -m pytest`` run with ``--rocm-set`` for the reported stack (on a neutral replayed
environment, so this machine's own stack does not leak in), the bundled ``known_bad.yaml``
and the built-in checks, and the JUnit file it writes read back with the plugin's own reader.
A stack that states ``platform=rocm`` or ``cuda`` but no ``arch`` is replayed with one GPU of
that vendor whose arch is unknown (:func:`base_environment`; before 2026-11-26 it had none, so
a ``gpus`` test was skipped before any check could judge the stack); a stack that states no
platform is replayed on the one its versions imply (a ``+rocm``/``+cu`` torch, an untagged
torch release's default PyPI build: :func:`implied_platform`, since the evening of 2026-11-26).

A broken stack is *recognised* when its test ends ``known-bad`` or ``skipped`` *by a rule or
check* (``rocm_rule`` present); a skip for another reason (e.g. no GPU) is not. Recall is
recognised broken / broken; the false-positive rate is recognised works / works. Both are
printed for the ``train`` half (rules may be written from it), the ``held-out`` half and the
``blind`` set (the honest measure of generalisation: nothing was written from or for it), per
breakage class (``class``) with its split, and per class of the blind set alone.

    python bench/incidents/run.py                 # all three files, 2 at a time
    python bench/incidents/run.py --split blind
    python bench/incidents/run.py --split held-out --jobs 1 --json out.json
    python bench/incidents/run.py --only pytorch-120233-dynamo-py312-torch222
"""

from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:  # imported late at run time: the repository's own package, put on sys.path first
    from pytest_rocmcompat.stack.environment import Environment

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = HERE / "incidents.yaml"
COLLECTED = HERE / "collected.yaml"
BLIND = HERE / "blind.yaml"
CORPORA = (CORPUS, COLLECTED, BLIND)
REQUIRED = ("id", "url", "date", "stack", "test", "error", "verdict", "split")
REQUIRED_COLLECTED = (*REQUIRED, "class", "checked")
CLASS_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
URL = re.compile(
    r"^https://(?:github\.com/[\w.-]+/[\w.-]+/(?:issues|pull|releases|discussions|blob|commit)/\S+|\S+\.\S+/\S*)$"
)
VERDICTS = ("broken", "works")
SPLITS = ("train", "held-out")  # the two halves of incidents.yaml and collected.yaml
BLIND_SPLIT = "blind"  # every incident of blind.yaml, and only those
ALL_SPLITS = (*SPLITS, BLIND_SPLIT)
RECOGNISED = ("known-bad", "skipped")


@dataclass
class Replay:
    id: str
    split: str
    verdict: str
    near_miss: bool
    outcome: str  # the plugin's outcome of the replayed test, or "error: ..." if the run broke
    rule: str | None  # the rule or check that claimed it
    diagnosis: str | None  # the built-in diagnosis of an unclaimed failure
    cited: bool  # the bundled database links this incident's URL
    cls: str = "unclassified"  # the incident's breakage class
    # the rule(s) or check(s) that applied to the test but whose signature did not match its
    # error text (issue 25 item 7: a signature written from a paraphrase, not the real message)
    unmatched: str | None = None
    # the risk(s) (uncertain findings) that reached the test but whose signature did not match its error text
    risks_unmatched: str | None = None

    @property
    def recognised(self) -> bool:
        return self.outcome in RECOGNISED and self.rule is not None


def split_of(incident_id: str) -> str:
    """The deterministic half an incident belongs to: sha256(id)[0] even -> train."""
    return "train" if hashlib.sha256(incident_id.encode()).digest()[0] % 2 == 0 else "held-out"


def load_corpus(path: Path = CORPUS) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return list(data["incidents"] or ())


def held_out_classes(path: Path = COLLECTED) -> tuple[str, ...]:
    """The breakage classes held out whole (declared at the top of ``collected.yaml``)."""
    with open(path, encoding="utf-8") as fh:
        return tuple(yaml.safe_load(fh).get("held_out_classes") or ())


def load_all(paths: tuple[Path, ...] = CORPORA) -> list[dict]:
    """Every incident of the files (by default all three), in order."""
    return [inc for path in paths for inc in load_corpus(path)]


def validate_all(paths: tuple[Path, ...] = CORPORA) -> list[str]:
    """Each file by its own split rule, ids unique across the files, blind sources in no other file."""
    classes = held_out_classes(COLLECTED) if COLLECTED.exists() else ()
    problems: list[str] = []
    for path in paths:
        blind = path.name == BLIND.name
        by_class = path.name == COLLECTED.name or blind
        found = validate(load_corpus(path), classes, by_class=by_class, blind=blind)
        problems += [f"{path.name}: {p}" for p in found]
    seen: dict[str, str] = {}
    for path in paths:
        for inc in load_corpus(path):
            if inc.get("id") in seen and seen[inc["id"]] != path.name:
                problems.append(f"{path.name}: {inc['id']}: id also in {seen[inc['id']]}")
            seen.setdefault(inc.get("id"), path.name)
    # a blind source quoted by another file was seen before the blind set was collected
    sighted = {inc.get("url") for path in paths if path.name != BLIND.name for inc in load_corpus(path)}
    for path in paths:
        if path.name == BLIND.name:
            for inc in load_corpus(path):
                if inc.get("url") in sighted:
                    problems.append(f"{path.name}: {inc.get('id')}: url also in another corpus file")
    return problems


def validate(
    incidents: list[dict], held_out: tuple[str, ...] = (), *, by_class: bool = False, blind: bool = False
) -> list[str]:
    """Every problem of the corpus, one line each (empty: well-formed).

    ``by_class`` (collected.yaml): ``class`` and ``checked`` are required and the split is the
    class's (held-out iff the class is in ``held_out``). ``blind`` (blind.yaml, with
    ``by_class``): the same fields are required and every split is ``blind``. Otherwise
    (incidents.yaml) the split is the hash of the id, except for an incident of a held-out
    class, which is held-out. Only blind.yaml may use the ``blind`` split.
    """
    problems, seen = [], set()
    for n, inc in enumerate(incidents):
        where = f"incidents[{n}] {inc.get('id', '?')}"
        required = REQUIRED_COLLECTED if by_class else REQUIRED
        problems += [f"{where}: missing {key!r}" for key in required if not inc.get(key)]
        if inc.get("id") in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(inc.get("id"))
        if not str(inc.get("url", "")).startswith("https://"):
            problems.append(f"{where}: url must be https")
        elif by_class and not URL.match(str(inc["url"])):
            problems.append(f"{where}: url does not look like a public report")
        if not isinstance(inc.get("date"), datetime.date):
            problems.append(f"{where}: date must be YYYY-MM-DD")
        if inc.get("verdict") not in VERDICTS:
            problems.append(f"{where}: verdict must be one of {VERDICTS}")
        if inc.get("near_miss") and inc.get("verdict") != "works":
            problems.append(f"{where}: a near-miss is a working stack (verdict works)")
        cls = inc.get("class")
        if cls is not None and not CLASS_NAME.match(str(cls)):
            problems.append(f"{where}: class must be lower-case-with-dashes")
        if blind:
            if inc.get("split") != BLIND_SPLIT:
                problems.append(f"{where}: split must be {BLIND_SPLIT} (blind.yaml)")
        elif by_class:
            want = "held-out" if cls in held_out else "train"
            if cls and inc.get("split") != want:
                problems.append(f"{where}: split must be {want} (class {cls})")
        elif inc.get("id"):
            want = "held-out" if cls in held_out else split_of(inc["id"])
            if inc.get("split") != want:
                why = f"class {cls} is held out" if cls in held_out else "sha256 of the id"
                problems.append(f"{where}: split must be {want} ({why})")
        if not all(isinstance(a, str) and "=" in a for a in inc.get("stack") or ()):
            problems.append(f"{where}: stack must be KEY=VALUE assignments")
        bad_keys = [a for a in inc.get("stack") or () if isinstance(a, str) and "=" in a and not _settable(a)]
        if bad_keys:
            problems.append(f"{where}: not a --rocm-set key: {bad_keys}")
        if not str(inc.get("test", "")).startswith("test_"):
            problems.append(f"{where}: test must be a test function name")
    return problems


@functools.cache
def _set_keys() -> frozenset[str]:
    """The plain keys ``--rocm-set`` takes: stack/overrides.py's list, less its ``lib.NAME``-style families."""
    sys.path.insert(0, str(REPO))
    from pytest_rocmcompat.stack.overrides import KEYS

    return frozenset(key for key in KEYS if not key.endswith(".NAME"))


def _settable(assignment: str) -> bool:
    """A key ``--rocm-set`` accepts (a replay with any other key ends in a usage error)."""
    key = assignment.split("=", 1)[0]
    return key in _set_keys() or (key.split(".", 1)[0] in ("lib", "requires", "env") and "." in key)


def _test_source(inc: dict) -> str:
    """The replayed test: raises the quoted text, or (``crash``) prints it and aborts, isolated."""
    decorators = [f"@pytest.mark.{m}" for m in inc.get("markers") or ()]
    if inc.get("uses"):
        decorators.append("@pytest.mark.uses(" + ", ".join(repr(u) for u in inc["uses"]) + ")")
    if inc.get("crash"):
        decorators.append("@pytest.mark.isolated(timeout=300)")
        body = ["    sys.stderr.write(ERROR + '\\n')", "    sys.stderr.flush()", "    os.abort()"]
    else:
        body = ["    raise RuntimeError(ERROR)"]
    return "\n".join(
        [
            "import os",
            "import sys",
            "",
            "import pytest",
            "",
            f"ERROR = {inc['error']!r}",
            "",
            *decorators,
            f"def {inc['test']}():",
            *body,
            "",
        ]
    )


def _plugin_args() -> list[str]:
    """``-p`` the plugin only where it is not installed with its entry point."""
    installed = any(ep.name == "rocmcompat" for ep in metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "pytest_rocmcompat.plugin"]


def _cited_urls() -> set[str]:
    with open(REPO / "matrices" / "known_bad.yaml", encoding="utf-8") as fh:
        rules = yaml.safe_load(fh)["known_bad"]
    return {link for rule in rules for link in rule.get("links") or ()}


GPU_PLATFORMS = {"rocm": "amd", "cuda": "nvidia"}


def base_environment(stack: list[str]) -> Environment:
    """The neutral environment a stack is replayed on (``--rocm-set`` then applies the stack).

    A CPU machine with no GPU, except where the stack implies a GPU platform but no ``arch``:
    its user had a GPU of that vendor, so the replay has one GPU of that vendor whose arch is
    unknown (empty). Arch checks see no arch and stay silent; a test marked ``gpus`` is not
    skipped for want of a GPU before any check can judge the stack. (With an ``arch``,
    ``--rocm-set arch=`` describes the GPU itself, as before.) The platform is the stated one,
    else what the stack's own versions say (:func:`implied_platform`), as the plugin's probe
    would find it on that user's machine.
    """
    sys.path.insert(0, str(REPO))
    from pytest_rocmcompat.stack.environment import GPU, Environment

    keys = dict(a.split("=", 1) for a in stack)
    stated = keys.get("platform", "")
    platform = stated or implied_platform(keys)
    vendor = GPU_PLATFORMS.get(platform)
    gpus = (
        (GPU(0, f"(replayed {vendor} GPU, arch not stated)", "", None, vendor),)
        if vendor and "arch" not in keys
        else ()
    )
    return Environment(platform="cpu" if stated or not vendor else platform, gpus=gpus, python="3.11.7", os="Linux")


def implied_platform(keys: dict[str, str]) -> str:
    """The GPU platform a stack that states none implies, or ``""``.

    A ``+rocm`` torch, a ``rocm``/``hip`` release: ROCm. A ``+cu`` torch, a ``cuda`` release, or
    an untagged torch release whose default PyPI wheel is a CUDA build (``derived_facts``; how
    ``pip freeze`` lists it): CUDA. Nothing else (a CPU or prerelease torch, no torch) implies one.
    """
    sys.path.insert(0, str(REPO))
    from pytest_rocmcompat.knowledge.derived_facts import pypi_default_build
    from pytest_rocmcompat.stack.versions import coerce_version

    torch = coerce_version(keys.get("torch"))
    local = (torch.local or "") if torch is not None else ""
    if local.startswith("rocm") or keys.get("rocm") or keys.get("hip"):
        return "rocm"
    if re.match(r"cu\d", local) or keys.get("cuda") or pypi_default_build(keys.get("torch")) is not None:
        return "cuda"
    return ""


def replay(inc: dict, workdir: Path, cited: set[str] | None = None) -> Replay:
    """Run one incident's test under its stack in ``workdir``; the plugin's verdict."""
    sys.path.insert(0, str(REPO))
    from pytest_rocmcompat.report.junit_read import read_run

    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "env.json").write_text(base_environment(inc["stack"]).to_json(), encoding="utf-8")
    (workdir / "test_incident.py").write_text(_test_source(inc), encoding="utf-8")
    argv = [
        sys.executable,
        "-m",
        "pytest",
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        "-q",
        "--rocm-env",
        "env.json",
        "--junitxml",
        "junit.xml",
        "test_incident.py",
    ]
    for assignment in inc["stack"]:
        argv += ["--rocm-set", assignment]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    for name in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"):
        env.pop(name, None)
    proc = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    was_cited = inc["url"] in (cited if cited is not None else _cited_urls())
    junit = workdir / "junit.xml"
    if proc.returncode not in (0, 1) or not junit.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
        return Replay(
            inc["id"],
            inc["split"],
            inc["verdict"],
            bool(inc.get("near_miss")),
            f"error: exit {proc.returncode}: {tail[0][:200]}",
            None,
            None,
            was_cited,
            inc.get("class") or "unclassified",
        )
    case = read_run(str(junit)).cases[0]
    diagnosis = case.signature if case.rule is None else None
    unmatched, risks = unmatched_rules(junit)
    return Replay(
        inc["id"],
        inc["split"],
        inc["verdict"],
        bool(inc.get("near_miss")),
        case.outcome.value,
        case.rule,
        diagnosis,
        was_cited,
        inc.get("class") or "unclassified",
        unmatched,
        risks,
    )


_UNMATCHED = re.compile(r"^rule (.+?) applies but its signature did not match")
_RISK_UNMATCHED = re.compile(r"^risk (.+?) reaches this test but its signature did not match")


def unmatched_rules(junit: Path) -> tuple[str | None, str | None]:
    """The rule ids of the JUnit note 'rule X applies but its signature did not match', and the risk ids of
    'risk X reaches this test but its signature did not match' (``None`` where there is none), read in one parse.
    """
    import xml.etree.ElementTree as ET

    found: list[str | None] = [None, None]
    for prop in ET.parse(junit).getroot().iter("property"):
        if prop.get("name") == "rocm_note":
            for i, note in enumerate((_UNMATCHED, _RISK_UNMATCHED)):
                m = note.match(prop.get("value") or "")
                if m and found[i] is None:
                    found[i] = m.group(1)
    return found[0], found[1]


def replay_all(incidents: list[dict], jobs: int = 2) -> list[Replay]:
    cited = _cited_urls()
    with (
        tempfile.TemporaryDirectory(prefix="rocmcompat-incidents-") as tmp,
        ThreadPoolExecutor(max_workers=max(1, jobs)) as pool,
    ):
        return list(pool.map(lambda inc: replay(inc, Path(tmp) / inc["id"], cited), incidents))


def summarise(results: list[Replay]) -> dict[str, dict[str, object]]:
    """Per split (and ``all``): recall on broken stacks, false-positive rate on working ones."""
    out: dict[str, dict[str, object]] = {}
    for split in (*ALL_SPLITS, "all"):
        rows = [r for r in results if split in ("all", r.split)]
        broken = [r for r in rows if r.verdict == "broken"]
        works = [r for r in rows if r.verdict == "works"]
        uncited = [r for r in broken if not r.cited]
        out[split] = {
            "broken": len(broken),
            "recognised": sum(r.recognised for r in broken),
            "recall": _ratio(sum(r.recognised for r in broken), len(broken)),
            "uncited_broken": len(uncited),
            "uncited_recognised": sum(r.recognised for r in uncited),
            "works": len(works),
            "false_positives": sum(r.recognised for r in works),
            "false_positive_rate": _ratio(sum(r.recognised for r in works), len(works)),
            "errors": sum(r.outcome.startswith("error") for r in rows),
            "signature_misses": sum(r.unmatched is not None for r in broken),
        }
    return out


def summarise_classes(results: list[Replay]) -> dict[str, dict[str, object]]:
    """Per breakage class: its split(s), recall on broken stacks, false positives on working ones."""
    out: dict[str, dict[str, object]] = {}
    for cls in sorted({r.cls for r in results}):
        rows = [r for r in results if r.cls == cls]
        broken = [r for r in rows if r.verdict == "broken"]
        works = [r for r in rows if r.verdict == "works"]
        out[cls] = {
            "splits": "/".join(sorted({r.split for r in rows})),
            "broken": len(broken),
            "recognised": sum(r.recognised for r in broken),
            "recall": _ratio(sum(r.recognised for r in broken), len(broken)),
            "works": len(works),
            "false_positives": sum(r.recognised for r in works),
            "errors": sum(r.outcome.startswith("error") for r in rows),
        }
    return out


def _print_classes(by_class: dict[str, dict[str, object]]) -> None:
    print(f"{'class':28} {'split':15} {'recall':>14} {'false pos.':>10}")
    for cls, c in by_class.items():
        recall = f"{c['recognised']}/{c['broken']} ({_pct(c['recall'])})" if c["broken"] else "-"
        fps = f"{c['false_positives']}/{c['works']}" if c["works"] else "-"
        print(f"{cls:28} {c['splits']:15} {recall:>14} {fps:>10}")


def _ratio(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def _pct(value: object) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="one file only (default: all three)")
    parser.add_argument("--split", choices=ALL_SPLITS)
    parser.add_argument("--only", nargs="*", default=None, help="incident ids")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write every replay and the summary here")
    args = parser.parse_args(argv)
    paths = (args.corpus,) if args.corpus else CORPORA
    incidents = load_all(paths)
    problems = validate_all(paths)
    if problems:
        print("corpus is not well-formed:\n" + "\n".join(problems), file=sys.stderr)
        return 2
    if args.split:
        incidents = [i for i in incidents if i["split"] == args.split]
    if args.only is not None:
        incidents = [i for i in incidents if i["id"] in set(args.only)]
    results = replay_all(incidents, args.jobs)
    for r in results:
        mark = "ok " if r.recognised == (r.verdict == "broken") else "MISS" if r.verdict == "broken" else "FP "
        why = r.rule or (f"diagnosis {r.diagnosis}" if r.diagnosis else "")
        if r.unmatched:  # the rule applied, its signature did not match the real message
            why = f"SIGNATURE-MISS {r.unmatched} {why}".rstrip()
        if r.risks_unmatched:  # a risk reached it, its signature did not match
            why = f"RISK-MISS {r.risks_unmatched} {why}".rstrip()
        print(f"{mark} {r.split:8} {r.verdict:6} {r.outcome:10} {r.id}  {why}")
    summary = summarise(results)
    by_class = summarise_classes(results)
    _print_classes(by_class)
    blind_classes = summarise_classes([r for r in results if r.split == BLIND_SPLIT])
    if blind_classes:
        print(f"{BLIND_SPLIT} split, per class:")
        _print_classes(blind_classes)
    for split, s in summary.items():
        print(
            f"{split:8}: recall {s['recognised']}/{s['broken']} ({_pct(s['recall'])}), "
            f"uncited {s['uncited_recognised']}/{s['uncited_broken']}; false positives "
            f"{s['false_positives']}/{s['works']} ({_pct(s['false_positive_rate'])}); errors {s['errors']}; "
            f"rule applied, signature missed {s['signature_misses']}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "results": [asdict(r) | {"recognised": r.recognised} for r in results],
                    "summary": summary,
                    "classes": by_class,
                    "blind_classes": blind_classes,
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return 1 if any(s["errors"] for s in summary.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
