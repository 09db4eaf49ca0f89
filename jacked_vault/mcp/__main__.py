"""`python -m jacked_vault.mcp`: the same as the `jacked-memory-mcp` console script."""

import sys

from jacked_vault.mcp.server import main

sys.exit(main())
