"""`ek.random.Generator` and the stateless random ops (follow `tf.random.Generator`,
`tf.random.stateless_*` and `tf.random.experimental.stateless_split`/`stateless_fold_in`).

Both run TensorFlow's "philox" algorithm (Philox-4x32-10, see `philox`): a Generator's state
is an int64 Variable ``[counter_low, counter_high, key]``, and ``from_seed(1234)`` has the
state ``[1234, 0, 0]``; a draw of ``n`` numbers reads the state and advances the counter by
``256 * n``; a stateless op scrambles its ``seed=[a, b]`` into a key and counter as
TensorFlow's ``StatelessRandomGetKeyCounter`` does. The integers (``uniform`` with integer
dtypes, ``uniform_full_int``, ``split``, ``make_seeds``, ``stateless_split``) are therefore
TensorFlow's exact numbers for the same seed, and the float32/float64 ``normal``, ``uniform``
and ``truncated_normal`` values are TensorFlow's CPU values (checked against the values
TensorFlow's documentation prints), as are ``stateless_categorical``'s, ``binomial``'s and
``stateless_binomial``'s (`random_samplers`). The "threefry" algorithm is not
implemented (NotImplementedError).

Inside a `tf.distribute` strategy, a Generator created in the strategy's scope gives each
replica its own stream: the key is hashed with the replica id, as in TensorFlow.
"""

from __future__ import annotations

import enum
import threading

import numpy as np

from . import philox, random_samplers
from .core import dtypes
from .core.device import current_device
from .core.dispatch import Primitive, defvjp, dispatch, stateful
from .core.errors import InvalidArgumentError, NotFoundError, UnsupportedDTypeError
from .core.tensor import Tensor, make, to_tensor
from .core.variable import Variable
from .distribute import context as _dctx
from .module import name_scope

__all__ = [
    "Algorithm",
    "Generator",
    "create_rng_state",
    "get_global_generator",
    "set_global_generator",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_fold_in",
    "stateless_normal",
    "stateless_split",
    "stateless_truncated_normal",
    "stateless_uniform",
]

_STATE_SIZE = 3  # Philox: two int64 words of counter, one of key


