"""``rocm-visible-devices``: ROCm's two visibility filters, set so that they leave no such device.

On ROCm, ``ROCR_VISIBLE_DEVICES`` filters the GPUs first (the ROCm runtime, every application)
and ``HIP_VISIBLE_DEVICES`` (else ``CUDA_VISIBLE_DEVICES``) then select among the ones it left (HIP),
counting from 0 within them (ROCm *GPU isolation techniques*; torch's ``_parse_visible_devices``:
"The ROCR env var is processed first which then reduces the number of GPUs that HIP can select
from"). Both set is fine when the HIP list fits; it is a problem when it lists more entries than
ROCR exposes (torch raises "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES")
or names an index past them (``ROCR_VISIBLE_DEVICES=2`` with ``HIP_VISIBLE_DEVICES=2``: the one
GPU ROCR left is HIP's 0, index 2 is no device). Read from the probed (or recorded, or
``--rocm-set env.NAME=...``) environment; UUIDs are compared by count only.

For a stack that lists ``ray`` (read in each release's ``ray/_private/accelerators/amd_gpu.py`` and
``thirdparty/pyamdsmi``, PyPI wheels 2.10.0-2.60.0), two findings reach the tests that ``uses("ray")``,
each claiming only Ray's own messages (``matrices/known_bad.yaml`` holds Ray's ROCR_VISIBLE_DEVICES
refusals and verl's NOSET variables):

* the HIP/CUDA pair Ray refuses on ``import ray`` (``Worker()`` reads the visible ids at import):
  2.45.0-2.47.1 assert the two are equal when ``CUDA_VISIBLE_DEVICES`` is non-empty (after raising on
  any ``ROCR_VISIBLE_DEVICES``); 2.48.0 raises whenever both are set, equal or not (``cuda_val :=
  ... is not None`` binds a bool: fixed by the parentheses of 2.49.0); 2.49.0-2.56.x raise when both are
  set and differ ("Inconsistant" up to 2.51, "Inconsistent" from 2.52); 2.57.0 reads only HIP's.
  Only where Ray picks its AMD manager, i.e. counts AMD GPUs (``accelerators/__init__.py``);
* Ray >= 2.56.0 counts AMD GPUs through the ``amdsmi`` Python package (ray#62393), which Ray does not
  require: without it the count is 0, Ray falls back to its NVIDIA manager and GPU tasks stay
  infeasible ("No available node types can fulfill resource request ..."). A risk: a Ray test that asks
  for no GPU passes;
* Ray before 2.10.0 has no AMD manager at all (ray#42026 added it): it counts GPUs through NVML only, so
  on ROCm it sees 0 unless started with ``num_gpus``, and GPU tasks meet the same refusals (the raylet's
  and autoscaler's "cannot be scheduled right now", vLLM's placement-group errors). A risk too.

A stack that is no live probe (a ``--rocm-set`` replay, a recording, ``rocmcompat check``) that lists ``ray``
2.10.0-2.60.x on ROCm but states none of the visibility variables (``ROCR_/HIP_/CUDA_VISIBLE_DEVICES``,
``RAY_EXPERIMENTAL_NOSET_*``, not even unset with ``env.NAME=``) and carries none of a machine's (any of a
recording's or replayed machine's variables makes the environment known) leaves Ray's
environment-dependent refusals open: a risk (*uncertain*) per release range, reaching ``uses("ray")``
tests and claiming only that range's own texts. 2.10.0-2.44.x set ``ROCR_VISIBLE_DEVICES`` per GPU
task/actor (unless ``RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES``): a ``HIP_VISIBLE_DEVICES`` listing
more devices then makes torch >= 2.6 raise (``_parse_visible_devices`` has the check from 2.6.0, read in
the 2.0.0-2.6.0 wheels), so a stated torch < 2.6 gets no risk; 2.45.0-2.47.1 refuse any
``ROCR_VISIBLE_DEVICES`` and assert the HIP/CUDA pair; 2.48.0-2.56.x refuse ``ROCR_VISIBLE_DEVICES``
without ``HIP_VISIBLE_DEVICES`` and raise on the pair; 2.57.0-2.60.x refuse only the former. Not where
Ray >= 2.56 lacks amdsmi (it then never reads the AMD variables).
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys
from pytest_rocmcompat.stack.versions import coerce_version

ID = "rocm-visible-devices"
ROCR = "ROCR_VISIBLE_DEVICES"
HIP_VARS = ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
SOURCE = "https://rocm.docs.amd.com/en/docs-6.1.2/conceptual/gpu-isolation.html"
# torch's own check and comment (torch/cuda/__init__.py, _parse_visible_devices)
SOURCE_TORCH = "https://github.com/pytorch/pytorch/blob/17e3b6a97af175f377f42b52cf20d4c758a432a9/torch/cuda/__init__.py"
# torch's refusal (torch >= 2.6, SOURCE_TORCH), also what Ray < 2.45's per-worker ROCR_VISIBLE_DEVICES meets
TORCH_ROCR_PREDICTS = r"HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES"
# torch's refusal, torch's "No CUDA GPUs are available" hipified, and HIP's (ROCm/clr rocm-6.2.0
# hipamd/src/hip_error.cpp) no-device and bad-ordinal errors.
PREDICTS = (
    TORCH_ROCR_PREDICTS + r"|No HIP GPUs are available|no ROCm-capable device is detected|hipErrorNoDevice"
    r"|invalid device ordinal|hipErrorInvalidDevice\b"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    # Ray reads the HIP/CUDA variables only through its AMD manager, chosen where it counts AMD GPUs
    # Ray before its AMD manager, or >= 2.56 without amdsmi, counts no AMD GPU and reads no AMD variable
    uncounted = _ray_uncounted(env)
    pair, unstated = (_ray_pair(env), _ray_unstated(env)) if uncounted is None else (None, None)
    found = (_filters(env), pair, uncounted, unstated)
    return [f for f in found if f is not None]


def _filters(env: Environment) -> Finding | None:
    """A HIP list that selects no device among the ones ``ROCR_VISIBLE_DEVICES`` exposes."""
    rocr = _entries(env.env.get(ROCR))
    if not rocr:
        return None
    # HIP_VISIBLE_DEVICES wins where both are set (torch's parse; the runtime reads either)
    name = next((n for n in HIP_VARS if _entries(env.env.get(n))), None)
    problem = _problem(name, _entries(env.env.get(name)), len(rocr)) if name else None
    if problem is None:
        return None
    return Finding(
        check=ID,
        reason=problem,
        fix=f"set only {ROCR} (AMD's recommendation on Linux), or give HIP_VISIBLE_DEVICES indices "
        f"counted within the devices {ROCR} exposes (0..n-1)",
        link=SOURCE_TORCH if " lists " in problem else SOURCE,
        markers=("gpus",),
        nodeids=GPU_SUITE,
    )


def _problem(name: str, ids: list[str], exposed: int) -> str | None:
    """Why ``name``'s list selects no such device among the ``exposed`` ones ROCR left, or ``None``."""
    if not ids:
        return None
    if len(ids) > exposed:
        return f"{name} lists {len(ids)} devices but {ROCR} exposes only {exposed}"
    beyond = [i for i in ids if i.isdigit() and int(i) >= exposed]
    if beyond:
        return (
            f"{name}={','.join(ids)} names index {', '.join(beyond)}, but HIP counts within the {exposed} "
            f"device(s) {ROCR} exposes (0..{exposed - 1})"
        )
    return None


