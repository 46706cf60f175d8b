"""`python -m tagpipe ...` is the `tagpipe` command."""

import sys

from tagpipe.cli import main

sys.exit(main())
