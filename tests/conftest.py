"""pytest hooks.  The tests' shared helpers are the `support` package (tests/support/), not
this file; the data they need is found through TAGPIPE_TEST_DATA (support.data)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    # The checkout's bench/ and fuzz/ packages are imported by their tests.  Appended, not
    # prepended: the tagpipe under test (installed, or a built tree on PYTHONPATH) comes first,
    # never the checkout's tagpipe/, which a clean clone has not built.
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
