"""Scoring an attack: ground truth, hit rates and disclosure risk per cell, the combined measure,
natural protection and single attacks."""
