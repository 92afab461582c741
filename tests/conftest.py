"""Make the helper modules of tests/ importable (fixtures, reference_data, engine_tasks)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
