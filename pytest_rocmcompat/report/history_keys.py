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


VERSION_KEYS = ("runtime", "torch", "python", "libraries")


def follow_cells(history: list[dict], current: list[tuple[str, str, str]]) -> list[dict]:
    """Earlier publications' stacks moved onto the ids that follow the matrix cell.

    ``current``: (id, legacy id, name) of each stack published now; the legacy id is the one
    publications made before ids followed the cell (a hash of a key with library versions in it).
    A stack of an earlier publication moves onto a current id when its id is that stack's legacy
    id, or (an id no current key explains, written before ``key`` was recorded) when its name is
    the name of exactly one current stack: so two same-named series that a library release split
    become one line. Nothing is moved onto an id the publication already has.
    """
    ids = {new for new, _, _ in current}
    legacy = {old: new for new, old, _ in current if old != new}
    names: dict[str, list[str]] = {}
    for new, _, name in current:
        names.setdefault(name, []).append(new)
    for run in history:
        stacks = run["stacks"]
        for old_id in list(stacks):
            if old_id in ids:
                continue
            stack = stacks[old_id]
            target = legacy.get(old_id)
            if target is None and "key" not in stack and len(names.get(stack["name"], ())) == 1:
                target = names[stack["name"]][0]
            if target is not None and target not in stacks:
                stacks[target] = stacks.pop(old_id)
    return history


def version_notes(history: list[dict], sid: str) -> list[str]:
    """Per publication, what of the stack's versions changed since its previous publication
    (``transformers 5.23.0 -> 5.24.0``), "" for nothing or no earlier record.
    """
    notes: list[str] = []
    before: dict[str, str] | None = None
    for run in history:
        stack = run["stacks"].get(sid)
        versions = stack.get("versions") if stack else None
        if not isinstance(versions, dict):
            notes.append("")
            before = before if stack is None else None
            continue
        notes.append(_changed(before, versions) if before is not None else "")
        before = versions
    return notes


def _changed(before: dict[str, str], now: dict[str, str]) -> str:
    out = []
    for key in VERSION_KEYS:
        was, is_ = before.get(key, ""), now.get(key, "")
        if was == is_:
            continue
        if key == "libraries":
            old, new = _libraries(was), _libraries(is_)
            for name in sorted(set(old) | set(new)):
                if old.get(name) != new.get(name):
                    out.append(f"{name} {old.get(name, 'absent')} -> {new.get(name, 'absent')}")
        else:
            out.append(f"{key} {was or '?'} -> {is_ or '?'}")
    return "; ".join(out)


def _libraries(text: str) -> dict[str, str]:
    """``accelerate 1.15.0, transformers 5.23.0`` -> name -> version."""
    found = {}
    for part in text.split(","):
        name, _, version = part.strip().partition(" ")
        if name:
            found[name] = version
    return found
