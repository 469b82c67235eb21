"""`python -m groundsql`."""

import sys

from groundsql.cli import main

sys.exit(main())