class Algorithm(enum.Enum):
    """The RNG algorithms (follows `tf.random.Algorithm`)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALG_NAMES = {"philox": 1, "threefry": 2, "auto_select": 3}


def _alg_to_int(alg, where: str, threefry: bool = False) -> int:
    """``alg`` (an `Algorithm`, its name or its number) as TensorFlow's integer id; threefry
    (unless ``threefry``) raises NotImplementedError, anything else ValueError."""
    if isinstance(alg, Algorithm):
        value = alg.value
    elif isinstance(alg, str) and alg.lower() in _ALG_NAMES:
        value = _ALG_NAMES[alg.lower()]
    elif isinstance(alg, (int, np.integer, Tensor)) and not isinstance(alg, bool):
        value = int(alg.numpy() if isinstance(alg, Tensor) else alg)
    else:
        value = None
    if value not in (1, 2, 3):
        raise ValueError(
            f"{where}: Argument `alg` got unsupported value {alg!r}. Supported values are "
            '"philox" (or ek.random.Algorithm.PHILOX), "threefry" and "auto_select".'
        )
    if value == 2 and not threefry:
        raise NotImplementedError(
            f'{where}: alg="threefry" is not implemented; the supported algorithms are '
            '"philox" (the default) and "auto_select" (which selects Philox).'
        )
    return value


def _as_int_list(seed, where: str) -> list:
    if isinstance(seed, Tensor):
        seed = seed.numpy()
    arr = np.asarray(seed)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{where}: seed must be an integer or integers, got {seed!r:.80}.")
    return [int(x) for x in arr.reshape(-1)]


def create_rng_state(seed, alg) -> Tensor:
    """The int64 RNG state of a seed (follows `tf.random.create_rng_state`).

    A Python int is cut into 64-bit words, lowest first; a vector of ints is taken as the
    words, cut to the state size or padded with zeros on the left.

    Args:
        seed: a Python int (any size) or a 1-D sequence/Tensor of integers.
        alg: "philox", "threefry", "auto_select", an `ek.random.Algorithm` or its number.

    Returns:
        An int64 Tensor of shape ``[3]`` (``[2]`` for "threefry", whose state only this
        function makes: a `Generator` with "threefry" raises NotImplementedError).

    Raises:
        ValueError: an unknown ``alg``. TypeError: a non-integer seed.

    >>> ek.random.create_rng_state(1234, "philox").numpy()
    array([1234,    0,    0])
    >>> ek.random.create_rng_state([12, 34], "threefry").numpy()
    array([12, 34])
    """
    size = 2 if _alg_to_int(alg, "create_rng_state", threefry=True) == 2 else _STATE_SIZE
    return make(_state_from_seed(seed, "create_rng_state", size), current_device())


def _state_from_seed(seed, where: str, size: int = _STATE_SIZE) -> np.ndarray:
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = int(seed)
        words = [(seed >> (64 * i)) & philox.MASK64 for i in range(size)]
    else:
        words = _as_int_list(seed, where)[:size]
        words = [0] * (size - len(words)) + words
    return np.array([w & philox.MASK64 for w in words], np.uint64).view(np.int64)


def _host_state(value) -> np.ndarray:
    """A state as a host int64 array of length 3."""
    if isinstance(value, Tensor):
        value = value.numpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"Generator: the state must be integers, got dtype {arr.dtype}.")
    arr = np.array([int(x) & philox.MASK64 for x in arr.reshape(-1)], np.uint64).view(np.int64)
    if arr.shape != (_STATE_SIZE,):
        raise ValueError(
            f"Generator: the state of the philox algorithm must have shape [{_STATE_SIZE}], "
            f"got shape {list(np.shape(value))}."
        )
    return arr


def _count(shape) -> int:
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _on_device(arr: np.ndarray, device) -> Tensor:
    return make(arr if device.xp is np else device.xp.asarray(arr), device)


def _affine(x: Tensor, scale, shift, dt: np.dtype, op: str) -> Tensor:
    """``x * scale + shift`` by the runtime's ops (differentiable in ``scale``/``shift``);
    the defaults 1 and 0 leave ``x`` as it is, which is the same number."""
    if not (isinstance(scale, (int, float)) and scale == 1):
        x = x * to_tensor(scale, dt, op)
    if not (isinstance(shift, (int, float)) and shift == 0):
        x = x + to_tensor(shift, dt, op)
    return x


def _scale_uniform(x: Tensor, minval, maxval, dt: np.dtype, op: str) -> Tensor:
    """``x * (maxval - minval) + minval`` for a [0, 1) draw ``x``, as TensorFlow computes it."""
    maxval = 1 if maxval is None else maxval
    if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)):
        return _affine(x, maxval - minval, minval, dt, op)
    lo = to_tensor(minval, dt, op)
    return x * (to_tensor(maxval, dt, op) - lo) + lo


def _int_bounds(minval, maxval, dt: np.dtype, op: str) -> tuple[int, int]:
    lo = int(to_tensor(minval, dt, op).numpy())
    hi = int(to_tensor(maxval, dt, op).numpy())
    if lo >= hi:
        raise InvalidArgumentError(None, op, f"{op}: Need minval < maxval: got {lo} >= {hi}")
    return lo, hi


def _check_int_pair(minval, maxval, dtype, op: str) -> None:
    if dtypes.numpy_dtype(dtype).itemsize < 4:
        raise TypeError(
            f"{op}: integer dtype must be int32, int64, uint32 or uint64, got "
            f"{dtypes.as_dtype(dtype).name}."
        )
    if (minval is None) != (maxval is None):
        raise ValueError(
            f"{op}: For integer dtype {dtypes.as_dtype(dtype).name}, minval and maxval must "
            f"be both `None` or both non-`None`; got minval={minval} and maxval={maxval}"
        )


def _shape(shape, op: str, dt, device) -> tuple:
    from .random import checked_shape as check

    return check(shape, op, dt, device)


def _float(dtype, op: str) -> np.dtype:
    dt = dtypes.numpy_dtype(dtype)
    if dt is None or dt.kind != "f":
        raise TypeError(f"{op}: dtype must be floating, got {dtype!r}.")
    return dt


class Generator:
    """A random-number generator with its state in a Variable (follows
    `tf.random.Generator`).

    Make one with `from_seed`, `from_non_deterministic_state`, `from_state` or
    `from_key_counter` (or ``Generator(state=..., alg=...)``, ``Generator(copy_from=g)``).
    Every draw reads the state and advances it, so a generator's stream is reproducible
    from its seed and continues where a checkpoint of its state left off
    (``ek.train.Checkpoint(generator=g)`` saves ``state`` under the edge ``_state_var``, as
    TensorFlow does). Inside `ek.function` each call draws fresh numbers. As TensorFlow's, a
    Generator is trackable but not an `ek.Module`: a Module or Layer holding one checkpoints
    its state, and does not list it among its ``variables`` or ``weights``.

    Args:
        copy_from: a Generator to copy (its state and algorithm); else
        state: the initial state (int64, shape ``[3]``), or an int64 Variable to use as is;
        alg: "philox", "auto_select" (philox here), an `ek.random.Algorithm` or its number.

    Raises:
        ValueError: both or neither of ``copy_from`` and ``state``; a state of another
            shape; an unknown ``alg``. NotImplementedError: ``alg="threefry"``.

    >>> g = ek.random.Generator.from_seed(1234)
    >>> g.normal(shape=(2, 3)).numpy()
    array([[ 0.9356609 ,  1.0854305 , -0.93788373],
           [-0.5061547 ,  1.3169702 ,  0.7137579 ]], dtype=float32)
    >>> g.state.numpy()
    array([2770,    0,    0])
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        self._distribution_strategy = _dctx.get_strategy() if _dctx.has_strategy() else None
        self._lock = threading.Lock()
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("Generator: give copy_from alone, or state and alg.")
            self._alg = copy_from.algorithm
            self._state_var = self._create_variable(copy_from.state.numpy())
            return
        if state is None or alg is None:
            raise ValueError("Generator: state and alg must both be given (or copy_from).")
        self._alg = _alg_to_int(alg, "Generator")
        if isinstance(state, Variable):
            if state.dtype != dtypes.int64 or tuple(state.shape) != (_STATE_SIZE,):
                raise ValueError(
                    f"Generator: a state Variable must be int64 of shape [{_STATE_SIZE}], got "
                    f"{state.dtype.name} of shape {list(state.shape)}."
                )
            self._state_var = state
        else:
            self._state_var = self._create_variable(_host_state(state))

    def _checkpoint_children(self) -> list:
        """``[(edge, Variable)]`` for `ek.train.Checkpoint`: the state, under TensorFlow's
        edge name."""
        return [("_state_var", self._state_var)]

    @staticmethod
    def _create_variable(value: np.ndarray) -> Variable:
        with name_scope("random_generator"):
            return Variable(value, trainable=False, name="StateVar", dtype=dtypes.int64)

    # -- constructors ---------------------------------------------------------------------

    @classmethod
    def from_seed(cls, seed, alg=None) -> Generator:
        """A generator whose state is ``create_rng_state(seed, alg)`` (follows
        `Generator.from_seed`): a Python int of any size or a vector of ints."""
        alg = 1 if alg is None else _alg_to_int(alg, "Generator.from_seed")
        return cls(state=_state_from_seed(seed, "Generator.from_seed"), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> Generator:
        """A generator with a state from the operating system's entropy (follows
        `Generator.from_non_deterministic_state`)."""
        alg = 1 if alg is None else _alg_to_int(alg, "Generator.from_non_deterministic_state")
        state = np.random.SeedSequence().generate_state(_STATE_SIZE, np.uint64)
        return cls(state=state.view(np.int64), alg=alg)

    @classmethod
    def from_state(cls, state, alg) -> Generator:
        """A generator from a state (int64, shape ``[3]``, or a Variable to share)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg) -> Generator:
        """A generator from a key (a scalar) and a counter (two int64 words)."""
        return cls(state=_key_counter_state(key, counter), alg=alg)

    # -- state ----------------------------------------------------------------------------

    @property
    def state(self) -> Variable:
        """The int64 Variable ``[counter_low, counter_high, key]``."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        """The algorithm's number (1: philox)."""
        return self._alg

    @property
    def key(self) -> Tensor:
        """The key part of the state (a scalar int64)."""
        return make(np.asarray(self._state_var.numpy()[-1]), current_device())

    def reset(self, state) -> None:
        """Sets the state (int64, shape ``[3]``)."""
        self._state_var.assign(_host_state(state))

    def reset_from_seed(self, seed) -> None:
        """Sets the state to ``create_rng_state(seed, self.algorithm)``."""
        self._state_var.assign(_state_from_seed(seed, "Generator.reset_from_seed"))

    def reset_from_key_counter(self, key, counter) -> None:
        """Sets the state from a key and a counter (see `from_key_counter`)."""
        self._state_var.assign(_key_counter_state(key, counter))

    def skip(self, delta) -> Tensor:
        """Advances the counter as a draw of ``delta`` numbers would; returns the state
        before (follows `Generator.skip`)."""
        return _read_and_skip(self._state_var, delta, False)

    def _key_counter(self, shape) -> Tensor:
        """The ``[counter_low, counter_high, key]`` of a draw of ``shape``, advancing the
        state (the key hashed with the replica id in a replica of the strategy this generator
        was made under, as TensorFlow's)."""
        fold = self._distribution_strategy is not None
        return _read_and_skip(self._state_var, _count(shape), fold)

    def _draw(self, kind: str, shape, dt: np.dtype, op: str, lo=0, hi=0) -> Tensor:
        shape = _shape(shape, op, dt, current_device())
        return _fill_op(self._key_counter(shape), kind, shape, dt, lo, hi)

    # -- draws ----------------------------------------------------------------------------

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None) -> Tensor:
        """Samples from N(mean, stddev²) (follows `Generator.normal`).

        Args:
            shape: the output shape. mean, stddev: numbers or tensors broadcastable to it.
            dtype: a floating dtype (float32 default).

        Raises:
            TypeError: a non-floating dtype. InvalidArgumentError: a negative dimension.
        """
        op = "Generator.normal"
        dt = _float(dtype, op)
        return _affine(self._draw("normal", shape, dt, op), stddev, mean, dt, op)

    def truncated_normal(
        self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None
    ) -> Tensor:
        """Normal samples within two standard deviations of ``mean``, others redrawn
        (follows `Generator.truncated_normal`). Raises as `normal`."""
        op = "Generator.truncated_normal"
        dt = _float(dtype, op)
        return _affine(self._draw("truncated_normal", shape, dt, op), stddev, mean, dt, op)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None) -> Tensor:
        """Uniform samples in ``[minval, maxval)`` (follows `Generator.uniform`).

        Floats default to ``[0, 1)``. Integer dtypes need both bounds, or neither for the
        whole range of the dtype (`uniform_full_int`).

        Raises:
            ValueError: an integer dtype with one bound None. InvalidArgumentError:
                integer bounds with ``minval >= maxval``; a negative dimension.
        """
        op = "Generator.uniform"
        dt = dtypes.numpy_dtype(dtype)
        if dt.kind in "iu":
            _check_int_pair(minval, maxval, dtype, op)
            if minval is None:
                return self._draw("full_int", shape, dt, op)
            if dt.kind == "u":  # TF registers no bounded kernel for unsigned dtypes
                raise NotFoundError(
                    None,
                    op,
                    f"{op}: no StatelessRandomUniformIntV2 kernel for dtype {dt.name}; "
                    "bounded integers need int32 or int64.",
                )
            lo, hi = _int_bounds(minval, maxval, dt, op)
            return self._draw("uniform", shape, dt, op, lo, hi)
        dt = _float(dtype, op)
        return _scale_uniform(self._draw("uniform", shape, dt, op), minval, maxval, dt, op)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None) -> Tensor:
        """Integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
        op = "Generator.uniform_full_int"
        dt = dtypes.numpy_dtype(dtype)
        if dt is None or dt.kind not in "iu" or dt.itemsize < 4:
            raise TypeError(f"{op}: dtype must be int32, int64, uint32 or uint64, got {dtype!r}.")
        return self._draw("full_int", shape, dt, op)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None) -> Tensor:
        """Binomial samples: successes in ``counts`` trials of probability ``probs``
        (broadcast to the trailing dimensions of ``shape``; follows `Generator.binomial`),
        TensorFlow's numbers (`random_samplers.binomial`).

        Raises:
            InvalidArgumentError: counts and probs that do not broadcast to the end of
                ``shape``.
        """
        op = "Generator.binomial"
        dt = dtypes.numpy_dtype(dtype)
        shape = _shape(shape, op, dt, current_device())
        counts, probs, batch = _binomial_inputs(shape, counts, probs, op)  # before a draw
        params = {"shape": tuple(shape), "dtype": np.dtype(dt)}
        delta = random_samplers.binomial_skip(tuple(shape), batch)
        state = _read_and_skip(self._state_var, delta, self._distribution_strategy is not None)
        return dispatch(_binomial, (state, counts, probs), params)

    def make_seeds(self, count=1) -> Tensor:
        """``[2, count]`` int64 seeds for stateless ops (follows `Generator.make_seeds`)."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64).numpy()
        return make(np.stack([keys, np.zeros_like(keys)]), current_device())

    def split(self, count=1) -> list:
        """``count`` new independent generators (follows `Generator.split`): their keys are
        this generator's next ``count`` int64 draws, their counters zero. Advances this
        generator's state."""
        if int(count) < 1:
            raise ValueError(f"Generator.split: count must be >= 1, got {count}.")
        keys = self.uniform_full_int([int(count)], dtype=dtypes.int64).numpy()
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys]

    def __repr__(self) -> str:
        return f"<ek.random.Generator alg={self._alg} state={self._state_var.numpy().tolist()}>"


