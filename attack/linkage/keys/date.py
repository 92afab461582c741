"""Date keys such as the date of birth: parts compared, day–month transposition recognised
(``attack.linkage.dates``)."""

from __future__ import annotations

from typing import Literal

import pandas as pd

from attack.io.readers import code_column
from attack.linkage.dates import date_parts
from attack.linkage.distances import ComponentOptions, DateComponent
from attack.linkage.keys.key import Key


class Date(Key):
    """A date such as the date of birth: parts compared, day–month transposition recognised
    (``attack.linkage.dates``)."""

    type: Literal["date"] = "date"

    def component(self, external: pd.DataFrame, release: pd.DataFrame, options: ComponentOptions) -> DateComponent:
        """The dates' parts (year, month, day) of both files."""
        a = code_column(external, self.external_column, required=True)
        b = code_column(release, self.name, required=True)
        return DateComponent(date_parts(a, file=options.files[0], column=self.external_column),
                             date_parts(b, file=options.files[1], column=self.name))
