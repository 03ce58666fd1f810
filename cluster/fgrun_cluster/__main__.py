"""``python -m fgrun_cluster RECIPE --manifest FILE -o DIR --report FILE.jsonl (--scheduler ADDR | --local N)``."""

import sys

from .driver import main

sys.exit(main())
