"""Linkage keys: one module per key type, each registered when its class is defined.

Reading the registry of key types (``KEY_TYPES``, an ``attack.io.plugins.Registry``) imports every
module of this package, so a key type added as a module here is known
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

# The built-in types register in this order (their order in messages and in the schema).
# isort: off
from attack.linkage.keys.key import KEY_TYPES, Key, KeyEntry, as_key, key_types, parse_key
from attack.linkage.keys.metric import Metric
from attack.linkage.keys.nominal import Nominal
from attack.linkage.keys.ordinal import Ordinal
from attack.linkage.keys.hierarchical import Hierarchical, hierarchy_distance_table
from attack.linkage.keys.string import String
from attack.linkage.keys.date import Date
# isort: on

__all__ = ["KEY_TYPES", "Date", "Hierarchical", "Key", "KeyEntry", "Metric", "Nominal", "Ordinal", "String", "as_key",
           "hierarchy_distance_table", "key_types", "parse_key"]
