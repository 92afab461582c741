"""Analysis potential of a release: deviation checks, regression comparison, information loss."""
