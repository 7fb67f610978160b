"""The picture of a recorded tape: ops and the tensors they read, layered by topological depth.

`layout` turns a tape's `Record` list into a `GraphLayout` (nodes with a depth and a row, edges,
what was left out); `render_png` draws it with matplotlib's Agg canvas (no pyplot, no system
binary such as graphviz). Two things keep a long tape readable:

* repeated chains collapse: a run of ops that feed each other one after the other and repeat
  the same op pattern (``Mul``, ``AddV2``, ``Mul``, ``AddV2``, ...) is one node reading
  ``Mul→AddV2 ×1000``, and an op (or collapsed chain) reading more than a few source tensors
  shows them as one ``N inputs`` node;
* ``max_rows`` caps the number of drawn nodes; the picture says how many ops it left out.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from ..runtime.core.records import Records

__all__ = ["GraphLayout", "GraphNode", "TapeGraph", "layout", "render_png"]

#: Longest op pattern that `layout` looks for when collapsing chains.
MAX_PERIOD = 4
#: A pattern collapses when its repetitions cover at least this many ops.
MIN_COLLAPSE = 4
#: More distinct source tensors than this feeding one node are drawn as one node.
MAX_LEAVES = 3


@dataclass
class GraphNode:
    """One drawn node.

    Attributes:
        label: the text in the box (``Mul``, ``Mul→AddV2 ×1000``, ``float32[10]``).
        kind: ``"op"``, ``"chain"`` (collapsed repeated ops), ``"leaf"`` (a tensor or Variable
            the ops read but no recorded op produced) or ``"leaves"`` (several of those).
        ops: tape indices of the ops the node stands for (empty for leaves).
        depth: the layer (x position): 0 for leaves, 1 + the deepest input for ops.
        row: position within the layer (y position, top first).
    """

    label: str
    kind: str
    ops: list = field(default_factory=list)
    depth: int = 0
    row: int = 0


@dataclass
class GraphLayout:
    """What `layout` computed: the drawn nodes, the edges between them (indices into
    ``nodes``), the number of ops the tape holds and the number left out by ``max_rows``."""

    nodes: list
    edges: list
    n_ops: int
    hidden_ops: int = 0

    @property
    def depth(self) -> int:
        return max((n.depth for n in self.nodes), default=0)

    @property
    def caption(self) -> str:
        text = f"{self.n_ops} op{'' if self.n_ops == 1 else 's'}, {len(self.nodes)} nodes drawn"
        if self.hidden_ops:
            text += f"; {self.hidden_ops} more op{'' if self.hidden_ops == 1 else 's'} not drawn"
        return text


def _spec(t) -> str:
    dt = getattr(getattr(t, "_value", None), "dtype", None)
    shape = getattr(getattr(t, "_value", None), "shape", ())
    return f"{dt}[{','.join(map(str, shape))}]"


def _leaf_label(x, xid: int, names: dict) -> str:
    name = names.get(xid)
    var = xid != id(x)  # Variables are recorded as a snapshot with the Variable's id
    text = _spec(x)
    if name:
        text = f"{name}: {text}"
    return ("var " if var else "") + text


class _Ops:
    """What `layout` reads of a tape's records (`Record` objects or `Records`): per op its
    name, its inputs and their ids, and its outputs."""

    def __init__(self, entries):
        records = entries if isinstance(entries, Records) else Records(entries)
        prims, self.inputs, self._outputs, self._ids = records.fields(
            "prim", "inputs", "output", "ids"
        )
        self.n = len(records)
        # Op names as small ints (equal names, equal codes) and the names they stand for.
        slots: dict[str, int] = {}
        slot_of = {p: slots.setdefault(p.name, len(slots)) for p in dict.fromkeys(prims)}
        self.codes = list(map(slot_of.__getitem__, prims))
        self.names = list(slots)

    def name(self, j: int) -> str:
        return self.names[self.codes[j]]

    def ids(self, j: int) -> tuple:
        ids = self._ids[j]
        return tuple(map(id, self.inputs[j])) if ids is None else ids

    def outputs(self, j: int) -> tuple:
        out = self._outputs[j]
        return out if type(out) is tuple else (out,)


def layout(entries, max_rows: int = 50, names: dict | None = None) -> GraphLayout:
    """Lays out the ops of ``entries`` (oldest first) as a layered graph.

    Args:
        entries: a tape's `Record` list, or its `Records`.
        max_rows: most nodes drawn (0: all); nodes are kept in tape order, each op's source
            tensors just before it.
        names: optional ``{id(tensor): name}`` to label source tensors (``w: float32[]``).
    """
    return _layout_ops(_Ops(entries), max_rows, names or {})


def _chains(ops: _Ops, preds: list[list[int]], succ_count: list[int]) -> list[list[int]]:
    """Maximal linear runs: op j continues i's run when i is j's only op input and j is the
    only op that reads i's output. Runs are returned in order of their first op."""
    runs: list[list[int]] = []
    run_of: dict[int, int] = {}
    for j in range(ops.n):
        p = preds[j]
        if len(p) == 1 and succ_count[p[0]] == 1 and p[0] in run_of:
            r = run_of[p[0]]
            if runs[r][-1] == p[0]:
                runs[r].append(j)
                run_of[j] = r
                continue
        run_of[j] = len(runs)
        runs.append([j])
    return runs