def _key_counter_state(key, counter) -> np.ndarray:
    words = _as_int_list(counter, "Generator")
    if len(words) != _STATE_SIZE - 1:
        raise ValueError(f"Generator: the counter must have shape [2], got {len(words)} words.")
    return _host_state(words + _as_int_list(key, "Generator"))


# -- the ops: reading and advancing a state, and filling from a key and counter ------------------

_LOCK = threading.Lock()  # replicas of a strategy may share one generator


def _host_words(state) -> list:
    return [int(w) & philox.MASK64 for w in np.asarray(getattr(state, "get", lambda: state)())]


@stateful  # every call of a graph function reads and advances the state again
def _read_and_skip(state: Variable, delta, fold_replica: bool) -> Tensor:
    """Reads a Philox state ``[counter_low, counter_high, key]`` and advances its counter by
    ``256 * delta`` (TensorFlow's ``RngReadAndSkip``); returns the state read, its key
    hashed with the replica id when ``fold_replica`` and a replica is running."""
    n = int(to_tensor(delta, np.int64, "Generator.skip").numpy())
    with _LOCK:
        words = _host_words(state.numpy())
        counter = words[0] | (words[1] << 64)
        new = (counter + 256 * n) & ((1 << 128) - 1)
        state.assign(np.array([new & philox.MASK64, new >> 64, words[2]], np.uint64).view(np.int64))
    if fold_replica:
        replica = _dctx.current_replica()
        if replica is not None:  # key = hash(key, replica id), as TensorFlow's
            block = philox.blocks(words[2], int(replica.replica_id_in_sync_group), 1)[0]
            words[2] = int(block[0]) | (int(block[1]) << 32)
    return make(np.array(words, np.uint64).view(np.int64), current_device())


