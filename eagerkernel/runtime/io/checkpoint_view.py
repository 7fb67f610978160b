"""Views of object graphs: a live one (`TrackableView`) and a saved one (`CheckpointView`),
following TensorFlow's `tf.train.TrackableView` and `tf.train.CheckpointView`.

A checkpoint written by `ek.train.Checkpoint` stores its objects by path (see
`checkpoint_format`); `CheckpointView` numbers them as TensorFlow numbers the nodes of its
object graph: breadth first from the root (node 0), each object's children in the graph's
order (attribute order; lists and dicts are nodes of their own). Checkpoints written before
the graph's order was stored list each object's children in name order.
"""

from __future__ import annotations

import collections

from ..core.variable import Variable
from .checkpoint import ObjectGraph
from .checkpoint_format import resolve_alias

__all__ = ["CheckpointView", "TrackableView"]


def _is_node(item) -> bool:
    """Whether ``item`` is a node of the graph: a Variable, an object with saved state, or a
    list or dict holding one."""
    if isinstance(item, Variable):
        return True
    if isinstance(item, (list, tuple)):
        return any(_is_node(x) for x in item)
    if isinstance(item, dict):
        return any(_is_node(x) for x in item.values())
    try:
        return bool(ObjectGraph(item).objects) or hasattr(item, "trainable_variables")
    except ValueError:
        return True


def _edges(obj) -> dict:
    """``{edge name: child}`` of a live object, lists and dicts as nodes of their own
    (TensorFlow's ListWrapper / _DictWrapper), in the graph's order."""
    if isinstance(obj, (list, tuple)):
        return {str(i): x for i, x in enumerate(obj) if _is_node(x)}
    if isinstance(obj, dict):
        return {str(k): x for k, x in obj.items() if _is_node(x)}
    if isinstance(obj, Variable):
        return {}
    out: dict = {}
    attrs = vars(obj) if hasattr(obj, "__dict__") else {}
    for path, child in ObjectGraph(obj).objects.items():
        head = path.split("/", 1)[0]
        if head in out:
            continue
        if "/" in path:  # an item of a list or dict attribute: the container is the child
            container = attrs.get(head.replace(".S", "/").replace("..", "."))
            if not isinstance(container, (list, tuple, dict)):
                continue  # a descendant of a child listed before
            child = container
        out[head] = child
    return out


class TrackableView:
    """The object graph of a live object (follows `tf.train.TrackableView`).

    Args:
        root: a `tf.Module`, Keras object, `Checkpoint`, Variable...

    >>> m = ek.Module()
    >>> m.v = ek.Variable(1.0)
    >>> list(TrackableView(m).children(m))
    ['v']
    """

    def __init__(self, root):
        self.root = root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs) -> dict:
        """``{name: child}``: the objects ``obj`` links to directly, in attribute order."""
        return _edges(obj)

    def descendants(self) -> list:
        """Every object reachable from the root, the root first, breadth first."""
        order, seen, queue = [], {id(self.root)}, collections.deque([self.root])
        while queue:
            obj = queue.popleft()
            order.append(obj)
            for child in _edges(obj).values():
                if id(child) not in seen:
                    seen.add(id(child))
                    queue.append(child)
        return order


class CheckpointView:
    """The object graph stored in a checkpoint, its nodes numbered as TensorFlow numbers them
    (follows `tf.train.CheckpointView`).

    Args:
        save_path: a checkpoint prefix, as `Checkpoint.save` returns.

    Raises:
        NotFoundError: no checkpoint at ``save_path``. ValueError: a corrupt file.
    """

    def __init__(self, save_path):
        from .checkpoint_format import read_checkpoint

        _, meta, _ = read_checkpoint(save_path)
        objects = meta.get("objects", {})
        order = [p for p in meta.get("order", []) if p in objects]
        order += sorted(set(objects) - set(order))
        paths: list = []
        for path in order + sorted(set(meta.get("variables", ())) - set(order)):
            parts = path.split("/")
            for i in range(1, len(parts) + 1):  # a list's items imply the list's node
                prefix = "/".join(parts[:i])
                if prefix not in paths and "/.OPTIMIZER_SLOT" not in "/" + prefix:
                    paths.append(prefix)
        kids: dict = collections.defaultdict(list)
        for path in paths:
            parent, _, name = path.rpartition("/")
            kids[parent].append((name, path))
        for other, stored in meta.get("aliases", {}).items():
            parent, _, name = other.rpartition("/")
            kids[resolve_alias(parent, meta["aliases"]) if parent else ""].append((name, stored))
        self._ids, self._edges = {"": 0}, {}
        queue = collections.deque([""])
        while queue:  # breadth first: TensorFlow's node ids
            path = queue.popleft()
            edges = {}
            for name, child in kids.get(path, ()):
                if child not in self._ids:
                    self._ids[child] = len(self._ids)
                    queue.append(child)
                edges.setdefault(name, self._ids[child])
            self._edges[self._ids[path]] = edges

    def children(self, node_id) -> dict:
        """``{name: node id}`` of the node's direct children.

        Raises:
            KeyError: an unknown node id.
        """
        return dict(self._edges[int(node_id)])

    def descendants(self) -> list:
        """Every node id, the root (0) first, breadth first."""
        return sorted(self._edges)

    def match(self, obj) -> dict:
        """``{node id: object}`` for the objects of the live graph of ``obj`` found at the same
        place (same names from the root) in the checkpoint."""
        found, queue = {0: obj}, collections.deque([(0, obj)])
        while queue:
            node, live = queue.popleft()
            live_kids = _edges(live)
            for name, child_id in self._edges.get(node, {}).items():
                if name in live_kids and child_id not in found:
                    found[child_id] = live_kids[name]
                    queue.append((child_id, live_kids[name]))
        return dict(sorted(found.items()))

    def diff(self, obj) -> tuple:
        """``(match(obj), node ids only in the checkpoint, objects only in obj's graph)``."""
        overlap = self.match(obj)
        matched = {id(v) for v in overlap.values()}
        only_view = [n for n in self.descendants() if n not in overlap]
        only_live = [t for t in TrackableView(obj).descendants() if id(t) not in matched]
        return overlap, only_view, only_live
