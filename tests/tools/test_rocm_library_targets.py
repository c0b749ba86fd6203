"""tools/rocm_library_targets.py on small rocBLAS- and RCCL-like git histories: each CMake form a release used."""

from __future__ import annotations

import subprocess
from pathlib import Path

from packaging.version import Version

from tools import rocm_library_targets as tool

# rocBLAS 3.x: one list, and a menu (set_property ... STRINGS) that is not the build
ROCBLAS_3 = """set_property( CACHE Tensile_ARCHITECTURE PROPERTY STRINGS all gfx803 gfx900 gfx1011 )
if( NOT AMDGPU_TARGETS )
    set( gpus "gfx803;gfx900;gfx906;gfx908")
endif()
"""
# rocBLAS 4.3-5.3: the target-ID list with its older-compiler fallbacks (subsets)
ROCBLAS_43 = """# a comment naming gfx1100 is not read
rocm_check_target_ids(DEFAULT_AMDGPU_TARGETS
      TARGETS "gfx803;gfx900;gfx906:xnack-;gfx908:xnack-;gfx90a:xnack+;gfx90a:xnack-;gfx1030")
if (NOT target_ids_supported)
    set(target_list "gfx803;gfx900;gfx906;gfx908")
endif()
"""
# rocBLAS 5.4 on: one list per ROCm series, the release's own chosen
ROCBLAS_56 = """set( TARGET_LIST_ROCM_5.6 "gfx803;gfx900;gfx1030;gfx1100")
set( TARGET_LIST_ROCM_5.7 "gfx803;gfx900;gfx942;gfx1030;gfx1100")
set( TARGET_LIST_ROCM_6.0 "gfx900;gfx942;gfx1030;gfx1100")
if(ROCM_PLATFORM_VERSION VERSION_LESS 5.7)
    set(SUPPORTED_TARGETS "${TARGET_LIST_ROCM_5.6}")
endif()
"""
# RCCL 5.7 on: a multi-line list
RCCL_57 = """set(DEFAULT_GPUS
      gfx803
      gfx90a:xnack-
      gfx90a:xnack+
      gfx942)
set(AMDGPU_TARGETS ${DEFAULT_GPUS} CACHE STRING "...")
"""
VERSION_MK = "NCCL_MAJOR   := 2\nNCCL_MINOR   := {minor}\nNCCL_PATCH   := {patch}\n"


def _repo(tmp_path: Path, name: str, tags: list[tuple[str, dict[str, str]]]) -> Path:
    repo = tmp_path / name
    repo.mkdir()
    run = lambda *args: subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("config", "user.email", "t@example.com")
    run("config", "user.name", "t")
    for tag, files in tags:
        for path, text in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text, encoding="utf-8")
        run("add", "-A")
        run("commit", "-q", "--allow-empty", "-m", tag)
        run("tag", tag)
    return repo


def test_each_cmake_form_gives_the_release_s_default_list() -> None:
    assert tool.default_targets(ROCBLAS_3, Version("3.5")) == ["gfx803", "gfx900", "gfx906", "gfx908"]
    assert tool.default_targets(ROCBLAS_43, Version("4.3")) == [
        "gfx803",
        "gfx900",
        "gfx906",
        "gfx908",
        "gfx90a",
        "gfx1030",
    ]
    # the newest per-series list not newer than the release
    assert tool.default_targets(ROCBLAS_56, Version("5.7")) == ["gfx803", "gfx900", "gfx942", "gfx1030", "gfx1100"]
    assert tool.default_targets(ROCBLAS_56, Version("6.2")) == ["gfx900", "gfx942", "gfx1030", "gfx1100"]
    assert tool.default_targets(ROCBLAS_56, Version("5.5")) == []  # no list for it: nothing claimed
    assert tool.default_targets(RCCL_57, Version("5.7")) == ["gfx803", "gfx90a", "gfx942"]


def test_rows_per_series_from_the_tags(tmp_path: Path) -> None:
    rocblas = _repo(
        tmp_path,
        "rocBLAS",
        [
            ("rocm-3.5.0", {"CMakeLists.txt": ROCBLAS_3}),
            ("rocm-4.3.0", {"CMakeLists.txt": ROCBLAS_43}),
            # a patch release adding a processor: the series' row is the union
            ("rocm-4.3.1", {"CMakeLists.txt": ROCBLAS_43.replace(";gfx1030", ";gfx1030;gfx1031")}),
            ("not-a-release", {"CMakeLists.txt": RCCL_57}),
        ],
    )
    rccl = _repo(
        tmp_path,
        "rccl",
        [
            ("rocm-5.7.0", {"CMakeLists.txt": RCCL_57, "makefiles/version.mk": VERSION_MK.format(minor=17, patch=1)}),
            ("rocm-5.7.1", {"makefiles/version.mk": VERSION_MK.format(minor=17, patch=1)}),
            ("rocm-6.0.0", {"makefiles/version.mk": VERSION_MK.format(minor=18, patch=3)}),
        ],
    )
    data = tool.generate({"rocblas": rocblas, "rccl": rccl})
    rows = data["libraries"]["rocblas"]["series"]  # type: ignore[index]
    assert list(rows) == ["3.5", "4.3"]
    assert rows["4.3"]["targets"][-2:] == ["gfx1030", "gfx1031"] and rows["4.3"]["tags"] == ["rocm-4.3.0", "rocm-4.3.1"]
    assert len(rows["3.5"]["commit"]) == 40
    rccl_data = data["libraries"]["rccl"]  # type: ignore[index]
    assert list(rccl_data["series"]) == ["5.7", "6.0"] and rccl_data["repository"] == "ROCm/rccl"
    # the version file names each RCCL release's first series
    assert rccl_data["releases"] == {"2.17.1": "5.7", "2.18.3": "6.0"}