def _entries(value: str | None) -> list[str]:
    """The comma-separated entries of a visibility variable (``[]``: unset or empty)."""
    if value is None or not value.strip():
        return []
    return [part.strip() for part in value.split(",")]


# ---------------------------------------------------------------- Ray on ROCm
RAY_SOURCE = "https://github.com/ray-project/ray/blob/ray-{}/python/ray/_private/accelerators/amd_gpu.py"
# ray#53531 made HIP and CUDA a pair (first in 2.48.0); ray#62393 moved AMD GPU counting onto the
# amdsmi package (first in 2.56.0): its shim raises "amdsmi package is not installed", and
# AMDGPUAcceleratorManager.get_current_node_num_accelerators swallows it and returns 0
RAY_PAIR_PR = "https://github.com/ray-project/ray/pull/53531"
RAY_AMDSMI_PR = "https://github.com/ray-project/ray/pull/62393"
RAY_AMDSMI_SOURCE = (
    "https://github.com/ray-project/ray/blob/ray-2.56.0/python/ray/_private/thirdparty/pyamdsmi/pyamdsmi.py"
)
# Ray's own texts: the assert (2.45.0-2.47.1) and ValueError (2.48.0-2.56.x), both spellings; the
# autoscaler's infeasible-request error (autoscaler/_private/autoscaler.py, "request {}", a dict or a
# defaultdict) and its v2 log (autoscaler/v2/event_logger.py, "requests {...}*n"), a GPU request only.
_RAY_PAIR = r"{} values found\. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES"
RAY_PAIR_PREDICTS = _RAY_PAIR.format("Inconsist[ae]nt")
# The Ray releases whose amd_gpu.py changed what it reads or refuses (read in the wheels)
RAY_HIP = Version("2.45.0")  # ROCR_VISIBLE_DEVICES refused; HIP/CUDA asserted equal
RAY_PAIR_RAISES = Version("2.48.0")  # ValueError for any HIP/CUDA pair
RAY_PAIR_DIFFERS = Version("2.49.0")  # ... only for a pair that differs
RAY_SPELLED = Version("2.52.0")  # "Inconsistant" -> "Inconsistent"
RAY_AMDSMI = Version("2.56.0")  # AMD GPUs counted through the amdsmi package
# ray#42026 (AMDGPUAcceleratorManager, first in 2.10.0): before it the managers are NVIDIA's (NVML), Intel's,
# TPU, Neuron, HPU and NPU (ray/_private/accelerators/__init__.py of the 2.9.3 wheel), and GPU resources fall
# back to NVIDIA's manager
RAY_AMD = Version("2.10.0")
RAY_BEFORE_AMD_SOURCE = "https://github.com/ray-project/ray/blob/ray-2.9.3/python/ray/_private/accelerators/__init__.py"
RAY_AMD_PR = "https://github.com/ray-project/ray/pull/42026"
RAY_HIP_ONLY = Version("2.57.0")  # only HIP_VISIBLE_DEVICES read
# Twenty-third round, what a GPU request meets where Ray counts no GPU, each naming the GPU: the autoscaler's
# pending warning (autoscaler/_private/autoscaler.py at ray-2.9.3, "The following resource request cannot be
# scheduled right now: {}"); the raylet's warning, as 1.9-1.x ("Required resources for this actor or task:
# {GPU: 1.000000}", ray-project/ray#21097) and 2.x print it (the ray-2.9.3 wheel's raylet binary: "... cannot be
# scheduled right now. It requires {GPU: 1.000000} for placement"); and vLLM's Ray executor on a placement group
# without the GPUs (vllm/executor/ray_utils.py: "The number of required GPUs exceeds the total number of available
# GPUs in the placement group", "in the cluster" before 0.4; "Current node has no GPU available"; "Ray does not
# allocate any GPUs on the driver node"; from 0.11 its warning "Tensor parallel size (N) exceeds available GPUs
# (0)", only for a count of 0).
_GPU_AMONG = r"(?:\{[^{}\n]{1,120}\}, ){0,8}\{GPU(?:_group_\w+)?: \d"  # {CPU: 1.000000}, {GPU: 1.000000}
RAY_NO_GPU_PREDICTS = (
    r"No available node types can fulfill resource requests? (?:defaultdict\(<class 'float'>, )?\{[^{}]*'GPU'"
    r"|The following resource request cannot be scheduled right now: (?:defaultdict\(<class 'float'>, )?\{[^{}]*'GPU'"
    rf"|cannot be scheduled right now\. It requires {_GPU_AMONG}|Required resources for this actor or task: {_GPU_AMONG}"
    r"|The number of required GPUs exceeds the total number of available GPUs in the (?:placement group|cluster)"
    r"|Current node has no GPU available|Ray does not allocate any GPUs on the driver node"
    r"|Tensor parallel size \(\d+\) exceeds available GPUs \(0\)"
)
_CUDA = "CUDA_VISIBLE_DEVICES"
_HIP = "HIP_VISIBLE_DEVICES"


