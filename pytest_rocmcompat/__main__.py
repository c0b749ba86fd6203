import sys

from pytest_rocmcompat.cli.main import main

sys.exit(main())