def _key_counter_fwd(xp, seed):
    a, b = (int(x) for x in np.asarray(getattr(seed, "get", lambda: seed)()))
    key, counter = philox.key_counter_from_seed(a, b)
    words = np.array([counter & philox.MASK64, counter >> 64, key], np.uint64).view(np.int64)
    return words if xp is np else xp.asarray(words)


# A stateless op's seed as a Philox state (TensorFlow's StatelessRandomGetKeyCounter).
_get_key_counter = Primitive("StatelessRandomGetKeyCounter", _key_counter_fwd)
defvjp(_get_key_counter, None)


def _fill_fwd(xp, state, kind, shape, dtype, lo, hi):
    w = _host_words(state)
    dt = np.dtype(dtype)
    arr = philox.fill(kind, dt, w[2], w[0] | (w[1] << 64), _count(shape), lo, hi)
    arr = arr.astype(dt).reshape(shape)
    return arr if xp is np else xp.asarray(arr)


# Numbers from a Philox state (TensorFlow's StatelessRandom*V2 kernels).
_fill = Primitive("StatelessRandomV2", _fill_fwd)
defvjp(_fill, None)


def _fill_op(state: Tensor, kind, shape, dt, lo=0, hi=0) -> Tensor:
    params = {"kind": kind, "shape": tuple(shape), "dtype": np.dtype(dt), "lo": lo, "hi": hi}
    return dispatch(_fill, (state,), params)


