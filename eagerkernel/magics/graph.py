"""The picture of a recorded tape, drawn by Graphviz: ops and the tensors they read, top to
bottom, as inline SVG.

`build_graph` turns a tape's `Records` into a `GraphSpec` (nodes, edges and the clusters they
sit in); `GraphSpec.dot` writes it in the DOT language with the ``graphviz`` package, and
`render_svg` lays it out with Graphviz's ``dot`` program. What the picture shows:

* one node per op (every data path drawn: no op is merged into another's box), labelled with
  the op and its output's ``dtype[shape]``; a tooltip gives the op, its input and output
  specs, device, time and the source line that ran it;
* one node per tensor the ops read that no recorded op produced: a Variable by its name
  (``dense/kernel:0``), a tensor by its name in the namespace, a small constant by its value;
* the ops of one Keras layer (or name scope) inside one cluster labelled with the layer's name,
  nested as the layers are; a layer of more than ``collapse`` ops (and no nested layer) is
  drawn as one node unless ``expand``; ops of backward passes (``tape.gradient``) and of
  optimizer updates sit in clusters of their own colour, never collapsed;
* at most ``max_nodes`` nodes: the caption says how many ops were left out.

``dot`` takes tens of milliseconds; the layout is cached by the graph's structure (the DOT
text without times), so re-running a cell reuses it and only the tooltips' times change.
Without the ``dot`` program the picture is replaced by a one-line note on how to install it.
"""

from __future__ import annotations

import functools
import html
import linecache
import os
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..runtime.core.records import Records
from .formatting import format_bytes, format_seconds, spec, specs

__all__ = [
    "GraphSpec",
    "TapeGraph",
    "allocated_bytes",
    "build_graph",
    "dot_available",
    "render_svg",
]

#: A cluster with more ops than this (and no nested cluster) is drawn as one node.
DEFAULT_COLLAPSE = 24
#: Constants with at most this many elements show their value.
MAX_VALUE_ELEMENTS = 4
INSTALL_NOTE = (
    "Graph not drawn: Graphviz's `dot` program was not found. Install Graphviz "
    "(Debian/Ubuntu: `apt-get install graphviz`; macOS: `brew install graphviz`; conda: "
    "`conda install graphviz`), then re-run the cell. The tables above do not need it."
)

# Fill colours by section: forward, backward pass, optimizer update; leaves.
_FILL = {"forward": "#dbe9f6", "backward": "#fde3c8", "optimizer": "#d8f0d2"}
_CLUSTER = {
    "layer": ("#f7f9fc", "#8aa4c8"),
    "name_scope": ("#f7f9fc", "#8aa4c8"),
    "backward": ("#fff8f0", "#e0a060"),
    "optimizer": ("#f4fbf2", "#6cae5e"),
    "function": ("#f9f5fc", "#a08ac8"),
}
_LEAF_FILL = {"variable": "#fff7d6", "constant": "#eeeeee", "tensor": "#e8f4e0"}


def section_of(path: tuple) -> str:
    """``"backward"``, ``"optimizer"`` or ``"forward"``: where an op with scope ``path`` ran.

    >>> section_of((("layer", "dense"),)), section_of((("backward", "gradient"),))
    ('forward', 'backward')
    """
    for kind, _ in path:
        if kind in ("backward", "optimizer"):
            return kind
    return "forward"


def scope_label(path: tuple) -> str:
    """The scope path as text: layer names joined by ``/`` (``sequential/conv2d``), a backward
    pass as ``backward``; ``""`` outside any scope.

    >>> scope_label((("layer", "sequential"), ("layer", "dense_1")))
    'sequential/dense_1'
    """
    return "/".join("backward" if kind == "backward" else name for kind, name in path)


