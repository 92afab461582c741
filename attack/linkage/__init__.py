"""Record linkage as the intruder does it: keys, distances, blocking and one-to-one assignment."""
