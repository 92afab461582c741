"""Make the fixture module importable and locate the reference data shipped with the tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

#: sdcMicro's example data sets (provenance and licence: tests/data/sdcmicro/README.md)
SDCMICRO = Path(__file__).resolve().parent / "data" / "sdcmicro"
