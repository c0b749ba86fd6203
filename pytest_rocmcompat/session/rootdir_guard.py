"""Keep ``--rocm-matrix PATH`` / ``--rocm-env PATH`` (two arguments) from moving pytest's rootdir.

pytest chooses rootdir and config file from every command-line argument that is an
existing path *before* plugins are loaded, so the value of a plugin option given as a
separate argument counts as a test path: a matrix in another folder can make that folder's
ancestor the rootdir (and another project's ``pyproject.toml`` the config), which changes
node ids, JUnit class names and what node-id rules match.

Once the plugin is loaded (``pytest_load_initial_conftests``, before any conftest is
imported) its options are known, so the choice can be made again without the option values.
When it differs and nothing from the wrongly chosen config has taken effect yet (same
``addopts``, ``pythonpath``, ``required_plugins``), the choice is put right; otherwise the
run stops with a usage error (exit 4) that says how to write the option instead.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

PATH_OPTIONS = ("--rocm-matrix", "--rocm-env")
# ini keys pytest has acted on before plugins load: a wrong config cannot be undone once they differ
_EARLY_KEYS = ("addopts", "pythonpath", "required_plugins")


def space_form_values(args: list[str]) -> list[str]:
    """Values given as the argument after one of :data:`PATH_OPTIONS` (the form that moves rootdir)."""
    return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg in PATH_OPTIONS]


def keep_rootdir(config: pytest.Config, args: list[str]) -> None:
    """Choose rootdir and config again without the plugin's option values; repair or stop."""
    if not any(arg in PATH_OPTIONS for arg in args):  # the usual case costs one scan of argv
        return
    namespace = config.known_args_namespace  # parsed again after the plugin was loaded
    try:
        rootpath, inipath, inicfg, ignored = _determine_setup(config, namespace)
    except pytest.UsageError:
        return  # pytest reports its own problems with -c / --rootdir
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    old_cfg: dict[str, Any] = getattr(config, "_inicfg", {})
    if all(_raw(old_cfg.get(k)) == _raw(inicfg.get(k)) for k in _EARLY_KEYS):
        try:
            _repair(config, args, rootpath, inipath, inicfg, ignored)
            return
        except AttributeError:  # a pytest whose internals differ: say how to avoid it instead
            pass
    values = ", ".join(space_form_values(args))
    raise pytest.UsageError(
        f"rocmcompat: the option value(s) {values} given as separate arguments made pytest choose "
        f"rootdir {config.rootpath} and config file {config.inipath or 'none'} (it takes every existing "
        f"path on the command line into account before plugins load); without them it chooses rootdir "
        f"{rootpath} and config file {inipath or 'none'}. Write the option and its value as one "
        f"argument (--rocm-matrix=PATH, --rocm-env=PATH) or pass --rootdir."
    )


def _raw(value: object) -> object:
    """An ini value as read from the file (pytest 9 wraps them in ``ConfigValue``)."""
    return getattr(value, "value", value)


def _determine_setup(config: pytest.Config, ns: Any) -> tuple[Path, Path | None, dict, list]:
    """Pytest's own ``determine_setup`` on the now correctly parsed free arguments (pytest 7 to 9)."""
    from _pytest.config.findpaths import determine_setup

    params = inspect.signature(determine_setup).parameters
    kwargs: dict[str, Any] = {
        "inifile": ns.inifilename,
        "args": list(ns.file_or_dir or []),
        "rootdir_cmd_arg": ns.rootdir or None,
    }
    if "override_ini" in params:
        kwargs["override_ini"] = ns.override_ini
    if "invocation_dir" in params:
        kwargs["invocation_dir"] = config.invocation_params.dir
    if "config" in params:
        kwargs["config"] = config
    result = determine_setup(**kwargs)
    return result[0], result[1], result[2], list(result[3]) if len(result) > 3 else []


def _repair(
    config: pytest.Config, args: list[str], rootpath: Path, inipath: Path | None, inicfg: dict, ignored: list
) -> None:
    """Put pytest's choice right before conftests are loaded (nothing has used it yet)."""
    config._rootpath = rootpath
    config._inipath = inipath
    config._inicfg = inicfg
    if hasattr(config, "_ignored_config_files"):
        config._ignored_config_files = ignored
    config._inicache.clear()
    config._parser.extra_info["rootdir"] = str(rootpath)
    config._parser.extra_info["inifile"] = str(inipath)
    given = config._parser.parse_known_args(args)
    if given.confcutdir is None:  # pytest derived it from the wrong choice just before this hook
        config.known_args_namespace.confcutdir = str(inipath.parent if inipath is not None else rootpath)
