"""attack: simulate an intruder against a candidate microdata release.

The package follows the specification in ``shared/docs/METHOD.md`` (the Destatis handbook on the
anonymisation of business microdata, 2005).
"""

__version__ = "0.1.0"