def numpy_generator(state) -> np.random.Generator:
    """NumPy's Philox generator on the stream of a Philox state ``[counter_low, counter_high,
    key]`` (a host or device array): the draws of the samplers whose numbers are not
    TensorFlow's (binomial, gamma, Poisson, parameterized truncated normal)."""
    w = _host_words(state)
    return np.random.Generator(np.random.Philox(key=w[2], counter=w[0] | (w[1] << 64)))


def _binomial_fwd(xp, state, counts, probs, shape, dtype):
    host = [np.asarray(getattr(a, "get", lambda a=a: a)()) for a in (counts, probs)]
    w = _host_words(state)
    arr = random_samplers.binomial(w[2], w[0] | (w[1] << 64), host[0], host[1], shape)
    with np.errstate(invalid="ignore"):  # a NaN probability: C's cast of NaN, as TF's
        arr = arr.astype(np.dtype(dtype))
    return arr if xp is np else xp.asarray(arr)


# Binomial draws from a Philox state (TF's sampler, `random_samplers.binomial`).
_binomial = Primitive("StatelessRandomBinomial", _binomial_fwd)
defvjp(_binomial, None, None, None)


def _binomial_inputs(shape, counts, probs, op) -> tuple:
    """``counts`` and ``probs`` as tensors of one floating dtype (``probs``'s, float32 by
    default), and the broadcast shape they give the trailing dimensions of ``shape``. As
    TF's kernel, no range check: a count <= 0 or probability <= 0 gives 0, a probability
    >= 1 the count."""
    probs = to_tensor(probs, None, op) if isinstance(probs, Tensor) else probs
    pdt = np.asarray(probs).dtype
    dt = pdt if pdt.kind == "f" else np.dtype(np.float32)
    counts = to_tensor(counts, dt, op)
    probs = to_tensor(probs, dt, op)
    c, p = counts.numpy(), probs.numpy()
    try:
        batch = np.broadcast_shapes(c.shape, p.shape)
        ok = len(batch) <= len(shape) and tuple(shape[len(shape) - len(batch) :]) == batch
    except ValueError:
        ok = False
    if not ok:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: counts {list(c.shape)} and probs {list(p.shape)} must broadcast to a "
            f"shape that shape {list(shape)} ends with.",
        )
    return counts, probs, batch


