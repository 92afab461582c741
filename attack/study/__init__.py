"""Studies built from the stages: scenarios, the demo, tuning, certificates and their verification."""
