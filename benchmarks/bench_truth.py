"""Ground truth from firm names: quality and speed (docs/method/ground-truth.md).

Usage: ``python benchmarks/bench_truth.py [N ...]`` (default 20000 100000): a register of N firms
(``attack.datasets.firms.firm_register``: surnames with umlauts, trades, eight legal forms,
4 % twins of one owner) and an external file covering 95 % of them plus 5 % firms not in the
register, respelt the way commercial databases write names (``respell``: legal forms in every
spelling or dropped, umlauts transliterated or lost, upper/lower case, "&"/"und"/"u.",
"Gebr."/"Gebrüder", titles dropped, 4 % typos, street spellings, 5 % streets missing, 2 % a
wrong last postcode digit, 0.5 % moved to another postcode). Blocking on the first three postcode
digits, name and street scored (address weight 0.3), default thresholds.

Each size runs in its own process (peak resident memory from ``wait4`` is that process's alone).
Printed: time of the linkage alone and of the child, peak memory, and against the generator's
truth: recall (external records of register firms accepted with their right unit), the share of
accepted links that are wrong, the review band and no-match counts, recall per legal form.
"""

from __future__ import annotations

import argparse
import sys
import time

from measure import run_child

TARGETS = "targets: recall >= 95 %, wrong accepted <= 0.5 %, 100,000 x 100,000 in <= 30 s"


def run_case(n: int) -> None:
    from attack.datasets.firms import firm_register, respell
    from attack.linkage.blocking import Block
    from attack.linkage.truth import link_names

    register = firm_register(n, seed=1)
    respelt = respell(register, seed=2, coverage=0.95)
    start = time.perf_counter()
    result = link_names(respelt.external, "record_id", register, "unit_id", name="name", address="street",
                        block=[Block("plz", prefix=3)])
    seconds = time.perf_counter() - start
    table = result.table.set_index("external_id")
    truth = respelt.truth.reindex(table.index)
    accepted = table["status"] == "accepted"
    right = accepted & (table["unit_id"] == truth)
    known = truth.notna()
    counts = result.summary()
    print(f"{len(register):,} register x {len(table):,} external ({known.sum():,} of register firms): "
          f"linkage {seconds:.1f} s")
    print(f"  recall {right.sum() / known.sum():.2%}; wrong among accepted {(accepted & ~right).sum()} "
          f"({(accepted & ~right).sum() / accepted.sum():.3%}); review {counts['review']:,} "
          f"({counts['review'] / len(table):.2%}); no match {counts['no_match']:,}")
    form = register.set_index("unit_id")["legal_form"].replace("", "(none)")
    per_form = (right[known].groupby(truth[known].map(form)).mean() * 100).round(1)
    print("  recall by register legal form (%): " + ", ".join(f"{k} {v}" for k, v in per_form.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[20_000, 100_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_case(args.child)
        return
    print(TARGETS)
    for n in args.sizes:
        measured = run_child([sys.executable, __file__, "--child", str(n)])
        print(measured.output)
        print(f"  child process {measured.seconds:.1f} s, peak {measured.peak_mib:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
