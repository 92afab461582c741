"""What a worker process of the local engine loads before its first block.

The forkserver imports this module once; every worker forked from it then starts with the
solvers imported and the compiled kernels of the candidate search loaded, instead of loading
them again per worker (about a second each).
"""

from __future__ import annotations

import attack.linkage.solvers  # noqa: F401 - imported for the workers
from attack.linkage.candidates import warm_up

warm_up()
