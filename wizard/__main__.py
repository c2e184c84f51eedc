"""`python -m wizard`."""
import sys

from wizard.engine.warm import warm_worker

warm_worker(sys.argv[1:])  # the worker imports its framework while the command line loads

from wizard.frontends.terminal.cli import main  # noqa: E402

sys.exit(main())
