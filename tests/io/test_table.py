"""A table carries its provenance explicitly; no module hides it in ``DataFrame.attrs``."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from fixtures import RELEASE

import attack
from attack.errors import InputError
from attack.io.readers import read, require_columns
from attack.io.table import IN_MEMORY, Table, as_table, file_name, frame_of, source_name

#: ``frame.attrs`` (the record-attribute matrix of the synthetic attacks, ``self.attrs``, is
#: another thing).
_ATTRS = re.compile(r"(?<!self)\.attrs\b")


def test_no_module_keeps_provenance_in_dataframe_attrs() -> None:
    package = Path(attack.__file__).parent
    found = [f"{path.relative_to(package)}:{number}" for path in sorted(package.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if _ATTRS.search(line)]
    assert found == []
    assert _ATTRS.search("out.attrs = dict(frame.attrs)") and not _ATTRS.search("self.attrs[:, keep]")


def test_a_read_table_knows_its_file_and_a_frame_is_data_in_memory(tmp_path) -> None:
    path = tmp_path / "rel.csv"
    RELEASE.to_csv(path, index=False)
    table = read(path, ["unit_id", "turnover"])
    assert (table.source, source_name(table), file_name(table)) == (str(path), str(path), str(path))
    assert table.from_file and len(table) == len(RELEASE)
    assert table.reading == {"format": "csv", "encoding": "utf-8", "sep": ",", "decimal": ".", "quotechar": '"',
                             "na": [], "rows": len(RELEASE)}
    assert table.codes_absent == ()
    frame = RELEASE.copy()
    assert (source_name(frame), file_name(frame)) == (IN_MEMORY, None)
    wrapped = as_table(frame)
    assert wrapped.frame is frame and wrapped.source == "<data>" and not wrapped.from_file
    assert wrapped.reading is None and wrapped.codes_absent is None
    assert as_table(table) is table and frame_of(table) is table.frame and frame_of(frame) is frame


def test_a_selection_keeps_the_source_and_messages_name_it(tmp_path) -> None:
    path = tmp_path / "rel.csv"
    RELEASE.to_csv(path, index=False)
    table = read(path)
    head = table.with_frame(table.frame.head(2))
    assert (head.source, head.sha256, head.size, len(head)) == (table.source, table.sha256, table.size, 2)
    with pytest.raises(InputError) as error:
        require_columns(head, ["unit_id", "absent"])
    assert (error.value.file, error.value.column) == (str(path), "absent")
    with pytest.raises(InputError) as error:
        require_columns(pd.DataFrame({"a": [1]}), ["b"])
    assert error.value.file == "<data>"
    assert isinstance(Table(pd.DataFrame()), Table)
