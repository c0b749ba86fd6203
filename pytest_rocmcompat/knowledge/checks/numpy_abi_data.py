"""The first release of each compiled package whose wheels are built against NumPy 2.

NumPy 2.0 broke the ABI: an extension built against NumPy 1.x fails to import beside NumPy 2,
while one built against 2.0 runs on both (numpy/numpy#26191, NumPy's own tracking table, and
``doc/source/dev/depending_on_numpy.rst``). Each row: the distributions (one release line under
several names), the first release built against NumPy 2, and the source that says so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FirstNumpy2:
    dists: tuple[str, ...]  # PEP 503 names
    first: str  # the first release whose wheels are built against NumPy 2
    source: str


_OPENCV = ("opencv-python", "opencv-python-headless", "opencv-contrib-python", "opencv-contrib-python-headless")

FIRST_NUMPY2: tuple[FirstNumpy2, ...] = (
    # "This out-of-band release aims to support NumPy 2.0.0"
    FirstNumpy2(
        ("scipy",), "1.13.0", "https://github.com/scipy/scipy/blob/v1.13.0/doc/source/release/1.13.0-notes.rst"
    ),
    # "Pandas 2.2.2 is now compatible with numpy 2.0"
    FirstNumpy2(
        ("pandas",),
        "2.2.2",
        "https://pandas.pydata.org/docs/whatsnew/v2.2.2.html#pandas-2-2-2-is-now-compatible-with-numpy-2-0",
    ),
    # "This release only includes support for numpy 2."
    FirstNumpy2(("scikit-learn",), "1.4.2", "https://github.com/scikit-learn/scikit-learn/releases/tag/1.4.2"),
    # "Enable building against numpy 2.0; released wheels are built against numpy 2"
    FirstNumpy2(("matplotlib",), "3.8.4", "https://github.com/matplotlib/matplotlib/releases/tag/v3.8.4"),
    # matplotlib's compiled dependency: "ContourPy 1.2.1 already supports NumPy 2.0"
    FirstNumpy2(("contourpy",), "1.2.1", "https://github.com/contourpy/contourpy/issues/378"),
    # 4.10.0.84: "NumPy 2.0 support in pre-built OpenCV packages for Python 3.9+"; 4.10.0.82
    # ("Experimental NumPy 2.0 support") still fails beside NumPy 2.0 (opencv/opencv#25772)
    FirstNumpy2(_OPENCV, "4.10.0.84", "https://github.com/opencv/opencv-python/releases/tag/84"),
    # "Numba now has binary support for NumPy 2.0"; before it, numba refuses NumPy 2 itself
    FirstNumpy2(
        ("numba",), "0.60.0", "https://github.com/numba/numba/blob/0.60.0/docs/source/release/0.60.0-notes.rst"
    ),
    # "h5py is now compatible with Numpy 2.0"
    FirstNumpy2(("h5py",), "3.11.0", "https://github.com/h5py/h5py/blob/3.11.0/docs/whatsnew/3.11.rst"),
    # "[Python] Compatibility with NumPy 2.0" (GH-39532) in 16.0.0; 15.x wheels pinned numpy<2 (GH-39537)
    FirstNumpy2(("pyarrow",), "16.0.0", "https://github.com/apache/arrow/issues/39532"),
    # 1.18 fails to import beside NumPy 2.0; "onnxruntime>=1.19.0 ... is compatible with numpy>=2.0.0"
    FirstNumpy2(("onnxruntime", "onnxruntime-gpu"), "1.19.0", "https://github.com/microsoft/onnxruntime/issues/21063"),
    # "TensorFlow now supports and is compiled with NumPy 2.0 by default."
    FirstNumpy2(
        ("tensorflow", "tensorflow-cpu"), "2.18.0", "https://github.com/tensorflow/tensorflow/releases/tag/v2.18.0"
    ),
    # "JAX released 0.4.26 on pypi, which is compatible with" NumPy 2 (built against 2.0.0rc1)
    FirstNumpy2(("jaxlib",), "0.4.26", "https://github.com/numpy/numpy/issues/26191"),
    # pandas' optional accelerator: "Support for NumPy 2.0.0" in 2.10.0, whose build requires
    # numpy>=2.0.0rc1 (2.9.0: oldest-supported-numpy)
    FirstNumpy2(("numexpr",), "2.10.0", "https://github.com/pydata/numexpr/blob/v2.10.0/RELEASE_NOTES.rst"),
    # "This release brings compatibility with NumPy 2.0.0."
    FirstNumpy2(("statsmodels",), "0.14.2", "https://www.statsmodels.org/stable/release/version0.14.2.html"),
)

BY_DIST: dict[str, FirstNumpy2] = {dist: row for row in FIRST_NUMPY2 for dist in row.dists}
