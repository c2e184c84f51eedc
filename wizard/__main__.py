"""`python -m wizard`."""
import sys

from wizard.frontends.terminal.cli import main

sys.exit(main())
