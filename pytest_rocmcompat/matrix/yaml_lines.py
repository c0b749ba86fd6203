"""``yaml.safe_load`` that remembers where each value came from.

The loader is :class:`yaml.SafeLoader` (no Python tags, no arbitrary objects)
whose mappings and sequences record the line of each key and item, so every
validation error can say ``file:line``. Duplicate keys, which PyYAML silently
collapses, are reported instead.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import yaml

from pytest_rocmcompat.errors import ConfigError, Problem
from pytest_rocmcompat.matrix.limits import MAX_DEPTH

PARSE_DEPTH = 200  # past this, refused before parsing; past MAX_DEPTH, refused after


class LineDict(dict):
    """A mapping with ``line`` (its own) and ``key_lines`` (each key's line, 1-based)."""

    line: int = 0
    key_lines: dict[Any, int]


class LineList(list):
    """A sequence with ``line`` (its own) and ``item_lines`` (each item's line, 1-based)."""

    line: int = 0
    item_lines: list[int]


class _Loader(yaml.SafeLoader):
    def __init__(self, stream: str, filename: str) -> None:
        super().__init__(stream)
        self.filename = filename
        self.duplicates: list[Problem] = []

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """A value PyYAML cannot build (``!!int abc``, a 5,000-digit number) is a marked error."""
        try:
            return super().construct_object(node, deep=deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read this value ({type(exc).__name__}: {_one_line(exc)})", node.start_mark
            ) from None

    def construct_yaml_map(self, node: yaml.MappingNode) -> Generator[LineDict, None, None]:
        data = LineDict()
        data.line = node.start_mark.line + 1
        data.key_lines = {}
        yield data
        own = sum(1 for key_node, _ in node.value if key_node.tag != "tag:yaml.org,2002:merge")
        self.flatten_mapping(node)
        merged = len(node.value) - own  # flatten_mapping puts merged pairs first; own keys override them
        from_merge: set = set()
        for index, (key_node, value_node) in enumerate(node.value):
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found an unhashable key",
                    key_node.start_mark,
                ) from None
            line = key_node.start_mark.line + 1
            if index < merged:
                from_merge.add(key)
            elif key in from_merge:
                from_merge.discard(key)  # `<<: *base` then the entry's own value: YAML's override
            elif key in data:
                self.duplicates.append(
                    Problem(
                        self.filename,
                        line,
                        "",
                        f"duplicate key {key!r} (first on line {data.key_lines[key]})",
                    )
                )
            data[key] = self.construct_object(value_node, deep=True)
            data.key_lines[key] = line

    def construct_yaml_seq(self, node: yaml.SequenceNode) -> Generator[LineList, None, None]:
        data = LineList()
        data.line = node.start_mark.line + 1
        data.item_lines = [child.start_mark.line + 1 for child in node.value]
        yield data
        data.extend(self.construct_sequence(node, deep=True))


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_yaml_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_yaml_seq)
# Matrices hold no dates: `name: 2024-13-45` is text, not an invalid date.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


_FastLoader: type[_Loader]
if hasattr(yaml, "CSafeLoader"):  # PyYAML built with libyaml

    class _CLoader(yaml.CSafeLoader, _Loader):
        """libyaml's parser (5-8x faster) with the same constructors; used while a file is valid."""

        def __init__(self, stream: str, filename: str) -> None:
            yaml.CSafeLoader.__init__(self, stream)
            self.filename = filename
            self.duplicates = []

    _FastLoader = _CLoader
else:  # a PyYAML without libyaml: the pure-Python loader does everything
    _FastLoader = _Loader

_FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


def _one_line(exc: BaseException | str, limit: int = 200) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_yaml(text: str, filename: str) -> Any:
    """Parse YAML text safely; raise :class:`ConfigError` with ``file:line`` on any mistake.

    libyaml parses when it is installed and the text is not deeply nested; a file it rejects
    is parsed again by the pure-Python parser, whose messages are more precise. Text nested
    far too deep to be a matrix is refused before parsing (the parser's recursion is slow).
    """
    deep = _deep_line(text, limit=PARSE_DEPTH) or _deep_indent_line(text, limit=PARSE_DEPTH)
    if deep is not None:
        raise ConfigError(
            [Problem(filename, deep, "", f"not valid YAML: nested too deeply (more than {PARSE_DEPTH} levels)")]
        )
    if _FastLoader is not _Loader and _shallow(text):
        try:
            return _checked_depth(_load(text, filename, _FastLoader), filename)
        except Exception:  # any failure: the pure-Python parser decides
            # Its message is better, and it is right when the C extension is stale: after a module
            # snapshot (pytester's) re-imported yaml, libyaml raises the new module's error classes,
            # which `except yaml.MarkedYAMLError` here (the old module's) does not catch.
            pass
    return _checked_depth(_load(text, filename, _Loader), filename)


