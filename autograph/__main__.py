"""`python -m autograph PATH[::FUNC]`: the converted source, without running PATH.

The console script `autograph` calls `main` too; see `autograph.cli`.
"""

from __future__ import annotations

import sys

from autograph.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