def _segments(names: list) -> list[tuple[int, int, int]]:
    """Splits a run of op names into ``(start, period, repeats)`` pieces, greedily taking
    the repeated pattern that covers the most ops (at least `MIN_COLLAPSE`)."""
    out = []
    s, n = 0, len(names)
    while s < n:
        best = (1, 1)  # (period, repeats)
        for p in range(1, MAX_PERIOD + 1):
            if s + 2 * p > n:
                break
            pat = names[s : s + p]
            reps = 1
            while names[s + reps * p : s + (reps + 1) * p] == pat:
                reps += 1
            if reps >= 2 and reps * p >= MIN_COLLAPSE and reps * p > best[0] * best[1]:
                best = (p, reps)
        out.append((s, best[0], best[1]))
        s += best[0] * best[1]
    return out


def _layout_ops(ops: _Ops, max_rows: int, names: dict) -> GraphLayout:
    """`layout` on the ops of a tape: producers, runs, collapsed chains, then placement."""
    n = ops.n
    producer: dict[int, int] = {}
    preds: list[list[int]] = []
    succ_count = [0] * n
    for j in range(n):
        p = []
        for xid in ops.ids(j):
            i = producer.get(xid)
            if i is not None and i not in p:
                p.append(i)
                succ_count[i] += 1
        preds.append(p)
        for o in ops.outputs(j):
            producer[id(o)] = j

    # Group ops into nodes: collapsed repeated chains, single ops otherwise.
    groups: list[tuple[list[int], str, str]] = []  # (op indices, label, kind)
    for run in _chains(ops, preds, succ_count):
        codes = [ops.codes[j] for j in run]
        for s, p, reps in _segments(codes):
            if reps == 1:
                groups.append(([run[s]], ops.name(run[s]), "op"))
            else:
                members = run[s : s + p * reps]
                label = "→".join(ops.names[c] for c in codes[s : s + p]) + f" ×{reps}"
                groups.append((members, label, "chain"))
    groups.sort(key=lambda g: g[0][0])
    node_of_op: dict[int, int] = {}
    for g, (members, _, _) in enumerate(groups):
        for j in members:
            node_of_op[j] = g

    def sources(members, member_set):
        """The group's inputs in reading order: ("op", group) or ("leaf", (xid, j, k))."""
        for j in members:
            for k, xid in enumerate(ops.ids(j)):
                i = producer.get(xid)
                if i is not None and i < j:
                    if i not in member_set:
                        yield "op", node_of_op[i]
                else:
                    yield "leaf", (xid, j, k)

    return _place_groups(
        ops,
        len(groups),
        groups.__getitem__,
        lambda g, members: sources(members, set(members)),
        max_rows,
        names,
    )


def _place_groups(ops: _Ops, n_groups: int, group, sources, max_rows: int, names: dict):
    """Draws the groups in order (``group(g) -> (members, label, kind)``, ``sources(g,
    members)`` their inputs in reading order), each after its new source leaves, until
    ``max_rows`` nodes; then places the leaves and numbers the rows."""
    nodes: list[GraphNode] = []
    edges: list[tuple[int, int]] = []
    group_node: dict[int, int] = {}
    leaf_node: dict[int, int] = {}
    shown_ops = 0
    cap = max_rows if max_rows and max_rows > 0 else None
    for g in range(n_groups):
        members, label, kind = group(g)
        src_nodes: list[int] = []
        leaves: list[tuple[int, int, int]] = []  # (xid, op, k) of the first read
        pending: set[int] = set()
        for what, item in sources(g, members):
            if what == "op":
                src = group_node.get(item)
                if src is not None and src not in src_nodes:
                    src_nodes.append(src)
                continue
            xid = item[0]
            if xid not in leaf_node and xid not in pending:
                pending.add(xid)
                leaves.append(item)
            elif xid in leaf_node and leaf_node[xid] not in src_nodes:
                src_nodes.append(leaf_node[xid])
        if len(leaves) > MAX_LEAVES:  # named ones (up to MAX_LEAVES - 1) stay visible
            named = [lf for lf in leaves if lf[0] in names][: MAX_LEAVES - 1]
            keep = {lf[0] for lf in named}
            rest = [lf for lf in leaves if lf[0] not in keep]
        else:
            named, rest = leaves, []
        need = 1 + len(named) + (1 if rest else 0)
        if cap is not None and len(nodes) + need > cap:
            break
        for xid, j, k in named:
            leaf_node[xid] = len(nodes)
            src_nodes.append(len(nodes))
            nodes.append(GraphNode(_leaf_label(ops.inputs[j][k], xid, names), "leaf"))
        if rest:
            more = "more " if named else ""
            nodes.append(GraphNode(f"{len(rest)} {more}inputs", "leaves"))
            for lf in rest:
                leaf_node[lf[0]] = len(nodes) - 1
            src_nodes.append(len(nodes) - 1)
        me = len(nodes)
        depth = 1 + max(
            (nodes[s].depth for s in src_nodes if nodes[s].kind in ("op", "chain")), default=0
        )
        nodes.append(GraphNode(label, kind, list(members), depth))
        group_node[g] = me
        shown_ops += len(members)
        edges += [(s, me) for s in src_nodes]

    # Leaves sit one layer before their first reader.
    first_reader: dict[int, int] = {}
    for s, d in edges:
        if nodes[s].kind in ("leaf", "leaves"):
            first_reader.setdefault(s, nodes[d].depth)
    for s, d in first_reader.items():
        nodes[s].depth = d - 1
    rows: dict[int, int] = {}
    for node in nodes:
        node.row = rows.get(node.depth, 0)
        rows[node.depth] = node.row + 1
    return GraphLayout(nodes, edges, ops.n, ops.n - shown_ops)


