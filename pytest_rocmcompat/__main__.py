from pytest_rocmcompat.cli.main import main
import sys

sys.exit(main())