def _ray_pair(env: Environment) -> Finding | None:
    """``HIP_VISIBLE_DEVICES`` and ``CUDA_VISIBLE_DEVICES`` set so that ``import ray`` raises."""
    ray = coerce_version(env.libraries.get("ray"))
    if ray is None:
        return None
    problem = _ray_pair_problem(ray, env.env)
    if problem is None:
        return None
    reason, tag = problem
    return Finding(
        check=ID,
        reason=f"ray {env.libraries['ray']} on ROCm: {reason}",
        fix=f"set {_HIP} and {_CUDA} to the same value, or unset {_CUDA} (Ray 2.57+ reads only {_HIP})"
        + ("; Ray 2.48.0 refuses any pair: use ray >=2.49" if tag == "2.48.0" else ""),
        link=RAY_SOURCE.format(tag),
        uses=("ray",),
        predicts=RAY_PAIR_PREDICTS,
        signature_only=True,
    )


def _ray_pair_problem(ray: Version, variables: dict[str, str]) -> tuple[str, str] | None:
    """What Ray ``ray`` raises on the variables, and the release tag whose source shows it, or ``None``.

    Only the cases that ``matrices/known_bad.yaml`` does not hold (a set ROCR_VISIBLE_DEVICES without
    HIP's, and 2.45.0-2.47.1 with CUDA's alone, are rules there).
    """
    hip, cuda = variables.get(_HIP), variables.get(_CUDA)
    if hip is None or cuda is None:
        return None
    both = f"{_HIP}={hip!r} and {_CUDA}={cuda!r}"
    if RAY_HIP <= ray < RAY_PAIR_RAISES:
        # 2.45.0-2.47.1 raise on ROCR first (a rule); the assert needs a non-empty CUDA list
        if ROCR in variables or not cuda or hip == cuda:
            return None
        return f"{both} differ, and 'import ray' asserts they are equal (AssertionError)", "2.47.1"
    if RAY_PAIR_RAISES <= ray < RAY_PAIR_DIFFERS:
        return f"{both} are both set, and 2.48.0 raises ValueError for any such pair, equal or not", "2.48.0"
    if RAY_PAIR_DIFFERS <= ray < RAY_HIP_ONLY and hip != cuda:
        return f"{both} differ, and 'import ray' raises ValueError", "2.56.0"
    return None