def source_text(source, cell_file: str | None = None) -> str:
    """Where an op was called from: ``line 3`` in the cell being profiled (``cell_file``; when
    None, any notebook cell), ``step() line 3`` in a function another cell defined (``other
    cell line 3`` for its own code, on a ``--persistent`` tape),
    ``file.py:12`` elsewhere, ``""`` when unknown."""
    if source is None:
        return ""
    code, line = source
    filename = code.co_filename
    if filename == cell_file or (cell_file is None and _is_cell(filename)):
        return f"line {line}"
    if _is_cell(filename):  # another cell (prompt numbers differ between ways of running a
        # notebook): a function it defined by its name, its own code (--persistent) as such
        where = "other cell" if code.co_name == "<module>" else f"{code.co_name}()"
        return f"{where} line {line}"
    return f"{os.path.basename(filename)}:{line}"


def _is_cell(filename: str) -> bool:
    """Whether ``filename`` names notebook cell code: IPython keeps a cell's lines in
    ``linecache`` with no modification time (a file on disk has one)."""
    entry = linecache.cache.get(filename)
    return entry is not None and len(entry) == 4 and entry[1] is None


def _value_text(t) -> str | None:
    """The values of a small tensor (``0.5``, ``[1, 2]``), or None for a larger one."""
    value = getattr(t, "_value", None)
    if value is None or getattr(value, "size", MAX_VALUE_ELEMENTS + 1) > MAX_VALUE_ELEMENTS:
        return None
    a = np.asarray(t.numpy())
    if a.ndim == 0:
        return f"{a.item():.4g}" if a.dtype.kind == "f" else str(a.item())
    items = [f"{v:.4g}" if a.dtype.kind == "f" else str(v) for v in a.ravel().tolist()]
    return "[" + ", ".join(items) + "]"


@dataclass
class GraphSpec:
    """What the picture shows: ``nodes`` (id -> (label, tooltip, attributes)), ``edges``
    (pairs of ids), ``clusters`` (a tree: path -> node ids and child paths), and counts."""

    nodes: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)
    members: dict = field(default_factory=dict)  # cluster path -> [node ids]
    n_ops: int = 0
    drawn_ops: int = 0
    collapsed: list = field(default_factory=list)  # labels of collapsed clusters
    saved_edges: set = field(default_factory=set)  # forward -> backward edges
    # Whether the saved-value edges are drawn (``%%tape --saved``). Hidden by default: a
    # training step has one per activation a VJP reads, and drawn they cross the whole
    # picture; each backward op's tooltip names the forward values it reads instead.
    show_saved: bool = False
    # Invisible edges that place each section below the one before it (its first node after
    # the previous section's last): a backward pass starts from a seed no op produced, so
    # nothing else would keep it from being drawn beside the forward pass.
    order_edges: list = field(default_factory=list)
    title: str = ""

    @property
    def clusters(self) -> list:
        """The cluster paths drawn (layers, name scopes, backward and optimizer sections)."""
        return [p for p in self.members if p]

    @property
    def caption(self) -> str:
        n = self.n_ops
        text = f"{n} op{'' if n == 1 else 's'}"
        layers = [p for p in self.members if p and p[-1][0] in ("layer", "name_scope")]
        if layers:
            text += f", {len(layers)} layer{'' if len(layers) == 1 else 's'}"
        text += f", {len(self.nodes)} nodes drawn"
        hidden = n - self.drawn_ops
        if hidden:
            text += f"; {hidden} more op{'' if hidden == 1 else 's'} not drawn (--max-rows)"
        saved = len(self.saved_edges)
        if saved and not self.show_saved:
            text += (
                f"; {saved} edge{'' if saved == 1 else 's'} from forward values to the backward"
                " pass not drawn (--saved)"
            )
        return text

    def alt_text(self) -> str:
        """A sentence describing the picture, for screen readers (``aria-label``)."""
        names = [scope_label(p) for p in self.clusters]
        text = f"Graph of {self.title or 'the tape'}: {self.caption}."
        if names:
            text += " Clusters: " + ", ".join(names[:12]) + ("…" if len(names) > 12 else "")
        return text

    def dot(self, tooltips: bool = True) -> str:
        """The DOT source (``graphviz.Digraph``). With ``tooltips=False`` each tooltip is a
        placeholder ``@T<node>@``: the structure alone, which keys the layout cache."""
        import graphviz

        g = graphviz.Digraph(
            "tape",
            graph_attr={
                "rankdir": "TB",
                "nodesep": "0.25",
                "ranksep": "0.3",
                "fontname": "Helvetica",
                "fontsize": "10",
                "tooltip": " ",
            },
            node_attr={
                "shape": "box",
                "style": "rounded,filled",
                "fontname": "Helvetica",
                "fontsize": "10",
                "height": "0.3",
                "margin": "0.08,0.03",
            },
            edge_attr={"color": "#777777", "arrowsize": "0.6"},
        )
        children: dict[tuple, list] = {}
        for path in self.members:
            if path:
                children.setdefault(path[:-1], []).append(path)

        def add(graph, path):
            for node in self.members.get(path, ()):
                label, tip, attrs = self.nodes[node]
                graph.node(node, label, tooltip=tip if tooltips else f"@T{node}@", **attrs)
            for child in children.get(path, ()):
                kind, name = child[-1]
                fill, line = _CLUSTER.get(kind, _CLUSTER["layer"])
                with graph.subgraph(name=f"cluster_{_slug(child)}") as sub:
                    label = "backward (tape.gradient)" if kind == "backward" else name
                    if kind == "optimizer":
                        label = f"optimizer {name}"
                    sub.attr(
                        label=label,
                        style="rounded,filled" + (",dashed" if kind == "backward" else ""),
                        fillcolor=fill,
                        color=line,
                        fontcolor="#333333",
                        labeljust="l",
                        tooltip=f"{kind}: {scope_label(child)}",
                    )
                    add(sub, child)

        add(g, ())
        for a, b in self.order_edges:
            g.edge(a, b, style="invis")
        for a, b in self.edges:
            if (a, b) in self.saved_edges:
                if not self.show_saved:
                    continue
                # A forward value a backward op reads (an activation saved for a VJP): drawn
                # light, and left out of the ranking, so the backward pass lays out below
                # the forward pass instead of beside it.
                g.edge(a, b, constraint="false", color="#c8c8c8", style="dashed")
            else:
                g.edge(a, b)
        return g.source


