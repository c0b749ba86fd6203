"""tools/nccl_api_by_release.py on a small NCCL-like git history: the first tag declaring each function."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tools import nccl_api_by_release as tool

HEADER = """#ifndef NCCL_H_
ncclResult_t  ncclGetVersion(int *version);
ncclResult_t pncclGetVersion(int *version);
ncclResult_t  ncclAllReduce(const void* sendbuff, void* recvbuff);
{extra}#endif
"""


def _commit_tag(repo: Path, tag: str, extra: str, header: str = "src/nccl.h.in") -> None:
    path = repo / header
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER.format(extra=extra), encoding="utf-8")
    for args in (["add", "-A"], ["commit", "-q", "-m", tag], ["tag", tag]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "nccl"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "user.email", "t@example.com"], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "user.name", "t"], check=True)
    _commit_tag(repo, "v1.3.4-1", "", header="src/nccl.h")  # NCCL 1: another library, not read
    _commit_tag(repo, "v2.3.7-1", "")
    _commit_tag(repo, "v2.18.1-1", "ncclResult_t  ncclCommSplit(ncclComm_t comm);\n")
    _commit_tag(repo, "v2.18.3-2", "ncclResult_t  ncclCommSplit(ncclComm_t comm);\nncclResult_t  ncclNotARelease();\n")
    _commit_tag(
        repo,
        "v2.19.1-1",
        "ncclResult_t  ncclCommSplit(ncclComm_t comm);\nncclResult_t  ncclCommRegister(void* buff);\n"
        "const char*  ncclGetLastError(ncclComm_t comm);\n",
    )
    return repo


def test_first_releases_from_the_tags(tmp_path: Path) -> None:
    since = tool.first_releases(_repo(tmp_path))
    # the oldest NCCL 2 tag's functions are left out; a -2 tag is no release; any return type counts
    assert since == {"ncclCommSplit": "2.18.1", "ncclCommRegister": "2.19.1", "ncclGetLastError": "2.19.1"}


def test_the_printed_table_names_its_date_and_tags(tmp_path: Path, capsys) -> None:
    assert tool.main([str(_repo(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# read ") and "from tags v2.3.7-1 ... v2.19.1-1" in out
    assert '    "ncclCommRegister": "2.19.1",' in out
