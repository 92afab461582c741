"""Linkage keys: one module per key type, each registered when its class is defined.

Importing this package imports every module in it, so a key type added as a module here is known
to the text form of ``--key``, to scenario files, to their JSON Schema and to ``attack.<Class>``
without any other edit (``docs/contributing/add-a-distance.md``). Typed keys and their text
spellings are the same object::

    Metric("turnover", weight=0.5)          "turnover:metric:0.5"
    Ordinal("size", order=["s", "m", "l"])  "size:ordinal:order=s|m|l"
    Hierarchical("nace", levels=[2, 3, 4])  "nace:hierarchical:levels=2|3|4"
    String("name", normalise=True)          "name:string:normalise"

Text keys read ``NAME:TYPE[:WEIGHT][:OPTION...]``; every type takes ``skip`` (a missing value
drops the component), and its own options: metric ``log``, ``squared``, ``absolute``; nominal
``tf``; ordinal ``order=a|b|c``; hierarchical ``levels=2|3|4``, ``lca``; string ``levenshtein``,
``jaro_winkler``, ``damerau``, ``token_set``, ``normalise``, ``soundex``, ``cologne``, ``tf``,
``swap=OTHER``. The distances are explained in ``docs/method/linkage.md``.
"""

from __future__ import annotations

import importlib
import pkgutil

# The built-in types register in this order (their order in messages and in the schema).
# isort: off
from attack.linkage.keys.key import Key, KeyEntry, as_key, key_types, parse_key
from attack.linkage.keys.metric import Metric
from attack.linkage.keys.nominal import Nominal
from attack.linkage.keys.ordinal import Ordinal
from attack.linkage.keys.hierarchical import Hierarchical, hierarchy_distance_table
from attack.linkage.keys.string import String
from attack.linkage.keys.date import Date
# isort: on

for _module in pkgutil.iter_modules(__path__):  # key types added as modules of this package
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["Date", "Hierarchical", "Key", "KeyEntry", "Metric", "Nominal", "Ordinal", "String", "as_key",
           "hierarchy_distance_table", "key_types", "parse_key"]
