"""Keras 3's dtype promotion on dtypes rather than values (``keras.backend.result_type``), on
the rules `keras.ops` applies (``_base.result_type``)."""

from __future__ import annotations

import numpy as np

from ._base import result_type

__all__ = ["dtypes_result_type"]


def dtypes_result_type(*dtypes) -> str:
    """The dtype name Keras 3 gives an op on values of ``dtypes``: dtype names or objects
    (strong), or the Python types ``bool``, ``int``, ``float`` (weak, as Python numbers).
    No dtypes: `keras.backend.floatx`."""
    from ..backend import floatx
    from ..utils import standardize_dtype

    if not dtypes:
        return floatx()
    weak = {bool: True, int: 1, float: 1.0, complex: 1j}
    values = [weak[d] if d in weak else np.zeros((), standardize_dtype(d)) for d in dtypes]
    return result_type(*values).name
