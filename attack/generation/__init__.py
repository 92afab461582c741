"""Making synthetic data: sequential conditional synthesis as synthpop does it (docs/method/synthesis.md).

``columns`` reads a file's columns into the kinds synthesis needs (numbers with their missing
values and special codes, categories) and restores them; ``predictors`` turns already synthesised
columns into model inputs; ``methods`` holds one function per synthesis method (cart, rf, norm,
normrank, logreg, polyreg, sample); ``sequential`` runs them in the visit sequence.
"""
