"""Datasets that check or tolerate their input's errors: `IgnoreErrors`
(`tf.data.experimental.ignore_errors`) and `AssertCardinality`
(`tf.data.experimental.assert_cardinality`)."""

from __future__ import annotations

import logging

from ..core.errors import FailedPreconditionError
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, int_arg
from .sources import input_spec
from .transforms import Filter, Map

__all__ = ["AssertCardinality", "IgnoreErrors"]


def _elementwise_stages(dataset: Dataset):
    """``(base, stages)``: the `Map` and `Filter` datasets directly under (and including)
    ``dataset``, bottom first, and the first dataset under them that is neither."""
    stages = []
    while isinstance(dataset, (Map, Filter)):
        stages.append(dataset)
        dataset = dataset._inputs[0]
    return dataset, stages[::-1]


class IgnoreErrors(Dataset):
    """The input without the elements whose `map` or `filter` function raised.

    The `map` (parallel or not) and `filter` stages directly above the last other dataset are
    run here, one element at a time, so that an exception drops that element and the next
    one follows; a parallel map then runs in the consuming thread. An exception raised by an
    earlier stage (a source, a batch) ends that stage's Python iterator, so it propagates.
    """

    def __init__(self, input: Dataset, log_warning: bool = False):
        super().__init__(input)
        self._log = bool(log_warning)
        self._base, self._stages = _elementwise_stages(input)

    def _iter(self, ctx):
        stages, log = self._stages, self._log
        for x in self._base._iter(ctx):
            try:
                for stage in stages:
                    if isinstance(stage, Map):
                        x = stage.apply_fn(x)
                    elif not stage.keeps(x):
                        break
                else:
                    yield x
            except Exception as e:  # dropping the element is the contract
                if log:
                    logging.getLogger("eagerkernel").warning(
                        "Ignoring error: %s: %s", type(e).__name__, e
                    )

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY

    def _spec(self, peek):
        spec = self._inputs[0]._static_spec()
        return spec if spec is not None else super()._spec(peek)


def _elements(n: int) -> str:
    if n == INFINITE_CARDINALITY:
        return "an infinite number of elements"
    return f"{n} element{'s' if n != 1 else ''}"


class AssertCardinality(Dataset):
    """The input, checked while iterating to have ``expected`` elements."""

    def __init__(self, input: Dataset, expected):
        super().__init__(input)
        self._expected = int_arg(expected, "assert_cardinality", "expected_cardinality")

    def _iter(self, ctx):
        expected, n = self._expected, 0
        for x in self._inputs[0]._iter(ctx):
            n += 1
            if expected != INFINITE_CARDINALITY and n > expected:
                raise FailedPreconditionError(
                    None,
                    "AssertCardinalityDataset",
                    f"Input dataset was expected to contain {_elements(expected)} but "
                    f"contained at least {_elements(n)}.",
                )
            yield x
        if n != expected:
            raise FailedPreconditionError(
                None,
                "AssertCardinalityDataset",
                f"Input dataset was expected to contain {_elements(expected)} but contained "
                f"only {_elements(n)}.",
            )

    def _cardinality(self) -> int:
        return self._expected

    def _spec(self, peek):
        spec = self._inputs[0]._static_spec()
        return spec if spec is not None else input_spec(self._inputs[0], peek)
