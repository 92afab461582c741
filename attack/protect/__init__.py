"""Protection methods that make a candidate release: recoding, microaggregation, noise, PRAM,
swapping, and the catalogue that exposes them by name."""
