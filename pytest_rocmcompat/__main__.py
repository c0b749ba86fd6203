"""``python -m pytest_rocmcompat``: the ``rocmcompat`` command."""

import sys

from pytest_rocmcompat.cli.main import main

sys.exit(main())
