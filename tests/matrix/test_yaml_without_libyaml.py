"""A PyYAML built without libyaml (no ``yaml.CSafeLoader``: some wheels and distro builds) still
loads and checks matrices, with the pure-Python parser alone."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import REPO


def test_matrices_load_where_pyyaml_has_no_libyaml() -> None:
    script = textwrap.dedent(
        """
        import json, yaml
        if hasattr(yaml, "CSafeLoader"):
            del yaml.CSafeLoader  # as PyYAML built without libyaml
        from pytest_rocmcompat.errors import ConfigError
        from pytest_rocmcompat.matrix import yaml_lines
        good = yaml_lines.load_yaml("name: m\\naxes:\\n  torch: ['2.5.1']\\n", "m.yaml")
        try:
            yaml_lines.load_yaml("name: m\\nname: again\\n", "dup.yaml")
            dup = ""
        except ConfigError as exc:
            dup = str(exc)
        print(json.dumps({"fast": yaml_lines._FastLoader.__name__, "good": good, "dup": dup}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["fast"] == "_Loader"
    assert out["good"] == {"name": "m", "axes": {"torch": ["2.5.1"]}}
    assert "dup.yaml" in out["dup"] and "name" in out["dup"]