_COLORS = {"op": "#dbe9f6", "chain": "#f6e3c6", "leaf": "#e8f4e0", "leaves": "#e8f4e0"}


def render_png(lay: GraphLayout, title: str = "", dpi: int = 80) -> bytes:
    """Draws ``lay`` with matplotlib (Agg) and returns PNG bytes."""
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch

    depth = lay.depth + 1
    height = max([n.row for n in lay.nodes] + [0]) + 1
    w = min(max(2.0 + 1.9 * depth, 4.0), 30.0)
    h = min(max(1.0 + 0.55 * height, 2.0), 30.0)
    fig = Figure(figsize=(w, h), dpi=dpi)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.9 if title else 0.98))
    ax.set_xlim(-0.7, depth - 0.3)
    ax.set_ylim(height - 0.4, -0.6)
    ax.axis("off")
    pos = [(n.depth, n.row) for n in lay.nodes]
    for s, d in lay.edges:
        ax.add_patch(
            FancyArrowPatch(
                pos[s],
                pos[d],
                arrowstyle="-|>",
                mutation_scale=8,
                color="#888",
                shrinkA=14,
                shrinkB=14,
                lw=0.8,
            )
        )
    for n, (x, y) in zip(lay.nodes, pos):
        label = n.label if len(n.label) <= 28 else n.label[:27] + "…"
        ax.text(
            x,
            y,
            label,
            ha="center",
            va="center",
            fontsize=8,
            family="monospace",
            bbox={"boxstyle": "round,pad=0.3", "fc": _COLORS[n.kind], "ec": "#555", "lw": 0.6},
        )
    if title:
        fig.suptitle(f"{title} — {lay.caption}", fontsize=9, x=0.01, ha="left")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


class TapeGraph:
    """A tape's graph picture as a display: image/png (drawn when a front end asks for it)
    and a one-line text form, no HTML, so that nbval (which ignores images) sees only the
    deterministic text.

    The text form states what the picture shows (``<graph of tape `t`: 2 ops, 5 nodes
    drawn>``), which takes the layout. Where no picture is shown (``picture=False``: a
    text-only front end, as `TapeMagics.tape` tells), it states the number of ops only
    (``<graph of tape `t`: 2 ops>``), and nothing is laid out.

    Attributes:
        n_ops: the number of ops on the tape.
        picture: whether the picture is shown beside the text form.
    """

    def __init__(
        self,
        entries,
        name: str | None = None,
        max_rows: int = 50,
        names=None,
        picture: bool = True,
    ):
        self.name = name
        self.n_ops = len(entries)
        self.picture = picture
        self._args = (entries, max_rows, names)
        self._layout: GraphLayout | None = None
        self._png: bytes | None = None

    @property
    def layout(self) -> GraphLayout:
        """The `GraphLayout` (computed on first use, as the picture is)."""
        if self._layout is None:
            self._layout = layout(*self._args)
        return self._layout

    def png(self) -> bytes:
        """The PNG bytes (drawn once)."""
        if self._png is None:
            where = f"Tape `{self.name}`" if self.name else "Tape"
            self._png = render_png(self.layout, where)
        return self._png

    def _repr_png_(self) -> bytes:
        return self.png()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # The picture only when asked for by name (`tape_magic.show`); IPython's display()
        # asks with include=None, then calls _repr_png_ if the front end shows images.
        bundle = {"text/plain": repr(self)}
        if include and "image/png" in include and not (exclude and "image/png" in exclude):
            bundle["image/png"] = self.png()
        return bundle

    def __repr__(self) -> str:
        where = f" `{self.name}`" if self.name else ""
        if not self.picture:
            n = self.n_ops
            return f"<graph of tape{where}: {n} op{'' if n == 1 else 's'}>"
        return f"<graph of tape{where}: {self.layout.caption}>"

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))
