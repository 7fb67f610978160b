"""`CheckpointLoadStatus` (follows TensorFlow's): what a `Checkpoint.restore` matched, with
the ``assert_*`` checks that name the unmatched object paths."""

from __future__ import annotations

from .checkpoint import ObjectGraph

__all__ = ["CheckpointLoadStatus"]


class CheckpointLoadStatus:
    """What a `Checkpoint.restore` matched (follows TensorFlow's `CheckpointLoadStatus`).

    The ``assert_*`` methods raise AssertionError listing the unmatched object paths and
    return the status otherwise, so they chain: ``ckpt.restore(p).assert_consumed()``.
    """

    def __init__(self, root, file: str, keys: list):
        self._root = root
        self.file = file
        self._keys = list(keys)
        self._consumed: set = set()
        self._partial = False

    def _unmatched_existing(self) -> list:
        keys = set(self._keys)
        graph = ObjectGraph(self._root)
        return sorted(
            p
            for p in graph.variables
            if p not in keys and not any(a in keys for a in graph.alternatives(p))
        )

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every saved value was assigned and every existing variable got one."""
        unused = sorted(set(self._keys) - self._consumed)
        missing = self._unmatched_existing()
        if unused or missing:
            raise AssertionError(
                f"Checkpoint {self.file} was not fully consumed. Saved values not assigned "
                f"(no such object, or not created yet): {unused}. Existing variables without "
                f"a saved value: {missing}."
            )
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable that exists now got a saved value (values for objects not created
        yet may wait)."""
        missing = self._unmatched_existing()
        if missing:
            raise AssertionError(
                f"Checkpoint {self.file}: existing variables without a saved value: {missing}."
            )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """At least one saved object other than the root and the save counter matched an
        existing one (TF's rule): a value was assigned, or an object whose variables are not
        created yet (a model restored before it is built) exists."""
        if self._consumed - {"save_counter"}:
            return self
        objects = ObjectGraph(self._root).objects
        for key in self._keys:
            parts = key.split("/")
            if key != "save_counter" and any(
                "/".join(parts[:i]) in objects for i in range(1, len(parts) + 1)
            ):
                return self
        raise AssertionError(f"Checkpoint {self.file} matched no object: {self._keys}.")

    def expect_partial(self) -> CheckpointLoadStatus:
        """Declares that an incomplete restore is intended (silences nothing else)."""
        self._partial = True
        return self

    def run_restore_ops(self, session=None) -> None:
        """Nothing to run: restoring is eager."""

    def initialize_or_restore(self, session=None) -> None:
        """Nothing to run: restoring is eager."""
