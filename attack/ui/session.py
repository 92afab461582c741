"""The one piece of state of the UI: a scenario file and the settings being edited in it.

Every edit is validated as ``attack run`` validates the file (``attack.load_scenario``); a valid
edit is written to the file at once, an invalid one is kept on the screen with the error at its
field and the file is left as it was. What a run runs is the file, so the command line given the
same file computes the same result.
"""

from __future__ import annotations

import copy
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel

import attack
from attack.errors import InputError
from attack.io.readback import read_document_bytes, read_toml
from attack.io.writers import check_outputs
from attack.ui.forms import Path as FieldPath
from attack.ui.forms import Widget, dotted, get, parse_path, prune, put, read, widgets
from attack.ui.models import model_for


@dataclass(frozen=True)
class Screen:
    """A screen: a name in the address, a title, and the top-level tables it edits."""

    slug: str
    title: str
    tables: tuple[str, ...]


#: The screens, in working order; a top-level table no screen claims lands on "other".
SCREENS = (
    Screen("data", "Data", ("kind", "title", "notes", "data")),
    Screen("intruders", "Intruders", ("linkage", "intruder", "combine", "natural_protection", "single_attack")),
    Screen("evaluation", "Evaluation", ("evaluation",)),
    Screen("protection", "Protection and tuning", ("tune",)),
    Screen("synthetic", "Synthetic release", ("synthesis", "attacks", "membership")),
    Screen("run", "Outputs and engine", ("output", "engine")),
)
OTHER = Screen("other", "Other settings", ())