def _checked_depth(data: Any, filename: str) -> Any:
    """``data`` unless lists and mappings nest deeper than :data:`MAX_DEPTH` (a marked error).

    The problem names the top-level key the nesting is under, on that key's line.
    """
    stack: list[tuple[Any, int, Any]] = [(data, 1, None)]
    seen: set[int] = set()  # aliases share nodes: each is walked once (an alias bomb stays cheap)
    while stack:
        node, depth, top = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            where = getattr(node, "line", None)
            line = line_of(data, top) if top is not None else where or 1
            inner = f" (line {where})" if where and where != line else ""
            raise ConfigError(
                [
                    Problem(
                        filename,
                        line or 1,
                        "" if top is None else str(top),
                        f"nested more than {MAX_DEPTH} levels deep{inner}; a matrix needs a few",
                    )
                ]
            )
        if isinstance(node, dict):
            stack.extend(
                (v, depth + 1, k if node is data else top) for k, v in node.items() if isinstance(v, (dict, list))
            )
        elif isinstance(node, list):
            stack.extend(
                (v, depth + 1, i if node is data else top) for i, v in enumerate(node) if isinstance(v, (dict, list))
            )
    return data


def _load(text: str, filename: str, loader_class: type[_Loader]) -> Any:
    loader: _Loader | None = None
    try:
        loader = loader_class(text, filename)
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        if isinstance(exc, yaml.constructor.ConstructorError) and "could not determine a constructor" in what:
            what = (
                f"{what.split(' for the tag ')[-1].strip()} tags are not allowed: "
                "matrices are plain data (loaded with yaml.safe_load)"
            )
        elif exc.context and exc.problem and "single document" in exc.context:
            what = "expected a single document, but found another document (remove the '---' separator)"
        raise ConfigError([Problem(filename, line, "", f"not valid YAML: {_one_line(what)}")]) from None
    except yaml.reader.ReaderError as exc:  # control characters, invalid code points
        line = _line_at(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise ConfigError(
            [Problem(filename, line, "", f"not valid YAML: control or invalid character U+{code:04X} is not allowed")]
        ) from None
    except RecursionError:
        line = _deep_line(text) or _deepest_indent_line(text)
        raise ConfigError([Problem(filename, line, "", "not valid YAML: nested too deeply")]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(filename, None, "", f"not valid YAML: {_one_line(exc)}")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    if loader.duplicates:
        raise ConfigError(loader.duplicates)
    return data


def _shallow(text: str) -> bool:
    """Whether libyaml may parse this text: deep nesting can overflow its C stack (a crash)."""
    if _deep_line(text, limit=64) is not None:
        return False
    return all(len(line) - len(line.lstrip(" ")) <= 256 for line in text.splitlines())


def _deep_line(text: str, limit: int = 100) -> int | None:
    """The first line where brackets nest deeper than ``limit`` (where the recursion began)."""
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        for char in line:
            depth += (char in "[{") - (char in "]}")
            if depth > limit:
                return number
    return None


def _deep_indent_line(text: str, limit: int) -> int | None:
    """The first line whose indentation opens more than ``limit`` block levels."""
    stack: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" -"))
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        if len(stack) > limit:
            return number
    return None


def _deepest_indent_line(text: str) -> int:
    """The most indented line (block-style nesting has no brackets to count)."""
    best, where = -1, 1
    for number, line in enumerate(text.splitlines(), 1):
        indent = len(line) - len(line.lstrip(" -"))
        if line.strip() and indent > best:
            best, where = indent, number
    return where


def _line_at(text: str, position: int) -> int:
    return text.count("\n", 0, max(0, position)) + 1


def line_of(container: Any, key: Any, default: int | None = None) -> int | None:
    """Line of ``container[key]`` when the loader recorded it, else ``default``."""
    if isinstance(container, LineDict):
        return container.key_lines.get(key, default or container.line)
    if isinstance(container, LineList) and isinstance(key, int) and 0 <= key < len(container.item_lines):
        return container.item_lines[key]
    return getattr(container, "line", None) or default