# -- the global generator ----------------------------------------------------------------------

_global: dict = {"generator": None}


def get_global_generator() -> Generator:
    """The process's generator, made from a non-deterministic state on first use (follows
    `tf.random.get_global_generator`)."""
    if _global["generator"] is None:
        from .function.api import init_scope

        with init_scope():
            _global["generator"] = Generator.from_non_deterministic_state()
    return _global["generator"]


def set_global_generator(generator) -> None:
    """Replaces the global generator (follows `tf.random.set_global_generator`).

    Raises:
        TypeError: ``generator`` is not an `ek.random.Generator`.
    """
    if not isinstance(generator, Generator):
        raise TypeError(
            "set_global_generator: generator must be an ek.random.Generator, got "
            f"{type(generator).__name__}."
        )
    _global["generator"] = generator


# -- stateless ops ------------------------------------------------------------------------------


def seed_state(seed, op: str) -> Tensor:
    """A stateless op's ``seed`` (integers, shape [2]) as a Philox state, by the
    StatelessRandomGetKeyCounter op. Raises UnsupportedDTypeError (TensorFlow's
    InvalidArgumentError, also a TypeError) for another dtype, InvalidArgumentError for
    another shape."""
    seed = to_tensor(seed, None, op)
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise UnsupportedDTypeError(
            None, op, f"{op}: seed must be int32 or int64, got {seed.dtype.name}."
        )
    if tuple(seed.shape) != (2,):
        raise InvalidArgumentError(
            None, op, f"{op}: seed must have shape [2], not {list(seed.shape)}"
        )
    return dispatch(_get_key_counter, (seed,))


