"""Reading a user-named text file: strict UTF-8, or what a leading byte-order mark says (``safe_io/input_files.py``)."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from pytest_rocmcompat.safe_io.input_files import InputError, read_text_file

FREEZE = "numpy==2.1.2\r\ntorch==2.5.1+rocm6.2\r\n"  # as Windows writes it


@pytest.mark.parametrize(
    ("encoding", "mark"),
    [
        ("utf-8", codecs.BOM_UTF8),  # Notepad
        ("utf-16-le", codecs.BOM_UTF16_LE),  # Windows PowerShell 5: `pip freeze > requirements.txt`
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),  # starts with UTF-16 LE's mark: must be tried first
        ("utf-32-be", codecs.BOM_UTF32_BE),
    ],
)
def test_a_byte_order_mark_says_the_encoding_and_is_dropped(tmp_path: Path, encoding: str, mark: bytes) -> None:
    path = tmp_path / "requirements.txt"
    path.write_bytes(mark + FREEZE.encode(encoding))
    assert read_text_file(str(path)) == FREEZE


def test_powershell_redirect_is_read(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_text(FREEZE, encoding="utf-16")  # Python's utf-16 writes a mark, as PowerShell 5 does
    assert path.read_bytes()[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    assert read_text_file(str(path)) == FREEZE


def test_without_a_mark_utf8_is_strict(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes("numpy==2.1.2\ncafé==1.0\n".encode("latin-1"))
    with pytest.raises(InputError) as info:
        read_text_file(str(path))
    assert str(info.value) == "not UTF-8 text: byte 0xe9 at column 4 (invalid continuation byte)"
    assert info.value.line == 2
    path.write_bytes(("# café\r\n" + FREEZE).encode("utf-16-le"))  # UTF-16 without its mark: not guessed
    with pytest.raises(InputError, match=r"^not UTF-8 text"):
        read_text_file(str(path))


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (
            codecs.BOM_UTF16_LE + "numpy==2.1.2\ntorch".encode("utf-16-le") + b"\x00\xdc",
            "not UTF-16 LE text (it starts with a UTF-16 LE byte-order mark): byte 0x00 at column 6 (illegal encoding)",
            2,
        ),
        (
            codecs.BOM_UTF8 + b"numpy==2.1.2\n\ntorch==2.5.1\xff\n",
            "not UTF-8 text (it starts with a UTF-8 byte-order mark): byte 0xff at column 13 (invalid start byte)",
            3,
        ),
        (
            codecs.BOM_UTF32_BE + "a\n".encode("utf-32-be") + b"\x00\x11\x00\x00",
            "not UTF-32 BE text (it starts with a UTF-32 BE byte-order mark): byte 0x00 at column 1 "
            "(code point not in range(0x110000))",
            2,
        ),
        (
            codecs.BOM_UTF16_LE + b"a",
            "not UTF-16 LE text (it starts with a UTF-16 LE byte-order mark): byte 0x61 at column 1 (truncated data)",
            1,
        ),
    ],
    ids=["utf-16-lone-surrogate", "utf-8-stray-byte", "utf-32-out-of-range", "utf-16-odd-length"],
)
def test_undecodable_after_a_mark_names_line_and_column(tmp_path: Path, data: bytes, message: str, line: int) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_text_file(str(path))
    assert (str(info.value), info.value.line) == (message, line)


def test_every_caller_reads_a_marked_file(tmp_path: Path) -> None:
    """A matrix and a recorded environment saved by a Windows editor load as their UTF-8 twins."""
    from pytest_rocmcompat.matrix.loader import load_matrix
    from pytest_rocmcompat.stack.environment import Environment

    matrix = "name: windows-edited\nknown_bad:\n  - id: my-rule\n    reason: r\n    action: skip\n"
    (tmp_path / "m.yaml").write_bytes(codecs.BOM_UTF8 + matrix.encode())
    assert load_matrix(tmp_path / "m.yaml").name == "windows-edited"
    (tmp_path / "m16.yaml").write_text(matrix, encoding="utf-16")
    assert [r.id for r in load_matrix(tmp_path / "m16.yaml").rules] == ["my-rule"]
    env = Environment(platform="rocm", torch="2.5.1+rocm6.2", python="3.11.9")
    (tmp_path / "env.json").write_text(env.to_json(), encoding="utf-16")
    loaded = Environment.load(str(tmp_path / "env.json"))
    assert (loaded.platform, loaded.torch, loaded.python) == ("rocm", "2.5.1+rocm6.2", "3.11.9")
