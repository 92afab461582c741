"""Attacks on synthetic data: distances to closest records, the CAP family, singling out,
linkability and inference."""