def _stateless(kind, shape, seed, dt, op, alg, lo=0, hi=0) -> Tensor:
    if alg not in (None, "auto_select"):
        _alg_to_int(alg, op)
    shape = _shape(shape, op, dt, current_device())
    return _fill_op(seed_state(seed, op), kind, shape, dt, lo, hi)


def stateless_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"
) -> Tensor:
    """N(mean, stddev²) samples determined by ``seed`` (follows
    `tf.random.stateless_normal`): the same seed gives the same numbers, TensorFlow's.

    Args:
        shape: the output shape. seed: two integers (shape [2]).
        mean, stddev: numbers or tensors broadcastable to ``shape``. dtype: floating.

    Raises:
        InvalidArgumentError: a seed not of shape [2]; a negative dimension.
        TypeError: a non-integer seed or non-floating dtype.

    >>> a = ek.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    >>> b = ek.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    >>> bool(ek.reduce_all(a == b)), a.shape
    (True, TensorShape([2, 3]))
    """
    op = "stateless_random_normal"
    dt = _float(dtype, op)
    return _affine(_stateless("normal", shape, seed, dt, op, alg), stddev, mean, dt, op)


def stateless_truncated_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"
) -> Tensor:
    """Truncated-normal samples (within two standard deviations) determined by ``seed``
    (follows `tf.random.stateless_truncated_normal`). Raises as `stateless_normal`."""
    op = "stateless_truncated_normal"
    dt = _float(dtype, op)
    rnd = _stateless("truncated_normal", shape, seed, dt, op, alg)
    return _affine(rnd, stddev, mean, dt, op)