def _ray_uncounted(env: Environment) -> Finding | None:
    """Ray counting no AMD GPU: before its AMD manager (2.10.0), or >= 2.56.0 without the ``amdsmi`` package."""
    ray = coerce_version(env.libraries.get("ray"))
    if ray is None:
        return None
    if Version(ray.base_version) < RAY_AMD:  # 2.10.0rc1 is 2.10's code
        why = (
            "predates Ray's AMD GPU support (2.10.0): it counts GPUs only through NVIDIA's NVML, so on ROCm it sees "
            "0 GPUs unless told how many, and tasks and actors asking for GPUs cannot be scheduled"
        )
        fix = (
            "use ray >=2.10 (it counts AMD GPUs and sets the AMD visibility variable per task), or start Ray with "
            "num_gpus=N (ray start --num-gpus N)"
        )
        link = RAY_BEFORE_AMD_SOURCE
    elif ray >= RAY_AMDSMI and "amdsmi" not in env.libraries:
        why = (
            "counts AMD GPUs only through the amdsmi Python package, which the stack does not list (Ray does not "
            "require it): without it Ray sees 0 GPUs, so tasks and actors asking for GPUs cannot be scheduled"
        )
        fix = "install the amdsmi Python package of the stack's ROCm release (Ray's hint: pip install amdsmi)"
        link = RAY_AMDSMI_SOURCE
    else:
        return None
    return Finding(
        check=ID,
        reason=f"ray {env.libraries['ray']} {why}",
        fix=fix,
        link=link,
        uses=("ray",),
        predicts=RAY_NO_GPU_PREDICTS,
        signature_only=True,
        # a Ray test that asks for no GPU passes (and, before 2.10, one whose Ray was started with num_gpus=N)
        uncertain=True,
    )


# ---------------------------------------------------------------- Ray on ROCm, the variables unstated
_NOSET = "RAY_EXPERIMENTAL_NOSET_"
_RAY_READ = (RAY_AMD, Version("2.61.0"))  # the releases whose amd_gpu.py was read (2.10.0-2.60.0)
# Ray's refusal of ROCR_VISIBLE_DEVICES (2.45.0 on), in every release's amd_gpu.py
RAY_ROCR_PREDICTS = r"Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES"
# torch's own refusal, TORCH_ROCR_PREDICTS (SOURCE_TORCH; pytorch#142292, first in torch 2.6.0's
# torch/cuda/__init__.py: not in the 2.0.0-2.5.0 wheels, in 2.6.0, 2.7.0, 2.9.0, 2.11.0 and 2.13.0)
TORCH_ROCR_FROM = Version("2.6.0")


