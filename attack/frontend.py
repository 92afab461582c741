"""What a front end does around its one library call, as public functions: refuse clashing
outputs before any work, write the outputs all or none (record-level files owner-only), read
the user's JSON and TOML documents back, gather the run's notices, show text safely on a
terminal, and render the result documents that do not render themselves.

The command line (``attack.cli``) is such a front end; a user's own tool can be another. The
names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attack.io.lazy import lazy_names

if TYPE_CHECKING:
    from attack.generation.sequential import copy_paths, settings_from_log
    from attack.io.jsonio import to_json
    from attack.io.notices import gathering
    from attack.io.readback import load_json, load_toml
    from attack.io.writers import (
        OWNER_ONLY,
        certificate_paths,
        check_outputs,
        discard_staged,
        json_file,
        record_file,
        verify_root,
        write_files_atomic,
    )
    from attack.report.frequency import render_frequency_html, render_frequency_markdown
    from attack.report.release import (
        render_tune_html,
        render_tune_markdown,
        render_utility_markdown,
    )
    from attack.report.safe_text import VisibleControls, terminal_text
    from attack.study.budget_ledger import claim_settings
    from attack.study.outputs import tune_json_path

#: Public name -> (module, name there).
_LAZY = {
    "OWNER_ONLY": ("attack.io.writers", "OWNER_ONLY"),
    "VisibleControls": ("attack.report.safe_text", "VisibleControls"),
    "certificate_paths": ("attack.io.writers", "certificate_paths"),
    "check_outputs": ("attack.io.writers", "check_outputs"),
    "claim_settings": ("attack.study.budget_ledger", "claim_settings"),
    "copy_paths": ("attack.generation.sequential", "copy_paths"),
    "discard_staged": ("attack.io.writers", "discard_staged"),
    "gathering": ("attack.io.notices", "gathering"),
    "json_file": ("attack.io.writers", "json_file"),
    "load_json": ("attack.io.readback", "load_json"),
    "load_toml": ("attack.io.readback", "load_toml"),
    "record_file": ("attack.io.writers", "record_file"),
    "render_frequency_html": ("attack.report.frequency", "render_frequency_html"),
    "render_frequency_markdown": ("attack.report.frequency", "render_frequency_markdown"),
    "render_tune_html": ("attack.report.release", "render_tune_html"),
    "render_tune_markdown": ("attack.report.release", "render_tune_markdown"),
    "render_utility_markdown": ("attack.report.release", "render_utility_markdown"),
    "settings_from_log": ("attack.generation.sequential", "settings_from_log"),
    "terminal_text": ("attack.report.safe_text", "terminal_text"),
    "to_json": ("attack.io.jsonio", "to_json"),
    "tune_json_path": ("attack.study.outputs", "tune_json_path"),
    "verify_root": ("attack.io.writers", "verify_root"),
    "write_files_atomic": ("attack.io.writers", "write_files_atomic"),
}

__getattr__, __dir__ = lazy_names(_LAZY, globals())

__all__ = [
    "OWNER_ONLY",
    "VisibleControls",
    "certificate_paths",
    "check_outputs",
    "claim_settings",
    "copy_paths",
    "discard_staged",
    "gathering",
    "json_file",
    "load_json",
    "load_toml",
    "record_file",
    "render_frequency_html",
    "render_frequency_markdown",
    "render_tune_html",
    "render_tune_markdown",
    "render_utility_markdown",
    "settings_from_log",
    "terminal_text",
    "to_json",
    "tune_json_path",
    "verify_root",
    "write_files_atomic",
]
