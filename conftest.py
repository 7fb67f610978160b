"""Doctests see `ek` and `np`, like a notebook with the Eager kernel."""

import numpy as np
import pytest

import eagerkernel as ek


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    doctest_namespace["ek"] = ek
    doctest_namespace["np"] = np
