"""The sizes that decide how a block is solved (plain constants, cheap to import)."""

from __future__ import annotations

#: Default memory budget for one dense block cost matrix (bytes).
DEFAULT_MEMORY_BUDGET = 4 * 1024**3

#: Bytes per pair of a dense block: the cost matrix and one working copy.
DENSE_BYTES_PER_PAIR = 16

#: Blocks with more pairs than this use candidate search when the distance embeds.
DENSE_PAIRS = 4_000_000

#: Procedure II blocks with more pairs than this use the k-d tree of value groups when the distance
#: embeds. Above about ten thousand pairs the tree is faster once compiled, but a dense block of
#: 400,000 pairs still takes well under 0.1 s, and this bound keeps runs the size of `attack demo`
#: free of compilation on a fresh installation (benchmarks/bench_register.py).
GREEDY_DENSE_PAIRS = 400_000

#: A run's Procedure II blocks up to this many pairs stay dense when the compiled loops are not worth
#: loading for them (``attack.linkage.solvers.greedy_dense_bound``): a dense block of 2,000,000
#: pairs takes about 35 ms.
LOADED_DENSE_PAIRS = 2_000_000

#: Seconds a fresh process spends before its first compiled loop runs: importing numba (0.15–0.3 s)
#: and loading the cached machine code (about 0.27 s), measured for issue 49.
LOOP_LOAD_SECONDS = 0.4
