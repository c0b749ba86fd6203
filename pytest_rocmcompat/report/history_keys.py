"""Earlier publications follow a stack whose key changed because local paths left its name.

A JUnit file without rocmcompat's properties was once keyed (and named) by its absolute path on
the publishing machine (``unknown (/home/u/ci/reports/h100/junit.xml (host vm))``); it is now
keyed by its path relative to the argument's root (``h100/junit.xml``). An earlier stack whose
old path ends in the new name is moved onto the new id, and renamed, so its history continues
as one line and the old path is not published again.
"""

from __future__ import annotations

import re

_OLD_UNKNOWN = re.compile(r"^unknown \((?P<path>.+?)(?: \(host [^()]*\))?\)$")


def continue_history(history: list[dict], new_ids: dict[str, tuple[str, str]]) -> list[dict]:
    """``new_ids``: relative file name -> (current stack id, current name) of each unknown stack."""
    if not new_ids:
        return history
    for run in history:
        stacks = run["stacks"]
        for old_id in list(stacks):
            match = _OLD_UNKNOWN.match(stacks[old_id]["name"])
            if not match:
                continue
            path = match.group("path").replace("\\", "/")
            for name, (new_id, new_name) in new_ids.items():
                if old_id != new_id and new_id not in stacks and (path == name or path.endswith("/" + name)):
                    stacks[new_id] = {**stacks.pop(old_id), "name": new_name}
                    break
    return history