def _slug(path: tuple) -> str:
    return re.sub(r"\W", "_", "__".join(name for _, name in path))


def build_graph(
    records: Records,
    names: dict | None = None,
    max_nodes: int = 50,
    collapse: int = DEFAULT_COLLAPSE,
    expand: bool = False,
    cell_file: str | None = None,
    title: str = "",
    saved: bool = False,
) -> GraphSpec:
    """The `GraphSpec` of a tape's ``records`` (oldest op first).

    Args:
        records: the tape's `Records` (a profiling tape's know each op's scope and caller).
        names: ``{id: name}`` for tensors and Variables (a Variable's id is the one its
            snapshot is recorded under): leaves carry these names.
        max_nodes: most nodes drawn (0: all); ops are drawn in tape order until then.
        collapse: a cluster of more ops than this, with no nested cluster, is one node.
        expand: draw every cluster's ops (no collapsing).
        cell_file: the profiled cell's file name, for the ``line N`` of tooltips.
        title: what the picture is of (the alt text names it).
        saved: draw the edges from forward values to the backward ops that read them
            (`GraphSpec.show_saved`); otherwise the backward ops' tooltips name them.
    """
    names = names or {}
    n = len(records)
    if any(path for _, path, *_ in records.scope_marks):
        scopes = records.scopes()
    else:  # every op outside any scope (a plain cell): no per-op paths to walk
        scopes = None
    sources = records.sources()
    spec_graph = GraphSpec(n_ops=n, title=title, show_saved=saved)
    cap = max_nodes if max_nodes and max_nodes > 0 else None

    # Clusters to collapse: innermost (no nested cluster), more than `collapse` ops.
    counts: dict[tuple, int] = {}
    for path, repeats in Counter(scopes or ()).items():
        for k in range(1, len(path) + 1):
            counts[path[:k]] = counts.get(path[:k], 0) + repeats
    parents = {p[:-1] for p in counts if len(p) > 1}
    # A layer or name scope collapses; a backward pass or optimizer update stays open.
    collapsed = set()
    if not expand:
        collapsed = {
            p
            for p, c in counts.items()
            if c > collapse and p not in parents and p[-1][0] in ("layer", "name_scope")
        }
        # An ek.function call is one node, whatever it holds; --expand shows its program.
        collapsed |= {p for p in counts if p[-1][0] == "function"}

    # Where each ek.function call begins (its "function" scope was entered).
    call_starts = {
        (start, path)
        for start, path, *_ in records.scope_marks
        if path and path[-1][0] == "function"
    }
    ops_of_call: dict[str, int] = {}  # collapsed node -> ops in it
    producer: dict[int, str] = {}  # id(output) -> node id
    leaf_of: dict[int, str] = {}
    nodes, edges, members = spec_graph.nodes, spec_graph.edges, spec_graph.members
    members[()] = []
    edge_set: set = set()
    collapsed_node: dict[tuple, str] = {}

    def place(node: str, path: tuple) -> None:
        for k in range(1, len(path) + 1):
            members.setdefault(path[:k], [])
        members[path].append(node)

    section_of_node: dict[str, str] = {}

    def connect(a: str, b: str) -> None:
        if a != b and (a, b) not in edge_set:
            edge_set.add((a, b))
            edges.append((a, b))
            if section_of_node.get(a) == "forward" and section_of_node.get(b) == "backward":
                spec_graph.saved_edges.add((a, b))
                reader = nodes[b]
                first = reader[1].count("\nreads forward: ") == 0
                what = nodes[a][0].replace("\n", " ")
                reader[1] += ("\nreads forward: " if first else ", ") + what

    source_texts: dict = {}
    drawn = 0
    last_section: list = ["forward", None]  # the section of the last op drawn, its node
    for j in range(n):  # the records drawn only (a long tape stops at the cap)
        record = records.entry(j)
        prim, op_inputs, output = record.prim, record.inputs, record.output
        path = scopes[j] if scopes is not None else ()
        group = None
        if collapsed and path:
            group = next((path[:k] for k in range(1, len(path) + 1) if path[:k] in collapsed), None)
        new_nodes = 0 if group is not None and group in collapsed_node else 1
        op_ids = record.ids
        new_leaves = [x for x in op_ids if x not in producer and x not in leaf_of]
        if cap is not None and len(nodes) + new_nodes + len(set(new_leaves)) > cap:
            break
        section = section_of(path) if path else "forward"
        if group is not None:
            me = collapsed_node.get(group)
            if (j, group) in call_starts:  # another call of the same function: its own node
                me = None
            if me is None:
                me = collapsed_node[group] = f"c{len(spec_graph.collapsed)}"
                kind, name = group[-1]
                label = f"{'function ' if kind == 'function' else ''}{name}\n{counts[group]} ops"
                nodes[me] = [label, "", {"fillcolor": _FILL[section], "peripheries": "2"}]
                place(me, group[:-1])
                spec_graph.collapsed.append(scope_label(group))
            ops_of_call[me] = ops_of_call.get(me, 0) + 1
            if group[-1][0] == "function":  # this call's own count
                nodes[me][0] = f"function {group[-1][1]}\n{ops_of_call[me]} ops"
            ops_in = nodes[me][1].count("\n") + 1 if nodes[me][1] else 0
            if ops_in < 12:
                nodes[me][1] += ("\n" if nodes[me][1] else "") + f"#{j} {prim.name}"
        else:
            me = f"o{j}"
            outs = output if type(output) is tuple else (output,)
            out_spec = specs(outs)
            tip = [
                f"#{j} {prim.name}",
                f"inputs: {specs(op_inputs) or '—'}",
                f"output: {out_spec}",
                f"device: {_device_name(outs[0]) if outs else '?'}",
                f"time: {format_seconds(record.seconds)}",
                f"allocated: {format_bytes(allocated_bytes(outs, op_inputs))}",
            ]
            # The C recorder shares one (code, line) between the ops of a call site.
            source = sources[j]
            where = source_texts.get(id(source))
            if where is None:
                where = source_texts[id(source)] = source_text(source, cell_file)
            if where:
                tip.append(f"source: {where}")
            if path:
                tip.append(f"scope: {scope_label(path)}")
            nodes[me] = [
                f"{prim.name}\n{out_spec}",
                "\n".join(tip),
                {"fillcolor": _FILL[section]},
            ]
            place(me, path)
        if section != last_section[0] and last_section[1] is not None:
            spec_graph.order_edges.append((last_section[1], me))
        if me not in section_of_node:
            last_section[:] = [section, me]
        section_of_node[me] = section
        drawn += 1
        for k, xid in enumerate(op_ids):
            src = producer.get(xid)
            if src is None:
                src = leaf_of.get(xid)
                if src is None:
                    src = leaf_of[xid] = f"l{len(set(leaf_of.values()))}"
                    x = op_inputs[k]
                    section_of_node[src] = section  # its first reader's
                    if xid != id(x):  # a Variable's snapshot: ops that read the snapshot
                        leaf_of.setdefault(id(x), src)  # itself (a VJP) read the Variable
                    label, tip, kind = _leaf(x, xid, names)
                    nodes[src] = [
                        label,
                        tip,
                        {
                            "fillcolor": _LEAF_FILL[kind],
                            "shape": "note" if kind == "constant" else "box",
                        },
                    ]
                    # A layer's weights sit in its cluster; other leaves outside every cluster.
                    place(src, path if kind == "variable" and group is None else ())
            connect(src, me)
        if type(output) is tuple:
            for o in output:
                producer[id(o)] = me
        else:
            producer[id(output)] = me
    spec_graph.drawn_ops = drawn
    # An optimizer that updates its variables in place runs no recorded op: one node says
    # that it ran (its time in the tooltip), in the optimizer's cluster.
    marks = records.scope_marks
    done = set()
    for k, (first, path, t0) in enumerate(marks):
        opt = next((path[: m + 1] for m, (kind, _) in enumerate(path) if kind == "optimizer"), None)
        if opt is None or opt in done or opt in members or (cap is not None and len(nodes) >= cap):
            continue
        if k + 1 < len(marks) and marks[k + 1][0] == first:  # no op ran inside it
            done.add(opt)
            node = f"u{len(done)}"
            took = format_seconds(marks[k + 1][2] - t0)
            nodes[node] = (
                f"{opt[-1][1]} update\n(in place)",
                f"optimizer {opt[-1][1]}: variables updated in place, {took} (wall time)",
                {"fillcolor": _FILL["optimizer"]},
            )
            place(node, opt)
            if last_section[1] is not None:
                spec_graph.order_edges.append((last_section[1], node))
    for node, value in list(nodes.items()):
        nodes[node] = tuple(value)
    return spec_graph


