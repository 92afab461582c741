"""Generated data sets shipped with the package: the KSE-like demo population and its files."""