def stateless_uniform(
    shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"
) -> Tensor:
    """Uniform samples in ``[minval, maxval)`` determined by ``seed`` (follows
    `tf.random.stateless_uniform`). Integer dtypes need both bounds, or both None for the
    dtype's whole range.

    Raises:
        ValueError: an integer dtype with exactly one bound None.
        InvalidArgumentError: integer ``minval >= maxval``; a seed not of shape [2].
    """
    op = "stateless_random_uniform"
    dt = dtypes.numpy_dtype(dtype)
    if dt.kind in "iu":
        _check_int_pair(minval, maxval, dtype, op)
        if minval is None:
            return _stateless("full_int", shape, seed, dt, op, alg)
        if dt.kind == "u":
            raise ValueError(
                f"{op}: Argument `dtype` got invalid value {dt.name} when argument `minval` "
                "is not None. Please don't use unsigned integers in this case."
            )
        lo, hi = _int_bounds(minval, maxval, dt, op)
        return _stateless("uniform", shape, seed, dt, op, alg, lo, hi)
    dt = _float(dtype, op)
    return _scale_uniform(_stateless("uniform", shape, seed, dt, op, alg), minval, maxval, dt, op)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial samples determined by ``seed`` (follows `tf.random.stateless_binomial`),
    TensorFlow's numbers (`random_samplers.binomial`).

    Raises:
        InvalidArgumentError: a bad seed; counts/probs that do not broadcast to the end of
            ``shape``.
    """
    op = "stateless_random_binomial"
    dt = dtypes.numpy_dtype(output_dtype)
    shape = _shape(shape, op, dt, current_device())
    counts, probs, _ = _binomial_inputs(shape, counts, probs, op)
    params = {"shape": tuple(shape), "dtype": np.dtype(dt)}
    return dispatch(_binomial, (seed_state(seed, op), counts, probs), params)


def _categorical_fwd(xp, state, logits, num_samples, dtype):
    from .random_stateful import multinomial

    w = _host_words(state)
    x = np.asarray(getattr(logits, "get", lambda: logits)())
    out = multinomial(w[2], w[0] | (w[1] << 64), x, num_samples).astype(np.dtype(dtype))
    return out if xp is np else xp.asarray(out)


# Class indices from a Philox state by inverting each row's CDF.
_categorical = Primitive("StatelessMultinomial", _categorical_fwd)
defvjp(_categorical, None, None)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, classes]`` determined by
    ``seed`` (follows `tf.random.stateless_categorical`: TensorFlow's CPU numbers).
    Returns ``[batch, num_samples]`` of ``dtype`` (int32 or int64).

    Raises:
        InvalidArgumentError: logits not 2-D, no classes, a negative ``num_samples``, a bad
            seed. TypeError: another output dtype.
    """
    op = "stateless_multinomial"
    dt = dtypes.numpy_dtype(dtype)
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"{op}: dtype must be int32 or int64, got {dtype!r}.")
    x = to_tensor(logits, np.float32, op)
    if x.ndim != 2 or x.shape[1] == 0:
        raise InvalidArgumentError(
            None, op, f"{op}: logits must be 2-D with at least one class, got {list(x.shape)}"
        )
    n = int(num_samples)
    if n < 0:
        raise InvalidArgumentError(None, op, f"{op}: num_samples must be >= 0, got {n}")
    params = {"num_samples": n, "dtype": dt}
    return dispatch(_categorical, (seed_state(seed, op), x), params)


def _seed_tensor(seed, op: str) -> Tensor:
    """``seed`` as a tensor; a pair of Tensors is packed in their dtype, as TensorFlow packs
    ``(counter, counter)`` of int64 (the data_augmentation tutorial), not as int32."""
    from .ops.autopack import first_tensor, pack

    if isinstance(seed, (list, tuple)) and first_tensor(seed) is not None:
        return pack(seed, op, first_tensor(seed).dtype)
    return to_tensor(seed, None, op)


def stateless_split(seed, num=2, alg="auto_select") -> Tensor:
    """``num`` new seeds ``[num, 2]`` from ``seed`` (follows
    `tf.random.experimental.stateless_split`): full-range integers of the seed's dtype.

    >>> ek.random.experimental.stateless_split([1, 2], num=1).shape
    TensorShape([1, 2])
    """
    seed = _seed_tensor(seed, "stateless_split")
    return stateless_uniform(
        [int(num), 2], seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg
    )


def stateless_fold_in(seed, data, alg="auto_select") -> Tensor:
    """A new seed from ``seed`` and an integer ``data`` (follows
    `tf.random.experimental.stateless_fold_in`): ``[draw(seed), data]``."""
    from .ops.array_ops import stack

    data = to_tensor(data, None, "stateless_fold_in")
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return stack([first, data])
