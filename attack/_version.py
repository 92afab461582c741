"""The version of attack."""

__version__ = "0.1.0"