def _device_name(t) -> str:
    """The short name of a tensor's device (``/cpu:0``, ``/gpu:1``)."""
    device = getattr(t, "_device", None)
    return getattr(device, "name", None) or str(getattr(t, "device", "?"))


def _root(a):
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def allocated_bytes(outs, inputs=()) -> int:
    """Bytes of new memory behind an op's outputs (a tuple of Tensors): the array each output
    is, or is a view of, unless that is an input's memory (a reshape or a slice of an input
    allocates nothing); memory shared by several outputs counts once.

    >>> x = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> y = x * 2.0
    >>> allocated_bytes((y,), (x,)), allocated_bytes((ek.transpose(x),), (x,))
    (16, 0)
    """
    if len(outs) == 1:  # the common case: one output, a new array (no base), no input's
        v = getattr(outs[0], "_value", None)
        if getattr(v, "base", 0) is None:
            for x in inputs:
                if getattr(x, "_value", None) is v:
                    break
            else:
                return int(v.nbytes)
    seen = {id(_root(getattr(x, "_value", None))) for x in inputs}
    total = 0
    for o in outs:
        root = _root(getattr(o, "_value", None))
        if root is None or id(root) in seen:
            continue
        seen.add(id(root))
        total += int(getattr(root, "nbytes", 0))
    return total


