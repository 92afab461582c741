"""The choices of the distance between records, declared once for the engine, the scenario
schema and the command line (docs/method/synthetic-attacks.md); the first of each is the default."""

#: Distances between records.
METRICS: tuple[str, ...] = ("gower_mean", "gower_sum", "euclidean", "l1")
#: Scalings of numeric columns, fitted on the original.
SCALINGS: tuple[str, ...] = ("minmax_range", "zscore", "robust", "none")
