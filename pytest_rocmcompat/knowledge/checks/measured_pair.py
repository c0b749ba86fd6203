"""``pair-failed-when-run``: a library beside a release of the library under it that it failed with when run.

PEFT declares ``transformers`` with no upper bound and mostly no lower one, so ``requirement-not-met``
has nothing to read; whether a PEFT release works on a transformers release is only known by running
the two together. ``tools/measure_api_pairs.py`` did (``knowledge/measured_pairs.py``): each pair
resolved as a user installing it that day got it, a smoke run of what a PEFT user does first (wrap a
model in LoRA, prefix or prompt tuning, train a step, generate, save, load, merge; the Trainer over
accelerate). A stack whose pair falls outside the window its dependent release ran in is judged, naming the
run and the exception it ended with.

Each feature the smoke run reports on is judged by a window of its own: what every user of the pair
runs (PEFT's LoRA) is certain; one method of it (prefix or prompt tuning, the Trainer) is a conditional
risk. The signature is the measured exception, what a pair prints when one lacks what the other imports
(``requirements.pair_predicts``) and Python's own texts for a keyword or attribute one release lacks: a
different failure stays a failure, with this finding as its likely cause, and a risk's passing test stays
a pass.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge import measured_pairs
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.requirements import pair_predicts
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import replay_names

ID = "pair-failed-when-run"
SOURCE = "tools/measure_api_pairs.py"
# Python's own texts for an API one release has and the other has not, beyond the imports
# pair_predicts names: a keyword or attribute the installed release does not take or have
PREDICTS = (
    r"got an unexpected keyword argument '\w+'|object has no attribute '\w+'|missing \d+ required positional argument"
)


def check(env: Environment) -> list[Finding]:
    installed = dict(env.libraries)
    replaced = replay_names(env)
    findings: list[Finding] = []
    for dependent, dependency in measured_pairs.pairs():
        if replaced and not {dependent, dependency} <= replaced:
            continue  # the base machine's package beside a replayed stack: not part of that stack
        mine, theirs = installed.get(dependent), installed.get(dependency)
        if mine is None or theirs is None:
            continue
        failed = measured_pairs.failures(dependent, mine, dependency, theirs)
        core = [f for f in failed if f.core]
        findings.extend(_finding(f) for f in core or failed)  # where the core fails, one method's failure adds nothing
    return findings


# how a finding names each measured feature (tools/api_smoke/ names them)
_LABELS = {"lora": "LoRA", "prefix": "prefix tuning", "prompt": "prompt tuning", "trainer": "transformers' Trainer"}


def _finding(failed: measured_pairs.PairFailure) -> Finding:
    """One failed feature of a pair: certain for the smoke run's core feature, a risk for one method."""
    dependent, dependency = failed.dependent, failed.dependency
    oldest, newest = failed.window
    what = f"{dependent} {failed.dependent_version} ({_LABELS.get(failed.feature, failed.feature)})"
    how = (
        "failed when run"
        if failed.run
        else f"is beyond {dependency} {failed.failed_at}, where it failed when run (the working window is contiguous)"
    )
    return Finding(
        check=ID,
        reason=f"{what} with {dependency} {failed.dependency_version} {how}: "
        f"{' <- '.join(_errors(failed.error))} (its series ran with {dependency} {oldest} to {newest}"
        f"{', but not this one' if failed.island else ''}; {failed.smoke}, "
        f"measured {failed.generated})",
        fix=f"install a {dependency} of the {oldest} to {newest} series, or a release of {dependent} that runs "
        f"with {dependency} {failed.dependency_version}",
        link=SOURCE,
        uses=(dependent, dependency),
        predicts=pair_predicts((dependent, dependency))
        + "".join(f"|{_pattern(line)}" for error in failed.errors for line in _errors(error)),
        # one method of the library (prefix tuning, the Trainer): only code using it meets it, and no test says
        # which it uses; a risk, confirmed by the measured exception or Python's own API-mismatch texts
        conditional=not failed.core,
        uncertain=not failed.core,
    )


def _pattern(text: str) -> str:
    """``text`` as a pattern whose numbers may differ (tensor sizes, layer indexes depend on the model)."""
    return re.sub(r"\d+", r"\\d+", re.escape(text))


# ImportError's file, "(<site-packages>/transformers/__init__.py)": the measuring machine's own
_FILE = re.compile(r" \((?:/|<site-packages>|[A-Za-z]:\\)[^()\n]*\)$")


def _errors(recorded: str) -> list[str]:
    """The exception lines a recorded failure holds (its last and, after `` <- ``, its chain's first),
    without the installed file an ImportError names.
    """
    return [_FILE.sub("", part.strip()) for part in recorded.split(" <- ") if part.strip()]