def _leaf(x, xid: int, names: dict) -> tuple[str, str, str]:
    """Label, tooltip and kind (``variable``, ``tensor``, ``constant``) of a source tensor."""
    variable = xid != id(x)  # a Variable is recorded as a snapshot under the Variable's id
    name = names.get(xid)
    text = spec(x)
    if variable:
        label = f"{name or 'Variable'}\n{text}"
        return label, f"Variable {name or ''} {text}".replace("  ", " "), "variable"
    value = _value_text(x)
    if name:
        label = f"{name}\n{value if value is not None else text}"
        return label, f"{name}: {text}" + (f" = {value}" if value else ""), "tensor"
    if value is not None:
        return value, f"constant {text} = {value}", "constant"
    return text, f"tensor {text}", "tensor"


@functools.lru_cache(maxsize=1)
def dot_available() -> bool:
    """Whether Graphviz's ``dot`` program runs here (checked once)."""
    import graphviz

    try:
        graphviz.version()
    except (graphviz.ExecutableNotFound, OSError, RuntimeError):
        return False
    return True


_SVG_CACHE: dict[tuple, tuple[str, dict]] = {}
_SVG_CACHE_SIZE = 32
_DIGIT = re.compile(r"\d")


def render_svg(graph: GraphSpec) -> str:
    """The SVG picture of ``graph`` (Graphviz ``dot``), its layout cached by structure.

    Labels count in the structure with their digits as 0 (a digit is as wide as another):
    a training step whose small constants change between runs (a dropout's seed, a step
    counter) reuses the layout, and only the text of those labels is rewritten.

    Raises:
        graphviz.ExecutableNotFound: no ``dot`` program.
    """
    import graphviz

    # The structure without the tooltips (a tuple: cheaper to make than the DOT text, which
    # is written only when the layout is not cached yet).
    key = (
        tuple(
            (node, _DIGIT.sub("0", label), tuple(attrs.items()))
            for node, (label, _, attrs) in graph.nodes.items()
        ),
        tuple((path, tuple(nodes)) for path, nodes in graph.members.items()),
        tuple(graph.edges),
        tuple(sorted(graph.saved_edges)) if graph.show_saved else (),
        tuple(graph.order_edges),
    )
    labels = {node: label for node, (label, _, _) in graph.nodes.items()}
    cached = _SVG_CACHE.get(key)
    if cached is None:
        svg = graphviz.Source(graph.dot(tooltips=False)).pipe(format="svg", encoding="utf-8")
        svg = svg[svg.find("<svg") :]  # no XML prolog or DOCTYPE inside HTML
        if len(_SVG_CACHE) >= _SVG_CACHE_SIZE:
            _SVG_CACHE.pop(next(iter(_SVG_CACHE)))
        _SVG_CACHE[key] = (svg, labels)
    else:
        svg, drawn = cached
        for node, label in labels.items():
            if drawn[node] != label:
                svg = _relabel(svg, node, drawn[node], label)
    tips = {node: html.escape(tip, quote=True) for node, (_, tip, _) in graph.nodes.items()}
    return re.sub(r"@T(\w+)@", lambda m: tips.get(m.group(1), ""), svg)


