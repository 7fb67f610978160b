"""The `Dataset` methods that keep elements on disk: `save`, `load` and `snapshot` (TensorFlow
2's methods of those names, once `tf.data.experimental.save` / `load` / `snapshot`).
`Dataset` inherits them from `PersistenceMethods`; the file format and the datasets that read
and write it are in `saved.py`."""

from __future__ import annotations

__all__ = ["PersistenceMethods"]


class PersistenceMethods:
    """Mixed into `Dataset`."""

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None) -> None:
        """Writes every element to the directory ``path`` (follows `tf.data.Dataset.save`).

        The elements go to TFRecord shard files of serialized tensors (`ek.io.serialize_tensor`)
        in a new subdirectory, and a JSON metadata file with the element spec, the compression
        and each shard's element count is written last, atomically (``os.replace``): a save
        that fails or is interrupted midway leaves no dataset that `load` reads (or the
        previous complete save at ``path``, which a finished save replaces). Components may be
        Tensors of any dtype and shape (strings included), RaggedTensors and SparseTensors, in
        tuples, namedtuples and dicts.

        Args:
            path: the directory (created if missing).
            compression: None (or "NONE") or "GZIP".
            shard_func: element -> int64 scalar shard index; each index used gets one file,
                and `load`'s default reader reads the shards in index order. Default: every
                element to shard 0 (so the order is kept).
            checkpoint_args: not supported (must be None).

        Raises:
            ValueError: another ``compression``; ``shard_func`` returned a negative index.
            TypeError: ``shard_func`` not callable or not returning an integer scalar;
                components that are not tensors (e.g. the Datasets of `window`).
            NotImplementedError: ``checkpoint_args`` is not None.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "squares")
        >>> ek.data.Dataset.range(4).map(lambda x: {"x": x, "sq": x * x}).save(path)
        >>> loaded = ek.data.Dataset.load(path)
        >>> [int(e["sq"]) for e in loaded], len(loaded)
        ([0, 1, 4, 9], 4)
        """
        from .saved import save

        save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None, wait=False):
        """The elements a `save` wrote to ``path``, with the saved element spec (follows
        `tf.data.Dataset.load`). The cardinality is the saved element count (with the default
        reader).

        Args:
            path: the directory given to `save`.
            element_spec: None reads the spec saved with the data; a spec given must nest as
                the saved one, with the same dtypes and compatible shapes, and becomes the
                dataset's ``element_spec``.
            compression: None reads the saved one; "NONE" or "GZIP" must match it.
            reader_func: a function from the Dataset of per-shard Datasets (in shard index
                order) to the Dataset of elements, e.g.
                ``lambda shards: shards.interleave(lambda d: d, cycle_length=2)``. Default:
                the shards one after another, in index order. (TensorFlow's default
                interleaves as many shards as the machine has CPU cores, which gives the same
                order for a save without ``shard_func``; here the order of a sharded save does
                not depend on the machine.)
            wait: not supported (must be False).

        Raises:
            NotFoundError: no finished save at ``path`` (also a FileNotFoundError).
            ValueError: an ``element_spec`` or ``compression`` that does not match the save.
            TypeError: ``reader_func`` not callable or not returning a Dataset.
            DataLossError: unreadable metadata; (while iterating) a corrupt shard.
            NotImplementedError: ``wait=True``.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "words")
        >>> ek.data.Dataset.from_tensor_slices(["a", "bc", "d"]).save(
        ...     path, compression="GZIP", shard_func=lambda w: ek.strings.length(w) - 1)
        >>> sorted(f for _, _, files in os.walk(path) for f in files)
        ['dataset_spec.json', 'shard_00000000.tfrecord', 'shard_00000001.tfrecord']
        >>> ds = ek.data.Dataset.load(path)
        >>> ds.element_spec, [w.numpy() for w in ds]
        (TensorSpec(shape=(), dtype=ek.string, name=None), [b'a', b'd', b'bc'])
        >>> ek.data.Dataset.load(os.path.join(path, "missing"))
        Traceback (most recent call last):
          ...
        eagerkernel.runtime.core.errors.NotFoundError: load: no saved dataset at ...
        """
        from .saved import Load

        if wait:
            raise NotImplementedError(
                f"load: wait (for a save still running) is not supported. Received: wait={wait!r}"
            )
        return Load(path, element_spec, compression, reader_func)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """This dataset, kept on disk under ``path`` after its first complete pass (follows
        `tf.data.Dataset.snapshot`).

        The first pass that reaches the end writes every element (in `save`'s format) to
        ``path/<fingerprint>``; every later pass, of this dataset or of a new pipeline built
        the same way with the same ``path`` (in this process or another), reads the files
        instead of running the input. A pass that stops early, or fails, leaves no snapshot.

        The fingerprint stands in for TensorFlow's hash of the pipeline's graph: a hash of each
        dataset's class and settings, of in-memory tensors' bytes and of the functions' code,
        constants, defaults and closure values, down to the sources, plus the element spec when
        known without running the pipeline. It does not see what a function reads from
        globals, files or the lists, dicts and sets it closes over, nor the values a generator
        yields: when those change, delete the snapshot directory (or use another ``path``), or
        the old elements are read.

        Args:
            path: the directory holding the snapshots.
            compression: "AUTO" (no compression here; TensorFlow's AUTO picks Snappy, which
                is not available), "NONE", None or "GZIP".
            reader_func: as `load`'s, for passes that read the snapshot.
            shard_func: as `save`'s, for the pass that writes it.
            name: accepted for TensorFlow compatibility.

        Raises:
            ValueError: another ``compression``. TypeError: ``reader_func`` or ``shard_func``
                not callable.

        >>> import os, tempfile
        >>> calls = []
        >>> def make():
        ...     return ek.data.Dataset.range(3).map(lambda x: calls.append(1) or x * 10)
        >>> path = tempfile.mkdtemp()
        >>> [int(x) for x in make().snapshot(path)], len(calls)
        ([0, 10, 20], 3)
        >>> [int(x) for x in make().snapshot(path)], len(calls)
        ([0, 10, 20], 3)
        """
        from .saved import Snapshot

        return Snapshot(self, path, compression, reader_func, shard_func)
