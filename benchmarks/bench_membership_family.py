"""The data-only membership family: time and peak memory (docs/method/membership-family.md).

Usage: ``python benchmarks/bench_membership_family.py [--members N] [--compare]`` (default 10,000).
``--compare`` instead sets DCR beside the family on four releases of the same members (CART
synthesis with minimum leaf size 50, 5 and 1, and a file copying a tenth of the members).
Members: the
generated firm file of ``bench_synthesize.py`` (10 columns, codes, missing values); the holdout: 2N
firms of the same population, of which the family scores N as non-members and keeps N as the
reference (its default split); the release: N rows of the default CART synthesis of the members
(made before the clock starts). Every data-only attack runs with the default settings (200
bootstrap replicates). Budget (issue 33): 60 s for N = 10,000. Runs in its own process (peak
resident memory from ``wait4`` is that process's alone).
"""

from __future__ import annotations

import argparse
import sys
import time

from measure import run_child

BUDGET_SECONDS = 60.0


def run_case(n: int) -> None:
    from bench_synthesize import firms

    from attack.generation.sequential import synthesize
    from attack.synthetic_attacks.mia_family import membership_family

    members, holdout = firms(n, seed=1), firms(2 * n, seed=2)
    release = synthesize(members, special_codes=[-8], seed=3).frame
    start = time.perf_counter()
    result = membership_family(members, holdout, release, categorical=["nace"], seed=0)
    seconds = time.perf_counter() - start
    print(f"{n:,} members + {n:,} non-members (reference {n:,}) against {len(release):,} synthetic rows, "
          f"{len(result.attacks)} attacks: {seconds:.1f} s (budget {BUDGET_SECONDS:.0f} s: "
          f"{'met' if seconds <= BUDGET_SECONDS else 'OVER'})")
    for attack in [*result.attacks, None]:
        values = result.maximum.values if attack is None else attack.metrics.values
        name = "maximum" if attack is None else attack.name
        print(f"  {name:16} AUC {values['auc']:.3f}  TPR@0.1% {values['tpr_at_fpr_0.001']:.4f}  "
              f"TPR@1% {values['tpr_at_fpr_0.01']:.4f}  TPR@10% {values['tpr_at_fpr_0.1']:.4f}  "
              f"advantage {values['advantage']:.3f}")


def compare(n: int) -> None:
    """DCR diagnostics and the membership family on the same files (docs/method/membership-family.md)."""
    import pandas as pd
    from bench_synthesize import firms

    from attack.generation.sequential import synthesize
    from attack.synthetic_attacks.distance import distance_attack
    from attack.synthetic_attacks.mia_family import membership_family
    from attack.synthetic_attacks.space import prepare

    members, holdout = firms(n, seed=1), firms(2 * n, seed=2)
    releases = {f"CART minimum leaf {leaf}": synthesize(members, special_codes=[-8], minbucket=leaf, seed=3).frame
                for leaf in (50, 5, 1)}
    fresh = firms(n, seed=4)
    releases["copies of 10 % of the members"] = pd.concat(
        [members.sample(frac=0.1, random_state=5), fresh.iloc[: n - n // 10]], ignore_index=True)
    print("| release | DCR share 0 | DCR overfitting p (balanced) | max AUC | max TPR@0.1% | max TPR@1% [95%] "
          "| max TPR@10% | best attack at 1% | verdict (tau 0.1) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    prep = prepare(members, categorical=["nace"])
    for name, release in releases.items():
        dcr = distance_attack(members, release, prep, control=holdout.iloc[:n], seed=0)
        family = membership_family(members, holdout, release, categorical=["nace"], seed=0)
        v, ci = family.maximum.values, family.maximum.intervals["tpr_at_fpr_0.01"]
        print(f"| {name} | {dcr.dcr['synthetic→original'].share_zero:.3f} | {dcr.overfitting_protection['p']:.3f} | "
              f"{v['auc']:.3f} | {v['tpr_at_fpr_0.001']:.4f} | {v['tpr_at_fpr_0.01']:.4f} [{ci[0]:.4f}, {ci[1]:.4f}] | "
              f"{v['tpr_at_fpr_0.1']:.3f} | {family.worst['tpr_at_fpr_0.01']} | "
              f"{'pass' if family.passed else 'FAIL'} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--compare", action="store_true", help="DCR beside the family on four releases")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        compare(args.members)
        return
    if args.child:
        run_case(args.members)
        return
    measured = run_child([sys.executable, __file__, "--child", "--members", str(args.members)])
    print(measured.output)
    print(f"  child process {measured.seconds:.1f} s (with data generation and synthesis), "
          f"peak {measured.peak_mib:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
