"""``requirement-not-met``: an installed stack package's declared requirement on another is not met.

The ``pip check`` idea, limited to the GPU stack the probe records: ``Requires-Dist`` from
the installed metadata (``Environment.requires``), which always wins when recorded, else what
the release declared on PyPI (:func:`declared_pins.declared_requires_all`, whose docstring
states the policies: torch pins reduced to their series for non-vLLM packages, torch's own
Triton pin exact and its ``nvidia-*`` pins as "same major, not older", both for a CUDA torch
only, requirements between libraries as declared), else the sourced tables of :mod:`requirement_tables` for
releases the data cannot answer. Local version tags count as pip counts them: ``torch==2.5.1``
is met by ``2.5.1+rocm6.2``. Extras are left out; markers are evaluated for the stack's Python
and OS, Linux x86_64 where the stack names no OS (as :mod:`derived_facts` assumes). Only
requirements on packages present in the stack are checked; in a ``--rocm-set`` replay, on
packages the replay named (or torch). Each pair is reported with its source. A pair reaches the
tests that use either package, except torch's Triton pin, which reaches the tests that meet Inductor only
(torch.compile's; a library's that compiles by default as a risk: ``dynamo_gate.inductor_frameworks``), as does PyPI's ``triton`` installed beside the ROCm Triton an official ``+rocm``
torch pins, at another version (both install the ``triton`` module: :func:`_pypi_triton_for_rocm_torch`, also where PyPI's is the only Triton named).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import nightly_triton
from pytest_rocmcompat.knowledge.checks.arch import untagged_rocm_release
from pytest_rocmcompat.knowledge.checks.dynamo_gate import (
    COMPILE_TESTS,
    COMPILE_USES,
    INDUCTOR_BY_DEFAULT,
    inductor_frameworks,
)
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.requirement_tables import (
    RUNTIME_MINIMUMS,
    RuntimeRow,
    domain_pairing,
    runtime_minimums,
)
from pytest_rocmcompat.knowledge.declared_data import LINUX_X86_64
from pytest_rocmcompat.knowledge.declared_pins import TRITON, declared_requires_all
from pytest_rocmcompat.knowledge.torch_rocm_triton import release_rocm_triton_pin, rocm_triton_pin
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.overrides import replay_names
from pytest_rocmcompat.stack.versions import coerce_version, specifier_contains

ID = "requirement-not-met"
SOURCE = "https://pip.pypa.io/en/stable/cli/pip_check/"
# torchvision's import failing in its fake-kernel registration, at module level (a meta kernel's own check under
# FakeTensor fails inside a function of the same file: not this) (see OWN_MESSAGES)
TORCHVISION_META_FRAME = r'[\\/]torchvision[\\/]_meta_registrations\.py", line \d+, in <module>'
# A package next to a version of its dependency it does not accept: pip's resolver says so, a
# compiled part fails to load (undefined symbols, xFormers' and torchvision's own messages), or
# it calls an API the installed dependency does not have (too old) or no longer has (too new).
PREDICTS = (
    # pip before 20.3 said "but you'll have" (pytorch/pytorch#29530, pytorch/vision#2098)
    r"requires [^\n]{1,200}?, but you have |has requirement [^\n]{1,200}?, but you(?:'ll)? have "
    # torch.ops' missing op (torch < 2.0 named no namespace: "'_OpNamespace' object has no attribute", pytorch/vision#7146)
    r"|undefined symbol: |'_OpNamespace' (?:'\w+' )?object has no attribute|xFormers can't load C\+\+/CUDA extensions"
    r"|operator torchvision::\w+ does not exist|No such operator torchvision::\w+|Couldn['’]t load custom C\+\+ ops"
    r"|cannot import name '\w+' from 'torch[\w.]*'|module 'torch[\w.]*' has no attribute '\w+'"
    r"|Disabling PyTorch because PyTorch >= ?\S+ is required"
    # transformers' model classes once it disabled torch (utils/import_utils.py ``requires_backends``)
    r"|requires the PyTorch library but it was not found in your environment"
    # an extension (DeepSpeed's JIT ops) built with an older C++ standard than the torch headers need
    r"|C\+\+(?:17|20) or later compatible compiler is required to use (?:PyTorch|ATen)|You need C\+\+(?:17|20) to compile PyTorch"
    r"|Detected that PyTorch and (?:torchvision|TorchAudio) were compiled with different CUDA (?:major )?versions"
    # macOS dlopen's twin of "undefined symbol" (pytorch/audio#307, pytorch/text#1988)
    r"|Symbol not found: _\w+"
    # conda's classic solver on a pinned pair (quark0/darts#9, pytorch/pytorch#77463); not its Python conflicts
    r"|specifications were found\s+to be (?:in conflict|incompatible with each other)"
    r"|No module named 'torch\.[\w.]+'"  # torch._six (removed in 2.0) among them
    r"|because these package versions have conflicting dependencies|ResolutionImpossible"
    r"|lib(?:torch|c10)\w*\.so[\w.]*: cannot open shared object file|The specified procedure could not be found"
    # the resolvers' own conflict reports: pip (pypa/pip#13588), uv, conda/mamba (libmamba's solver),
    # Poetry; and an extension op built without the GPU half (torchvision's csrc before 0.5)
    r"|The conflict is caused by:|your requirements are unsatisfiable|No solution found when resolving dependencies"
    r"|Could not solve for environment specs|none of the providers can be installed|version solving failed"
    r"|Not compiled with GPU support"
    # transformers' run-time version checks (utils/versions.py ``require_version``)
    r"|is required for a normal functioning of this module, but found "
    # pip's ResolutionImpossible causes, one per line (resolvelib/factory.py: "{name} {version} depends
    # on {requirement}", "The user requested {requirement}")
    # and uv's PubGrub report ("Because axolotl==0.10.0 depends on torch==2.6.0 and ...", astral-sh/uv#14178)
    r"|\b(?=[^\n]{0,130} depends on )[A-Za-z0-9][\w.-]{0,80}(?: |==)\d[\w.+!-]{0,40} depends on [A-Za-z0-9]"
    r"|The user requested (?:\(constraint\) )?[A-Za-z0-9]"
    # a library beside a Triton or transformers it was not built for: Inductor's imports of Triton
    # internals (triton_key, AttrsDescriptor, CompiledKernel hooks), peft/TRL importing a transformers API
    r"|cannot import name '\w+' from '(?:triton|transformers|accelerate)(?:\.[\w.]+)?'|type object 'CompiledKernel' has no attribute '\w+'"
    # transformers' own run-time floors (training_args.py Trainer check, utils/peft_utils.py MIN_PEFT_VERSION)
    # and a peft importing a transformers module an older release lacks (huggingface/setfit#625)
    r"|requires `accelerate>=[\d.]+`|The version of PEFT you are using is not compatible"
    r"|No module named 'transformers\.[\w.]+'"
    # twenty-sixth round (test_uv_resolver_texts.py): Poetry's report and exception (pytorch/vision#4819, #4347),
    # conda's classic "Package X conflicts for:" (pytorch/pytorch#77463), PDM's rejected candidate
    # (pdm-project/pdm#2962), libmamba's (conda-forge/pytorch-cpu-feedstock#390)
    r"|Because [\w.-]+ \([^)\n]{1,40}\) depends on [\w.-]+ \(|SolverProblemError|Package \S+ conflicts for:"
    r"|introduces a new requirement \S+ that conflicts|is not installable because there are no viable options"
)


# name [extras] specifier ; marker  (PEP 508 without URLs; anything else is left alone)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;()@]*)\)?\s*(?:;(.*))?$")


def check(env: Environment) -> list[Finding]:
    markers: dict[str, str] = {}  # filled when a requirement on an installed package has a marker
    # (dist, requirement, installed target, source, the failure a run-time row quotes or "", a run-time row)
    broken: list[tuple[str, str, str, str, str, bool]] = []
    snapshot_pairs: list[tuple[str, str, str, str, str, bool]] = []  # a companion built from a commit or snapshot
    installed = installed_packages(env)
    replaced = replay_names(env)
    for dist, version in installed.items():
        if replaced and dist not in replaced:
            continue  # the base machine's package beside a replayed stack: not part of that stack
        seen: dict[str, int] = {}  # a dependency already reported: its place in ``broken``
        # (requirement, source, the failure a run-time row quotes, a run-time row, its comparison)
        declared = [(text, where, "", False, compared) for text, where, compared in _declared(env, dist, version)]
        rows = [
            (r.requirement, r.source, r.message, True, r.compared)
            for r in runtime_minimums(dist, version)
            if _judged(env, r)
        ]
        for text, where, message, runtime, compared in declared + rows:
            problem = _unmet(text, env, markers, replaced, gate="" if compared == SOURCE_BUILT else compared)
            snapshots = compared == PER_BOUND and problem is None  # both snapshots of the series: which torch?
            if snapshots:
                problem = _unmet(text, env, markers, replaced)
            if problem is None:
                continue
            if snapshots or compared == SOURCE_BUILT:  # built against a torch the stack cannot name: a risk
                snapshot_pairs.append((f"{dist} {version}", text, problem, where, message, runtime))
                continue
            target = problem.split()[0]
            if target not in seen:
                seen[target] = len(broken)
                broken.append((f"{dist} {version}", text, problem, where, message, runtime))
            elif message:  # a later row on a dependency already reported: its failure still predicts
                d, r, t, s, m, rt = broken[seen[target]]
                broken[seen[target]] = (d, r, t, s, f"{m}|{message}" if m else message, rt)
    # risks: PyPI's triton beside (or instead of) the ROCm Triton, where the install order decides which owns the
    # module; a ROCm Triton beside a torch named without its build tag, against the official ROCm wheels' pin
    # and a torch nightly beside a Triton of neither its series' release nor the one before (nightly_triton)
    risky = [
        *snapshot_pairs,
        *_pypi_triton_for_rocm_torch(env, markers, replaced),
        *_bare_release_rocm_triton(env, markers, replaced),
        *nightly_triton.mismatches(env, replaced, rocm=rocm_build(env)),
    ]
    return [*_pair_finding(broken, env, markers), *_pair_finding(risky, env, markers, uncertain=True)]


def _pair_finding(
    broken: list[tuple[str, str, str, str, str, bool]],
    env: Environment,
    markers: dict[str, str],
    *,
    uncertain: bool = False,
) -> list[Finding]:
    """One finding naming every broken pair (none when there is none)."""
    if not broken:
        return []
    pairs = "; ".join(
        f"{d} requires {_bare(r)}{_python_assumed(r, env, markers)}, installed {t} ({_cite(s)})"
        for d, r, t, s, *_ in broken
    )
    # a pair reaches the tests of either package (a user's ``uses`` often names the framework, torch, where
    # the failing package is DeepSpeed), also for a run-time row whose failure is the dependent package's own
    uses = tuple(dict.fromkeys(n for d, _, t, *_ in broken for n in _uses(d.split()[0], t.split()[0])))
    sources = [s for *_, s, _, _ in broken if s.startswith("http")]
    return [
        Finding(
            check=ID,
            reason=pairs,
            fix="install versions that agree (pip install the pinned version, or a release of the "
            "dependent package built for the installed one)",
            link=sources[0] if sources else SOURCE,
            uses=uses,
            nodeids=COMPILE_TESTS if set(COMPILE_USES) <= set(uses) else (),
            # the pair's import errors, and the failure each run-time row behind it quotes
            predicts=pair_predicts(n for d, _, t, *_ in broken for n in (d.split()[0], t.split()[0]))
            + "".join(f"|{m}" for m in dict.fromkeys(m for *_, m, _ in broken if m)),
            uncertain=uncertain,
            # an unconfirmed risk claims the pair's own texts only, not every resolver or import failure
            signature_only=uncertain,
        ),
        *_inductor_framework_risk(broken, env),
    ]


# What Inductor meets beside another Triton: its imports of Triton internals and launcher fields (PREDICTS'
# Triton alternatives); the Triton pair's own texts (OWN_MESSAGES' _TRITON) are added where it is used
INDUCTOR_TRITON_IMPORTS = (
    r"cannot import name '\w+' from 'triton(?:\.[\w.]+)?'|No module named 'triton\.[\w.]+'"
    r"|type object 'CompiledKernel' has no attribute '\w+'"
)


def _inductor_framework_risk(broken: list[tuple[str, str, str, str, str, bool]], env: Environment) -> list[Finding]:
    """The pairs only Inductor meets, reaching the tests of a library that compiles with Inductor by default
    (vLLM from 0.8.0: ``dynamo_gate.inductor_frameworks``): a risk (``enforce_eager`` or a V0 engine never meets
    it) claiming only the pairs' own texts (Inductor's Triton imports and launcher fields), never a vLLM build's
    own ``undefined symbol`` or a torch API import error.
    """
    bound = [b for b in broken if _binds_inductor(b[0].split()[0], b[2].split()[0])]
    frameworks = inductor_frameworks(env) if bound else ()
    if not frameworks:
        return []
    pairs = "; ".join(f"{d} requires {_bare(r)}, installed {t} ({_cite(s)})" for d, r, t, s, *_ in bound)
    return [
        Finding(
            check=ID,
            reason=f"{pairs}, met by {', '.join(frameworks)} where it compiles with Inductor (vLLM's default "
            "V1 engine from 0.8.0, unless enforce_eager)",
            fix="install the Triton the installed torch pins",
            link=INDUCTOR_BY_DEFAULT[frameworks[0]][1],
            uses=frameworks,
            predicts=f"{INDUCTOR_TRITON_IMPORTS}|{_TRITON}"
            + "".join(f"|{m}" for m in dict.fromkeys(m for *_, m, _ in bound if m)),
            uncertain=True,
            signature_only=True,
        )
    ]


def unnamed_findings(env: Environment) -> list[Finding]:
    """Findings for the :data:`RUNTIME_MINIMUMS` packages the stack does not name (:func:`_unnamed`).

    Not part of :func:`check`: ``registry.evaluate_risks`` compiles them into rules for a stated stack
    only, never listed as the stack's problems (most stacks that state torch would get one).
    """
    installed = installed_packages(env)
    markers: dict[str, str] = {}
    replaced = replay_names(env)
    return [f for dist in RUNTIME_MINIMUMS if dist not in installed for f in _unnamed(dist, env, markers, replaced)]


def _unnamed(dist: str, env: Environment, markers: dict[str, str], replaced: set[str] | None) -> list[Finding]:
    """A package the stack does not name, some of whose releases cannot run with what it does state.

    Only :data:`RUNTIME_MINIMUMS` rows with a ``message`` count, when the package they require is
    stated and rejected: one uncertain, conditional finding for tests that use ``dist``, whose
    signature is those rows' own messages alone (never :data:`PREDICTS`): the package may be any
    release, so only its known failure confirms the risk. Nothing when the requirement is not stated.
    """
    rows: list[tuple[RuntimeRow, str]] = []
    for row in RUNTIME_MINIMUMS[dist]:
        problem = (
            _unmet(row.requirement, env, markers, replaced, gate=row.compared)
            if row.message and _judged(env, row)
            else None
        )
        if problem is not None:
            rows.append((row, problem))
    if not rows:
        return []
    needs = "; ".join(  # one clause per range and requirement (generated rows come one per imported name)
        dict.fromkeys(
            f"releases {_releases(row)} need {_bare(row.requirement)} (installed {problem.split(' ', 1)[1]})"
            for row, problem in rows
        )
    )
    return [
        Finding(
            check=f"{ID}:{dist}",  # a rule of its own: the named pairs' signature never reaches it
            reason=f"{dist} is not named: {needs}",
            fix=f"where a test uses {dist}, install a release of it outside these ranges (or state its version)",
            link=rows[0][0].source,
            uses=(dist,),
            conditional=True,
            uncertain=True,
            predicts="|".join(dict.fromkeys(row.message for row, _ in rows)),
            signature_only=True,
        )
    ]


def unnamed_dependency_findings(env: Environment) -> list[Finding]:
    """Risks of a named package whose run-time rows need a release of a package the stack does not name.

    The mirror of :func:`unnamed_findings`: ``peft==0.14.0`` stated without transformers imports
    ``EncoderDecoderCache``, which transformers has only from 4.43, so whichever transformers the user had may
    be older. One uncertain, conditional finding per named package, for tests that use it or the unnamed one,
    whose signature is those rows' own messages alone (CPython's text for the exact name and module, or a
    hand row's quoted failure): only that failure confirms it. Like :func:`unnamed_findings`, for a stated
    stack only (``registry.evaluate_risks``).
    """
    installed = installed_packages(env)
    replaced = replay_names(env)
    # a replay's own names (the machine it runs on holds the rest, which the replayed stack need not have had);
    # torch counts wherever there is one, as in _unmet
    named = replaced | ({"torch"} if env.torch else set()) if replaced else set(installed)
    found: list[Finding] = []
    for dist, version in installed.items():
        if dist not in named:
            continue
        rows = [
            (row, name)
            for row in runtime_minimums(dist, version)
            if row.message and _judged(env, row)
            for name in [required_name(row.requirement)]
            if name is not None and name not in named and name != dist
        ]
        if not rows:
            continue
        needs = "; ".join(dict.fromkeys(f"releases {_releases(row)} need {_bare(row.requirement)}" for row, _ in rows))
        unnamed = tuple(dict.fromkeys(name for _, name in rows))
        found.append(
            Finding(
                check=f"{ID}:{dist}:unnamed-dependency",  # a rule of its own, apart from the named pairs
                reason=f"{dist} {version} is named but {', '.join(unnamed)} is not: {needs}",
                fix=f"state (or pin) the {', '.join(unnamed)} release installed beside {dist} {version}, one these "
                "rows accept",
                link=rows[0][0].source,
                uses=tuple(dict.fromkeys((dist, *unnamed))),
                conditional=True,
                uncertain=True,
                predicts="|".join(dict.fromkeys(row.message for row, _ in rows)),
                signature_only=True,
            )
        )
    return found


def installed_packages(env: Environment) -> dict[str, str]:
    """The stack's packages by name, torch's field among them (it wins: it is what ``--rocm-set torch=`` changes)."""
    installed = dict(env.libraries)
    if env.torch:
        installed["torch"] = env.torch
    return installed


def required_name(text: str) -> str | None:
    m = _REQUIREMENT.match(text)
    return normalize_library(m.group(1)) if m is not None else None


def _releases(row: RuntimeRow) -> str:
    """``0.10.1 to <0.14.1`` (``0.18.9 on``): the releases a row covers."""
    return f"{row.since} to <{row.until}" if row.until else f"{row.since} on"


# Import names that are not the distribution name with ``-`` as ``_`` (each package's own top-level module).
IMPORT_NAMES: dict[str, str] = {
    "autoawq": "awq",
    "flashinfer-python": "flashinfer",
    "onnxruntime-gpu": "onnxruntime",
    "open-clip-torch": "open_clip",
    "optimum-quanto": "optimum",
    "pytorch-triton": "triton",
    "pytorch-triton-rocm": "triton",
    "triton-rocm": "triton",
    "triton-windows": "triton",
    "scikit-learn": "sklearn",
    "pillow": "PIL",
}


def import_name(dist: str) -> str:
    """The top-level module a distribution installs (``sentence-transformers`` -> ``sentence_transformers``)."""
    dist = normalize_library(dist)
    return IMPORT_NAMES.get(dist, dist.replace("-", "_"))


def pair_predicts(dists: Iterable[str]) -> str:
    """What a broken pair itself predicts: one package importing from the other what its installed
    release lacks (``cannot import name 'X' from 'transformers.cache_utils'``, ``module 'peft' has no
    attribute 'X'``, ``No module named 'transformers.modeling_layers'``), naming either package.
    """
    dists = sorted({normalize_library(d) for d in dists})
    imports = imports_from(dists)
    if not imports:
        return ""
    return imports + "".join(f"|{OWN_MESSAGES[d]}" for d in dists if d in OWN_MESSAGES)


def imports_from(dists: Iterable[str]) -> str:
    """Code importing from one of ``dists`` what its installed release lacks (``cannot import name 'X' from
    'transformers.cache_utils'``, ``module 'peft' has no attribute 'X'``, ``No module named 'transformers.sub'``).
    """
    names = "|".join(re.escape(n) for n in sorted({import_name(normalize_library(d)) for d in dists}))
    if not names:
        return ""
    module = rf"(?:{names})(?:\.[\w.]+)?"
    return (
        rf"cannot import name '\w+' from '{module}'|module '{module}' has no attribute '\w+'"
        rf"|No module named '(?:{names})\.[\w.]+'"
    )


# What one package itself prints when a pair it belongs to is broken, predicted only for its pairs
# (``pair_predicts``): the per-package half of the signature, so that :data:`PREDICTS` (capped like
# every signature at 2,000 characters) keeps only what any pair may print. Each alternative is
# matched by a message quoted in the tests beside its source (tests/knowledge/test_deepspeed_torch.py,
# test_torchvision_messages.py, test_pair_messages.py, test_companion_messages.py).
_DLL = r"[Tt]he procedure entry point [^\n]{{1,200}}? could not be located in the dynamic link library [^\n]{{0,300}}?{lib}"
# Inductor reading a launcher field the installed Triton moved (metadata.cluster_dims; the CompiledKernel
# hooks are in PREDICTS), torch._inductor.exc.TritonMissing: Inductor's has_triton() refusing it, and
# Inductor's get_first_attr on a Triton without cluster_dims (pytorch/pytorch#117185, a torch main beside
# Triton 2.1: "don't access cluster_dims for too old version of triton", pytorch/pytorch#117192)
_TRITON = (
    r"'KernelMetadata' object has no attribute '\w+'|Cannot find a working triton installation"
    r"|does not has any of the attributes: \('cluster_dims', 'clusterDims'\)"
    # Triton's AMD driver (backends/amd/driver.c, from 3.5) refusing a HIP runtime older than the HIP headers
    # it compiles its launcher with (the wheel's include/hip/hip_version.h: HIP_VERSION_MAJOR 6 in PyPI's 3.5.0):
    # a Triton for ROCm 6 beside a torch that loads ROCm 5's libamdhip64
    r"|libamdhip64 version \d+\.\d+\.\d+ is not supported! Required major version is >=\d+"
)
# the Windows fork, which declares no torch: its README's pairing (declared_pins.TRITON_WINDOWS)
TRITON_FORKS = ("triton-windows",)
OWN_MESSAGES: dict[str, str] = {
    # torch >= 2.6's weights-only ``torch.load`` of a DeepSpeed < 0.16 checkpoint (modelscope/ms-swift#5808;
    # deepspeedai/DeepSpeed#6751), accelerate >= 0.21's DeepSpeed floor (huggingface/accelerate v0.21.0)
    "deepspeed": r"Unsupported global: GLOBAL deepspeed\.[\w.]+|DeepSpeed version must be >= ?\d[\d.]*",
    # torchvision 0.6 registering its ONNX ops on torch 1.4 (pytorch/vision#1827); its fake-kernel registration
    # on a torch that registered one (intel/torch-xpu-ops#1545); the image extension, the ops' dispatch and
    # the circular import a failed extension load leaves; Windows' loader on its _C.pyd / image.pyd; and
    # torchvision 0.17's _meta_registrations (torch._custom_ops.impl_abstract) when its _C did not load, the
    # twin of "operator torchvision::nms does not exist" (torch/_custom_op/impl.py; pytorch/vision#8289);
    # from 0.26 (pytorch/vision#9364) io/image.py's "Couldn't load the image extension" and extension.py's
    # opt-in "Failed to load '_C' extension: ..." (_C_stable, image_stable from 0.29); before it, torch's
    # "No such operator image::..." for the image ops (pytorch/vision#7146, #7185); TorchScript's "Unknown
    # builtin op: torchvision::nms" for a scripted model whose ops did not load (pytorch/pytorch#48932);
    # conda's dependency chain of a pinned pair ("torchvision -> pytorch[version=...]", pytorch/pytorch#80506);
    # extension.py's CUDA check (0.4-0.25) by its later sentences, which a wrapped or cut log shows without
    # "Detected that ..." (nerdyrodent/AVeryComfyNerd#8)
    "torchvision": r"Failed to register operator torchvision::\w+|torchvision::\w+ already has an DispatchKey::Meta"
    r"|Failed to load image Python extension|Could not run 'torchvision::\w+' with arguments"
    r"|Could not find the operator torchvision::\w+|Couldn't load the image extension"
    r"|Failed to load '(?:_C|image)(?:_stable)?' extension: |No such operator image::\w+"
    r"|Unknown builtin op: torchvision::\w+"
    r"|\btorchvision(?:[=<>]{1,2}[\w.*+]+)? -> (?:pytorch-gpu -> )?pytorch[\[=]"
    r"|partially initialized module 'torchvision'|"
    + _DLL.format(lib=r"[\\/]torchvision[\\/]")
    + r"|PyTorch has CUDA Version=\d+\.\d+ and torchvision has CUDA Version=\d"
    + r"|Please reinstall the torchvision that matches your PyTorch install"
    # twenty-second round (tests/knowledge/test_torchvision_messages.py): _assert_has_ops' second sentence quoted
    # alone (Xilinx/Vitis-AI#943), and a torchvision _C built for another CUDA than torch's, whose runtime
    # library is not there (pytorch/vision#3261, pyro-ppl/pyro#1880, pytorch/pytorch#25173)
    + r"|This can happen if your PyTorch and torchvision versions are incompatible"
    + r"|libcudart\.so\.[\d.]{1,12}: cannot open shared object file"
    # thirtieth round: a traceback cut before its last line ("operator torchvision::nms does not exist") still
    # shows where it failed, torchvision's fake-kernel registration at import, which fails only where its ops did
    # not load or torch lacks the registration API it calls (pytorch/vision#8985, ROCm/TheRock#3134,
    # pytorch/pytorch#123094)
    + r"|"
    + TORCHVISION_META_FRAME,
    # torchaudio's extension on Windows: ctypes' FileNotFoundError for libtorchaudio.pyd, the loader's dialog;
    # torch.ops.load_library's own OSError naming torchaudio's library (torch/_ops.py, "Could not load this
    # library: {path}", chained to the loader's error: AI4Bharat/IndicVoices#5, FranckyB/Voice-Clone-Studio#79);
    # the circular import its failed extension load leaves for the next import (2.0-2.10 _check_cuda_version's
    # torchaudio.lib._torchaudio: rsxdalv/TTS-WebUI#433, after "compiled with different CUDA versions");
    # conda's dependency chain of a pinned pair ("torchaudio==0.8.1 -> pytorch==1.8.1", pytorch/pytorch#77463);
    # _check_cuda_version's later sentences (0.13's _extension.py, 2.0-2.9's _extension/utils.py); torch's texts
    # for its ops when its library did not load ("No such operator torchaudio::cuda_version", pytorch/audio#2832:
    # torch/_ops.py raises it alone before 1.12, chained to the _OpNamespace error after) or holds no kernel for
    # the device (torchaudio 0.10 beside torch 1.11: "Could not run 'torchaudio::rnnt_loss' with arguments from
    # the 'CUDA' backend", NVIDIA-NeMo/Speech#3637)
    "torchaudio": r"Could not find module '[^'\n]{0,300}?libtorchaudio\.pyd'|"
    + _DLL.format(lib=r"[\\/]torchaudio[\\/]")
    + r"|Could not load this library: [^\n]{0,300}?[\\/](?:lib|_)torchaudio\w*\.(?:abi3\.)?(?:so|pyd|dylib)\b"
    + r"|\btorchaudio(?:[=<>]{1,2}[\w.*+]+)? -> (?:pytorch-gpu -> )?pytorch[\[=]|partially initialized module 'torchaudio'"
    + r"|whereas TorchAudio has CUDA version \d|Please install the TorchAudio version that matches your PyTorch version"
    + r"|No such operator torchaudio::\w+|Could not run 'torchaudio::\w+' with arguments",
    **dict.fromkeys((*TRITON, *TRITON_FORKS), _TRITON),
    # cuDNN older than the one torch was built against (twenty-sixth round, test_pair_messages.py): torch's own
    # check (torch/backends/cudnn/__init__.py: "cuDNN version incompatibility: PyTorch was compiled  against
    # {compile} but found runtime version {runtime}", two spaces since pytorch/pytorch#80877; "... mismatch ...
    # but linked against" before), cuDNN 8's sub-library loader and cuDNN 9's ("Unable to load any of {...}",
    # "Invalid handle. Cannot load symbol cudnn..."), and the loader not finding the major the build links
    **dict.fromkeys(
        ("nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13"),
        r"cuDNN version (?:incompatibility|mismatch): PyTorch was compiled +against \S"
        r"|Unable to load any of \{libcudnn\w*\.so|Invalid handle\. Cannot load symbol cudnn\w+"
        r"|libcudnn\w*\.so\.\d+: cannot open shared object file",
    ),
    # numba's import-time gate on its NumPy and llvmlite (numba/__init__.py _ensure_critical_deps and
    # _ensure_llvm, read in PyPI's numba 0.60.0 wheel): "Numba needs NumPy 2.0 or less. Got NumPy 2.1."
    "numba": r"Numba needs NumPy \d+\.\d+ or (?:less|greater)\. Got NumPy \d+\.\d+"
    r"|Numba requires at least version \d+\.\d+\.\d+ of llvmlite",
    # SciPy's import-time warning on a NumPy outside its range (scipy/__init__.py, read in PyPI's 1.11.4 wheel)
    "scipy": r"A NumPy version >=[\d.]+ and <[\d.]+ is required for this version of SciPy \(detected version",
}


# torch's Triton pin binds only Inductor, which imports Triton internals (torch/_inductor:
# codecache.py ``triton_key``, runtime/hints.py ``AttrsDescriptor``, runtime/triton_heuristics.py
# ``CompiledKernel`` hooks); eager torch never imports Triton, and a library's own Triton kernels
# are compiled by whatever Triton is installed. So that pair reaches torch.compile tests only (and those of a
# library that compiles with Inductor by default, as a risk: :func:`_inductor_framework_risk`), as does
# triton-windows' pairing with torch (its README's table).


def _uses(dist: str, target: str) -> tuple[str, ...]:
    """The ``uses`` names a broken pair reaches."""
    if _binds_inductor(dist, target):
        return COMPILE_USES
    return (dist, target)


def _binds_inductor(dist: str, target: str) -> bool:
    """A pair only Inductor meets: torch's Triton pin, triton-windows' torch pairing."""
    return (dist == "torch" and target in TRITON) or (dist in TRITON_FORKS and target == "torch")


# pytorch-triton-rocm is Triton's own python/ package built under another wheel name (TRITON_WHEEL_NAME;
# __version__ patched in python/triton/__init__.py), as triton-rocm is today (the same script on main,
# triton_pkg_name = "triton-rocm"), so each and PyPI's ``triton`` install the same top-level ``triton``
# module: the one installed last is what Inductor imports
ROCM_TRITON_WHEEL = "https://github.com/pytorch/pytorch/blob/950fabb0eb624b7d81579100f380acc993efb861/.github/scripts/build_triton_wheel.py"
# PyPI's CUDA-only Triton in a ROCm torch's place: Inductor builds its launcher against libcuda (ROCm/pytorch#1251,
# a maintainer's fix: "OpenAI's triton being installed ... causes failures in inductor UTs on ROCm")
UPSTREAM_TRITON_ON_ROCM = r"cannot find -lcuda\b"


def _pypi_triton_for_rocm_torch(
    env: Environment, markers: dict[str, str], replaced: set[str] | None
) -> list[tuple[str, str, str, str, str, bool]]:
    """PyPI's ``triton`` at another version than the ROCm Triton an official ``+rocm`` torch pins.

    Both distributions install the top-level ``triton`` module (:data:`ROCM_TRITON_WHEEL`): the one installed
    last is what Inductor imports, so torch.compile may meet another Triton release (or PyPI's CUDA build).
    With the ROCm distribution named too (which the loop in :func:`check` judges against the pin), PyPI's
    beside it; with PyPI's the only Triton named, PyPI's alone (pip installs the pinned ROCm Triton with torch
    all the same). Empty without PyPI's triton, or with it at the pinned version.
    """
    pinned = _rocm_triton_pin_parts(env)
    if pinned is None:
        return []
    dist, version, suffix = pinned
    beside_rocm = dist in env.libraries and not (replaced and dist not in replaced)
    if not beside_rocm and ("triton" not in env.libraries or (replaced and "triton" not in replaced)):
        return []
    problem = _unmet(f"triton=={version}{suffix}", env, markers, replaced)
    if problem is None:
        return []
    shown = f"the triton module of {dist}=={version}{suffix}"
    if beside_rocm:
        beside = f"{problem} beside it (both install the triton module)"
        return [(f"torch {env.torch}", shown, beside, ROCM_TRITON_WHEEL, UPSTREAM_TRITON_ON_ROCM, False)]
    alone = f"{problem} (PyPI's, the only Triton named: where it owns the triton module, Inductor imports it)"
    return [(f"torch {env.torch}", shown, alone, ROCM_TRITON_WHEEL, "", False)]


def _rocm_triton_pin_parts(env: Environment) -> tuple[str, str, str] | None:
    """``(distribution, version, "; marker" or "")`` of the ROCm Triton an official ``+rocm`` torch pins."""
    pin = rocm_triton_pin(env.torch) if env.torch and rocm_build(env) else None
    if pin is None:
        return None
    requirement, _, marker = pin[0].partition(";")
    dist, version = requirement.strip().split("==", 1)
    return dist, version, f"; {marker.strip()}" if marker else ""


def _bare_release_rocm_triton(
    env: Environment, markers: dict[str, str], replaced: set[str] | None
) -> list[tuple[str, str, str, str, str, bool]]:
    """A stated ROCm stack naming torch without its build tag (``torch=2.5.1``, as reports and hand-written lists
    say it) beside a ROCm Triton distribution: every official ROCm wheel of that release pins one Triton
    (:func:`release_rocm_triton_pin`), so another version of it is a risk (AMD's, TheRock's and source builds
    pin their own). Not on a live host (``arch.untagged_rocm_release``); empty when the pinned distribution is
    not listed or matches.
    """
    release = untagged_rocm_release(env)
    pin = release_rocm_triton_pin(release) if release is not None else None
    if pin is None:
        return []
    requirement, source = pin
    dist = requirement.split("==", 1)[0]
    if dist not in env.libraries or (replaced and dist not in replaced):
        return []
    problem = _unmet(requirement, env, markers, replaced)
    if problem is None:
        return []
    shown = f"{requirement.partition(';')[0]} (its official ROCm wheels' pin, the build not named)"
    return [(f"torch {env.torch}", shown, problem, source, "", False)]


def _bare(text: str) -> str:
    """A requirement without its marker (it held for this stack, or the requirement would not be reported),
    except a lone Python condition: ``torch>=2.6.0a0 on Python >= 3.13``.
    """
    requirement, _, marker = text.partition(";")
    python = re.fullmatch(r'\s*python_version\s*(>=|<|<=|>|==)\s*"([\d.]+)"\s*', marker) if marker else None
    return f"{requirement.strip()} on Python {python.group(1)} {python.group(2)}" if python else requirement.strip()


def _python_assumed(text: str, env: Environment, markers: dict[str, str]) -> str:
    """Where a declared requirement's marker names the Python and the stack states none, which one judged it."""
    if env.python or not _PYTHON_MARKER.search(text.partition(";")[2]):
        return ""
    return f" (for Python {markers.get('python_version', '?')}: the stack states none)"


# a marker naming the Python (not platform_python_implementation)
_PYTHON_MARKER = re.compile(r"\bpython_(?:full_)?version\b")


def _judged(env: Environment, row: RuntimeRow) -> bool:
    """Whether a run-time row applies to the stack: one conditioned on the Python only where the stack
    states its Python (else the machine running the check would decide it), and never where the stack's
    environment sets the library's own escape hatch (``row.skipped_by``).
    """
    if row.skipped_by:
        name, _, value = row.skipped_by.partition("=")
        if env.env.get(name, "").strip() == value:
            return False
    return bool(env.python) or not _PYTHON_MARKER.search(row.requirement)


def _cite(source: str) -> str:
    return "installed metadata" if source == SOURCE else source


def _declared(env: Environment, dist: str, version: str) -> list[tuple[str, str, str]]:
    """``(requirement, source, comparison)``: installed metadata, else a sourced table, else what PyPI's release
    declared. A table's pairing (torchvision 0.8 with torch 1.7) of an undated companion snapshot (``0.9.0a0``) is a
    pairing of series: a torch snapshot of the paired release (``1.8.0a0+...``) is compared as that release (:data:`PER_BOUND`);
    where both are snapshots of one series, what decides is the torch the companion was built against, which the
    stack does not name (a risk, check()). A companion built from a commit (:data:`SOURCE_BUILT`) is judged by its
    release's pins, as a risk too.
    """
    if dist in env.requires:
        return [(text, SOURCE, "") for text in env.requires[dist]]
    parsed = coerce_version(version)
    paired = domain_pairing(dist, version)
    if parsed is not None and _SOURCE_BUILD.match(parsed.local or ""):
        # built from a commit against the torch then installed (AMD's images): the release's pins, as a risk
        if paired is not None:
            return [(text, paired[1], SOURCE_BUILT) for text in paired[0]]
        pins = declared_requires_all(dist, parsed.public, cuda_build=not rocm_build(env))
        return [(text, where, SOURCE_BUILT) for text, where in pins]
    # a released wheel is built against the released torch (a snapshot torch is another ABI), a nightly against
    # the torch nightly of its day; an undated snapshot (NGC's, ROCm's images: 0.19.0a0) against a torch snapshot
    # of the series it pairs with, which one the stack cannot say
    snapshot = parsed is not None and (parsed.is_prerelease or parsed.is_devrelease) and not _dated(parsed)
    compared = PER_BOUND if snapshot else ""
    if paired is not None:
        return [(text, paired[1], compared) for text in paired[0]]
    pins = declared_requires_all(dist, version, cuda_build=not rocm_build(env))
    return [(text, where, compared) for text, where in pins]


def rocm_build(env: Environment) -> bool:
    """A ROCm torch (``+rocm`` tag, HIP, or the rocm platform): CUDA wheels' pins do not apply."""
    return env.torch_rocm is not None or env.platform == "rocm"


def _unmet(
    text: str, env: Environment, markers: dict[str, str], replaced: set[str] | None = None, *, gate: str = ""
) -> str | None:
    """``"torch 2.5.1"`` when the requirement names an installed distribution it does not accept.

    Parsed by a small pattern first so that requirements on packages that are not installed
    (most of them) cost no full PEP 508 parse; markers go to :mod:`packaging.markers`. ``gate``: a
    run-time row restating a library's own version comparison (``RuntimeRow.compared``, :func:`_at_a_gate_bound`).
    """
    m = _REQUIREMENT.match(text)
    if m is None:
        return None
    name = normalize_library(m.group(1))
    if replaced and name not in replaced and name != "torch":
        return None  # the base machine's package beside a replayed stack
    installed = env.torch if name == "torch" and env.torch else env.libraries.get(name)
    version = coerce_version(installed)
    spec_text = m.group(2).strip()
    if version is None or not spec_text:
        return None
    try:
        spec = SpecifierSet(spec_text)
    except InvalidSpecifier:
        return None
    if gate == PER_BOUND:
        if _series_contains(spec, version):
            return None
    elif specifier_contains(spec, version) or (gate and _at_a_gate_bound(spec, version, gate)):
        return None
    if m.group(3) and not _marker_holds(m.group(3), env, markers):
        return None  # an extra's requirement, or one for another Python/platform
    return f"{name} {installed}" if _valid(text) else None


# a build from a git commit, as setup.py labels one (torchvision 0.24.1+d801a34, torch 2.10.0+git8514f05)
_SOURCE_BUILD = re.compile(r"^(?:git)?[0-9a-f]{7,40}$")
# a sourced pairing of release series (an undated companion snapshot's): a torch snapshot compared as its release
# (_series_contains)
PER_BOUND = "series"
SOURCE_BUILT = "source-built"
_FLOORS = (">", ">=")  # the floors a library's own version check compares against


def _dated(version: Version) -> bool:
    """A nightly named by its day (``0.9.0.dev20201117``)."""
    return version.dev is not None and version.dev > 19_000_000


def _series_contains(spec: SpecifierSet, version: Version) -> bool:
    """A pairing of release series (torchvision 0.8 with torch >=1.7,<1.8): a snapshot before a release
    (``1.7.0a0+git...``, a ``.dev`` nightly) is of that release's series, so it is compared as that release,
    unless the pairing names snapshots itself (a nightly's ``<=2.7.0.dev20241020``).
    """
    snapshots = any((bound := coerce_version(s.version.rstrip(".*"))) is not None and bound.is_prerelease for s in spec)
    if snapshots or not (version.is_prerelease or version.is_devrelease):
        return specifier_contains(spec, version)
    return spec.contains(Version(version.base_version), prereleases=True)


def _at_a_gate_bound(spec: SpecifierSet, version: Version, compared: str) -> bool:
    """A build of the very release a run-time gate's floor names that the gate's own comparison accepts
    and a PEP 440 specifier would not: a string comparison puts any suffix above the release
    (``0.8.2.dev5+g1.rocm631`` > ``"0.8.2"``), ``version.parse`` only a local label (``0.8.5+rocm642``;
    ROCm builds of vLLM carry ``+rocmNNN``): not judged.
    """
    if compared == "string":
        suffixed = bool(version.local or version.is_devrelease or version.is_prerelease)
    else:
        suffixed = bool(version.local) and not (version.is_devrelease or version.is_prerelease)
    if not suffixed:
        return False
    release = Version(version.base_version)
    return any(s.operator in _FLOORS and Version(Version(s.version).base_version) == release for s in spec)


def _valid(text: str) -> bool:
    """A full PEP 508 parse, only for a requirement about to be reported (pip rejects the rest)."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement:
        return False
    return True


def _marker_holds(text: str, env: Environment, markers: dict[str, str]) -> bool:
    from packaging.markers import InvalidMarker, Marker

    if not markers:
        markers.update(_marker_environment(env))
    try:
        return bool(Marker(text).evaluate({**markers, "extra": ""}))
    except (InvalidMarker, Exception):
        return False


def _marker_environment(env: Environment) -> dict[str, str]:
    """Markers for the stack: its Python, its OS (Linux x86_64 unless it names macOS or Windows)."""
    from packaging.markers import default_environment

    # a TypedDict of str fields, which mypy reads as Mapping[str, object]
    markers = {key: str(value) for key, value in default_environment().items()}
    python = coerce_version(env.python)
    if python is not None:
        markers["python_version"] = f"{python.major}.{python.minor}"
        markers["python_full_version"] = env.python
    system = env.system.lower()
    if system in ("darwin", "macos"):
        markers.update(sys_platform="darwin", platform_system="Darwin", os_name="posix", platform_machine="arm64")
    elif system == "windows":
        markers.update(sys_platform="win32", platform_system="Windows", os_name="nt", platform_machine="AMD64")
    else:  # Linux, or not stated: Linux x86_64, where PyPI's CUDA wheels and their pins apply
        markers.update({k: v for k, v in LINUX_X86_64.items() if k != "extra"})
    return markers