def _relabel(svg: str, node: str, old: str, new: str) -> str:
    """``svg`` with the text lines of ``node``'s box (its ``<g>`` group, found by its
    ``<title>``) changed from label ``old`` to label ``new`` (as many lines)."""
    start = svg.find(f"<title>{html.escape(node, quote=False)}</title>")
    if start < 0:
        return svg
    end = svg.find("</g>", start)
    group = svg[start:end]
    for a, b in zip(old.split("\n"), new.split("\n")):
        if a != b:
            a, b = html.escape(a, quote=False), html.escape(b, quote=False)
            group = group.replace(f">{a}</text>", f">{b}</text>", 1)
    return svg[:start] + group + svg[end:]


#: The SVG is scaled down to fit the output's width, to this fraction of its size at most (its
#: 10 pt labels stay above 9 px); a wider graph scrolls sideways.
MIN_SCALE = 0.72


def _fit(svg: str) -> str:
    """The SVG scaled down to the output's width when wider (height in proportion), never up
    and never below `MIN_SCALE`: it keeps its viewBox, so it stays sharp when zoomed."""
    m = re.search(r'width="([\d.]+)pt"', svg[:400])
    if m is None:
        return svg.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    px = float(m.group(1)) * 4 / 3  # CSS: 1 pt = 4/3 px
    style = f"width:100%;max-width:{px:.0f}px;min-width:{MIN_SCALE * px:.0f}px;height:auto"
    return svg.replace("<svg ", f'<svg style="{style}" ', 1)


