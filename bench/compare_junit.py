"""Compare JUnit files test by test: the same test ids with the same outcomes (the plugin's
``rocm_outcome`` where written, else pytest's result). Exit 1 on any difference.

    python bench/compare_junit.py BASE.xml OTHER.xml [MORE.xml ...]
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def outcomes(path: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        kinds = {child.tag for child in case}
        result = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        found[test_id] = props.get("rocm_outcome") or result
    return found


def main(paths: list[str]) -> int:
    base = outcomes(paths[0])
    differ = 0
    for path in paths[1:]:
        other = outcomes(path)
        only_base, only_other = sorted(set(base) - set(other)), sorted(set(other) - set(base))
        changed = sorted(t for t in set(base) & set(other) if base[t] != other[t])
        counts = {o: list(other.values()).count(o) for o in sorted(set(other.values()))}
        print(
            f"{path}: {len(other)} tests {counts}; vs {paths[0]} ({len(base)}): "
            f"{len(only_base)} missing, {len(only_other)} new, {len(changed)} changed outcome"
        )
        for t in only_base[:20]:
            print(f"  missing: {t}")
        for t in only_other[:20]:
            print(f"  new: {t}")
        for t in changed[:20]:
            print(f"  changed: {t}: {base[t]} -> {other[t]}")
        differ += len(only_base) + len(only_other) + len(changed)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
