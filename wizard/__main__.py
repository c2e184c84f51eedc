"""`python -m wizard`."""
import sys

from wizard.engine.warm import warm_worker
from wizard.frontends.terminal.quiet import quiet_library_warnings

quiet_library_warnings(sys.argv[1:])  # before the imports that warn
warm_worker(sys.argv[1:])  # the worker imports its framework while the command line loads

from wizard.frontends.terminal.cli import main  # noqa: E402

sys.exit(main())
