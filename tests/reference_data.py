"""Where the reference data shipped with the tests lie (never outside the checkout).

A module of its own rather than a name in ``conftest``: ``tests/ui`` has a conftest too, and
``from conftest import ...`` would find whichever of the two was imported first.
"""

from __future__ import annotations

from pathlib import Path

#: sdcMicro's example data sets (provenance and licence: tests/data/sdcmicro/README.md)
SDCMICRO = Path(__file__).resolve().parent / "data" / "sdcmicro"
