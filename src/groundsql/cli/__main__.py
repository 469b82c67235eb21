"""`python -m groundsql.cli`."""

import sys

from groundsql.cli import main

sys.exit(main())
