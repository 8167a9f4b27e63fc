"""``python -m xrr_accessor``: the ``xrr`` command."""

import sys

from .cli import main

sys.exit(main())