class TapeGraph:
    """A tape's graph picture as a display: inline SVG inside HTML (with alt text and
    tooltips) and a one-line text form, so that nbval (which compares text) sees only the
    deterministic text. Without Graphviz's ``dot`` the HTML is a one-line note saying how to
    get the picture.

    The text form states what the picture shows (``<graph of tape `t`: 2 ops, 5 nodes
    drawn>``). Where no picture is shown (``picture=False``: a text-only front end, as
    `TapeMagics.tape` tells), it states the number of ops only, and nothing is laid out.

    Attributes:
        n_ops: the number of ops on the tape.
        picture: whether the picture is shown beside the text form.
        spec: the `GraphSpec` (built on first use).
    """

    def __init__(
        self,
        records,
        name: str | None = None,
        max_rows: int = 50,
        names=None,
        picture: bool = True,
        expand: bool = False,
        cell_file: str | None = None,
        saved: bool = False,
    ):
        self.name = name
        self.records = records if isinstance(records, Records) else Records(records)
        self.n_ops = len(self.records)
        self.picture = picture
        # Nodes are ops and the tensors they read: twice the table's rows (0: all).
        self._args = (names, 2 * max_rows, DEFAULT_COLLAPSE, expand, cell_file)
        self._saved = saved
        self._spec: GraphSpec | None = None
        self._svg: str | None = None

    @property
    def spec(self) -> GraphSpec:
        if self._spec is None:
            title = f"tape `{self.name}`" if self.name else "the tape"
            self._spec = build_graph(self.records, *self._args, title=title, saved=self._saved)
        return self._spec

    def svg(self) -> str:
        """The SVG text (drawn once).

        Raises:
            graphviz.ExecutableNotFound: no ``dot`` program.
        """
        if self._svg is None:
            self._svg = render_svg(self.spec)
        return self._svg

    def _repr_html_(self) -> str:
        if not dot_available():
            return f'<div class="eagerkernel-graph-note">{html.escape(INSTALL_NOTE)}</div>'
        alt = html.escape(self.spec.alt_text(), quote=True)
        return (
            f'<div class="eagerkernel-graph" role="img" aria-label="{alt}" '
            f'style="overflow:auto;max-width:100%">{_fit(self.svg())}</div>'
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # The picture only when asked for by name (`tape_magic.show`); IPython's display()
        # asks with include=None, then calls _repr_html_ if the front end shows HTML.
        bundle = {"text/plain": repr(self)}
        if include and "text/html" in include and not (exclude and "text/html" in exclude):
            bundle["text/html"] = self._repr_html_()
        return bundle

    def __repr__(self) -> str:
        where = f" `{self.name}`" if self.name else ""
        if not self.picture:
            n = self.n_ops
            return f"<graph of tape{where}: {n} op{'' if n == 1 else 's'}>"
        return f"<graph of tape{where}: {self.spec.caption}>"

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))
