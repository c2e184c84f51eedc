"""`python -m wizard`."""
import sys

from wizard.cli import main

sys.exit(main())