@dataclass
class Session:
    """The scenario file being edited, its settings as parsed TOML, and the last error."""

    path: Path
    document: dict[str, Any] = field(default_factory=dict)
    error: InputError | None = None
    saved: bool = False
    #: Files this session wrote (Save as may write over them again without asking).
    written: set[Path] = field(default_factory=set)

    @classmethod
    def open(cls, path: str | Path) -> Session:
        """The session of ``path``: its settings when the file exists, none yet otherwise."""
        session = cls(Path(path).resolve())
        _scenario_name(session.path)
        if session.path.exists():
            session.load(session.path)
        return session

    @property
    def model(self) -> type[BaseModel]:
        return model_for(self.document)

    def screens(self) -> list[Screen]:
        """The screens with at least one table of this kind of scenario."""
        names = {info.alias or name for name, info in self.model.model_fields.items()}
        shown = [s for s in SCREENS if names & set(s.tables)]
        claimed = {t for s in SCREENS for t in s.tables}
        if names - claimed:
            shown.append(Screen(OTHER.slug, OTHER.title, tuple(sorted(names - claimed))))
        return shown

    def screen(self, slug: str) -> Screen:
        for screen in self.screens():
            if screen.slug == slug:
                return screen
        raise KeyError(slug)

    def widgets(self, screen: Screen) -> list[Widget]:
        """The form of ``screen``, filled from the current settings."""
        return widgets(self.model, self.document, names=list(screen.tables))

    def toml(self) -> str:
        """The scenario file's text as it is (or would be) written."""
        return tomli_w.dumps(self.document)

    def load(self, path: str | Path) -> None:
        """Edit the scenario file at ``path`` from now on."""
        path = self.where(path)
        _scenario_name(path)
        document = read_toml(read_document_bytes(path, "scenario file"), file=str(path), what="scenario file")
        self.path, self.document = path, document
        self.error = self._check()
        self.saved = self.error is None

    def start_from(self, text: str) -> None:
        """Replace the settings by those of a scenario text (the demo) and write them."""
        self.document = tomllib.loads(text)
        self._commit()

    def save_as(self, path: str | Path, *, replace: bool = False) -> None:
        """Write the settings to ``path`` and edit that file from now on. Only a scenario file
        (``.toml``) is written; never over a data file the settings name (the output guard of the
        command line), and over an existing file this session did not write only with
        ``replace`` (the user ticked "replace"). A refusal is an ``InputError``; nothing is written."""
        target = self.where(path)
        _scenario_name(target)
        check_outputs([target], self.input_paths(target.parent))
        if target.exists() and target != self.path and target not in self.written and not replace:
            raise InputError('exists and was not written by this UI: tick "replace" to replace it '
                             "(nothing was written)", file=str(path))
        self.path = target
        self._commit()

    def where(self, path: str | Path) -> Path:
        """The file ``path`` names: a relative path is relative to the scenario's folder (as every
        path the UI takes)."""
        return (self.path.parent / Path(path).expanduser()).resolve()

    def input_paths(self, base: Path) -> list[Path]:
        """The data files the settings name (every ``path`` of a table), relative to ``base``."""
        found: list[Path] = []
        stack: list[Any] = [self.document]
        while stack:
            item = stack.pop()
            if isinstance(item, Mapping):
                if isinstance(item.get("path"), str):
                    named = Path(item["path"]).expanduser()
                    found.append(named if named.is_absolute() else base / named)
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return found

    def apply(self, screen: Screen, form: Mapping[str, str], *, add: str | None = None,
              remove: str | None = None) -> None:
        """Take the values of a submitted screen; ``add`` appends an entry to the list at that
        path, ``remove`` takes out the entry at that path."""
        document: dict[str, Any] = copy.deepcopy(self.document)
        keep: set[FieldPath] = set()
        for top in self.widgets(screen):
            for group in top.groups():
                if group.kind == "group" and group.optional:
                    if form.get(f"{group.name}.__present") != "on":
                        put(document, group.path, None)
                        continue
                    keep.add(group.path)
                    if get(document, group.path) is None:
                        put(document, group.path, {})
            for leaf in top.leaves():
                if leaf.name in form and _inside_present(leaf.path, document, top):
                    put(document, leaf.path, read(leaf, form[leaf.name]))
        if add:
            entries = get(document, parse_path(add))
            put(document, parse_path(add), [*(entries if isinstance(entries, list) else []), {}])
        if remove:
            where = parse_path(remove)
            entries = get(document, where[:-1])
            if isinstance(entries, list) and isinstance(where[-1], int):
                put(document, where[:-1], [e for i, e in enumerate(entries) if i != where[-1]])
        self.document = prune(document, frozenset(keep))
        self._commit()

    def _commit(self) -> None:
        """Validate the settings; write the file when they are valid."""
        self.error = self._check()
        self.saved = False
        if self.error is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            staged = self.path.with_name(f".{self.path.name}.ui-tmp")
            staged.write_text(self.toml(), encoding="utf-8")
            staged.replace(self.path)
            self.written.add(self.path)
            self.saved = True

    def _check(self) -> InputError | None:
        """The error ``attack run`` would report for these settings, before reading any data."""
        with tempfile.TemporaryDirectory() as folder:
            staged = Path(folder) / self.path.name
            staged.write_text(self.toml(), encoding="utf-8")
            try:
                attack.load_scenario(staged)
            except InputError as exc:
                exc.file = str(self.path)
                return exc
        return None

    def error_at(self, name: str) -> bool:
        """Whether the current error belongs to the field ``name`` (or to one below it)."""
        if self.error is None or self.error.field is None:
            return False
        return self.error.field == name or self.error.field.startswith((f"{name}.", f"{name}["))

    def error_field(self, leaves: list[str]) -> str | None:
        """The form field (of ``leaves``) the current error is shown at: the deepest one on the
        error's path."""
        if self.error is None or self.error.field is None:
            return None
        on_path = [n for n in leaves if self.error.field == n or self.error.field.startswith((f"{n}.", f"{n}["))]
        return max(on_path, key=len) if on_path else None


def _scenario_name(path: Path) -> None:
    """Refuse a file name that is not a scenario file's (the UI reads and writes only ``.toml``)."""
    if path.suffix.lower() != ".toml":
        raise InputError("the UI opens and writes scenario files only: give a name ending in .toml "
                         "(nothing was written)", file=str(path))


def _inside_present(path: FieldPath, document: Mapping[str, Any], top: Widget) -> bool:
    """Whether every optional table on the way to ``path`` is still in the document."""
    for group in top.groups():
        if group.kind == "group" and group.optional and path[:len(group.path)] == group.path:
            if get(document, group.path) is None:
                return False
    return True


__all__ = ["OTHER", "SCREENS", "Screen", "Session", "dotted"]