def visibility_unstated(env: Environment) -> bool:
    """Whether ``env`` is a stack that is no live probe (a replay, a recording, ``rocmcompat check``) and says
    nothing of the visibility variables: none stated (set or unset), and none of a machine's carried along
    (a recording's or a replayed machine's variables, any of them present, make the environment known).
    """
    stated = stated_keys(env)
    if env.source == "live" or any(_visibility(key[4:]) for key in stated if key.startswith("env.")):
        return False
    return not any(_visibility(name) or f"env.{name}" not in stated for name in env.env)


def _visibility(name: str) -> bool:
    return name == ROCR or name in HIP_VARS or name.startswith(_NOSET)


def _ray_unstated(env: Environment) -> Finding | None:
    """What Ray at the stack's release refuses on ROCm, where the stack does not state the variables."""
    ray, torch = coerce_version(env.libraries.get("ray")), env.torch_version
    if ray is None or not _RAY_READ[0] <= ray < _RAY_READ[1] or not visibility_unstated(env):
        return None
    judged = _unstated_problem(ray, torch)
    if judged is None:
        return None
    reason, fix, tag, predicts = judged
    return Finding(
        check=ID,
        reason=f"ray {env.libraries['ray']} on ROCm: {reason}; the stack states none of {ROCR}, {_HIP}, "
        f"{_CUDA}, {_NOSET}*",
        fix=f"{fix}; or state the variables (env.NAME=VALUE, empty for unset, through --rocm-set or rocmcompat check "
        "--set) to have them judged",
        link=RAY_SOURCE.format(tag),
        uses=("ray",),
        predicts=predicts,
        signature_only=True,
        uncertain=True,  # only where the run's environment sets what Ray refuses
    )


def _unstated_problem(ray: Version, torch: Version | None) -> tuple[str, str, str, str] | None:
    """``(reason, fix, release tag read, predicted texts)`` for Ray ``ray`` in an unknown environment (from
    2.45 Ray's own refusal on ``import ray``, whatever runs on its GPUs; before, torch's, so a torch must
    be stated).
    """
    if ray < RAY_HIP:
        return _ray_sets_rocr(torch) if torch is not None else None
    rocr_fix = f"unset {ROCR} before 'ray start'/'import ray' and select GPUs with {_HIP}"
    pair = _RAY_PAIR.format("Inconsistent" if ray >= RAY_SPELLED else "Inconsistant")
    if ray < RAY_PAIR_RAISES:
        return (
            f"'import ray' raises RuntimeError whenever {ROCR} is set (even beside {_HIP}), and asserts {_HIP} "
            f"equals a non-empty {_CUDA}",
            f"{rocr_fix}; set {_CUDA} only equal to {_HIP}; or use ray >=2.48",
            "2.47.1",
            f"{RAY_ROCR_PREDICTS}|{pair}",
        )
    if ray < RAY_HIP_ONLY:
        which = "any such pair, equal or not" if ray < RAY_PAIR_DIFFERS else "a pair that differs"
        return (
            f"'import ray' raises RuntimeError where {ROCR} is set without {_HIP}, and ValueError where {_HIP} "
            f"and {_CUDA} are both set ({which})",
            f"{rocr_fix}; do not set {_CUDA} beside {_HIP}",
            "2.48.0" if ray < RAY_PAIR_DIFFERS else "2.51.2" if ray < RAY_SPELLED else "2.56.0",
            f"{RAY_ROCR_PREDICTS}|{pair}",
        )
    return (
        f"'import ray' raises RuntimeError where {ROCR} is set without {_HIP} (2.57+ reads only {_HIP})",
        rocr_fix,
        "2.60.0",
        RAY_ROCR_PREDICTS,
    )


def _ray_sets_rocr(torch: Version) -> tuple[str, str, str, str] | None:
    """Ray 2.10.0-2.44.x: its per-worker ``ROCR_VISIBLE_DEVICES`` beside a longer HIP list, refused by torch 2.6+."""
    if torch < TORCH_ROCR_FROM:
        return None  # torch before 2.6 has no such check: no text of its own to confirm the risk
    return (
        f"Ray sets {ROCR} to each GPU task's and actor's GPUs (unless {_NOSET}ROCR_VISIBLE_DEVICES is set), "
        f"so a {_HIP} the worker inherits or the application sets that lists more devices makes torch "
        "(2.6+) raise 'HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES'",
        f"leave {_HIP} unset in Ray workers, or set {_NOSET}ROCR_VISIBLE_DEVICES=1 where the application "
        "selects the GPUs itself",
        "2.44.1",
        TORCH_ROCR_PREDICTS,
    )
