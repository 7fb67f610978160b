"""Deferred restoration through the creation hooks: `Layer.variable_observers`,
`Optimizer.slot_observers` and the weakly held `Observers` list behind them."""

import gc
import weakref

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.io.checkpoint import CheckpointError
from eagerkernel.runtime.keras.layers import Layer
from eagerkernel.runtime.keras.optimizers import Optimizer
from eagerkernel.runtime.observers import Observers

layers = ek.keras.layers
X = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
Y = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)


def make_model(**kwargs):
    return ek.keras.Sequential(
        [layers.Dense(3, activation="relu", **kwargs), layers.Dense(2, name=None)]
    )


def train_step(model, optimizer):
    with ek.GradientTape() as tape:
        loss = ek.reduce_mean(ek.square(model(X) - Y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))


def values(variables):
    return [np.array(v.numpy()) for v in variables]


def assert_all_equal(expected, actual):
    assert len(expected) == len(actual)
    for a, b in zip(expected, actual):
        np.testing.assert_array_equal(a, b)


def observers():
    gc.collect()  # restorations whose objects died in earlier tests leave the lists
    return list(Layer.variable_observers), list(Optimizer.slot_observers)


@pytest.fixture
def saved(tmp_path):
    """A trained model and Adam saved in one checkpoint: ``(path, model, optimizer)``."""
    model = make_model(input_shape=(4,))
    opt = ek.keras.optimizers.Adam(0.01)
    train_step(model, opt)
    path = ek.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / "ckpt"))
    return path, model, opt


class Affine(Layer):
    """A layer that writes its own build: a weight made by add_weight, then a Variable made
    without it (restored after the building call)."""

    def build(self, input_shape):  # no super().build(): the hooks must not depend on it
        self.w = self.add_weight("w", shape=(input_shape[-1], 2))
        self.shift = ek.Variable(np.zeros(2, np.float32), name="shift")

    def call(self, inputs):
        return ek.matmul(inputs, self.w) + self.shift


class Scaled(Affine):
    """A subclass overriding build again; it reads a weight right after creating it."""

    def build(self, input_shape):
        super().build(input_shape)
        self.scale = self.add_weight("scale", shape=(), initializer="ones")
        self.scale_in_build = float(self.scale.numpy())

    def call(self, inputs):
        return super().call(inputs) * self.scale


def saved_affine(cls, tmp_path):
    source = cls()
    source(X)
    source.w.assign(np.arange(8, dtype=np.float32).reshape(4, 2))
    source.shift.assign([5.0, -5.0])
    if cls is Scaled:
        source.scale.assign(3.0)
    return source, ek.train.Checkpoint(net=source).write(str(tmp_path / "net"))


def test_variable_made_without_add_weight_arrives_after_the_building_call(tmp_path):
    source, path = saved_affine(Affine, tmp_path)
    target = Affine()
    status = ek.train.Checkpoint(net=target).restore(path)
    with pytest.raises(AssertionError, match="net/w"):
        status.assert_consumed()
    np.testing.assert_array_equal(target(X).numpy(), source(X).numpy())
    status.assert_consumed()
    assert_all_equal(values([source.w, source.shift]), values([target.w, target.shift]))


def test_subclass_with_overridden_build_gets_each_weight_when_it_is_created(tmp_path):
    source, path = saved_affine(Scaled, tmp_path)
    target = Scaled()
    status = ek.train.Checkpoint(net=target).restore(path)
    target(X)
    status.assert_consumed()
    assert target.scale_in_build == 3.0  # restored inside add_weight, before build went on
    assert_all_equal(values(source.variables), values(target.variables))


def test_sequential_built_after_restore_gets_the_saved_values(saved):
    path, model, _ = saved
    empty = ek.keras.Sequential()  # nothing to match yet: every value waits
    status = ek.train.Checkpoint(model=empty).restore(path)
    empty.add(layers.Dense(3, activation="relu", input_shape=(4,)))  # built inside add
    assert_all_equal(values(model.layers[0].variables), values(empty.layers[0].variables))
    empty.add(layers.Dense(2))
    assert_all_equal(values(model.variables), values(empty.variables))
    status.expect_partial()  # the optimizer's values have no object here
    np.testing.assert_array_equal(model(X).numpy(), empty(X).numpy())

    lazy = make_model()  # no input shape: built by its first call
    ek.train.Checkpoint(model=lazy).restore(path)
    assert not lazy.variables
    lazy(X)
    assert_all_equal(values(model.variables), values(lazy.variables))


def test_optimizer_slots_created_after_restore_get_the_saved_values(saved):
    path, model, opt = saved
    fresh = make_model(input_shape=(4,))
    fresh_opt = ek.keras.optimizers.Adam(0.01)
    status = ek.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path)
    assert fresh_opt.variables == [fresh_opt.iterations]  # no slot yet
    with pytest.raises(AssertionError, match=r"\.OPTIMIZER_SLOT/optimizer/m"):
        status.assert_consumed()
    saved_slots = values(opt.variables)

    class Recorder:  # what the slots held when they were created, before the update
        def __init__(self):
            self.seen = []

        def slot_created(self, optimizer, variable, slot_name, slot):
            self.seen.append(np.array(slot.numpy()))

    recorder = Recorder()
    Optimizer.slot_observers.register(recorder)  # after the checkpoint's: called after it
    try:
        train_step(fresh, fresh_opt)
    finally:
        Optimizer.slot_observers.unregister(recorder)
    status.assert_consumed()
    assert_all_equal(saved_slots[1:], recorder.seen)
    train_step(model, opt)  # the reference takes the same step from the same state
    assert_all_equal(values(opt.variables), values(fresh_opt.variables))
    assert_all_equal(values(model.variables), values(fresh.variables))


def test_optimizer_compiled_after_load_weights_gets_its_state(tmp_path):
    model = make_model(input_shape=(4,))
    model.compile(optimizer=ek.keras.optimizers.Adam(0.01), loss="mse")
    model.train_on_batch(X, Y)
    model.save_weights(str(tmp_path / "w"))
    fresh = make_model()  # not built, not compiled
    fresh.load_weights(str(tmp_path / "w"))
    fresh.compile(optimizer=ek.keras.optimizers.Adam(0.01), loss="mse")
    fresh.train_on_batch(X, Y)  # builds (weights restored), then the slots and iter
    model.train_on_batch(X, Y)
    assert int(fresh.optimizer.iterations.numpy()) == 2
    assert_all_equal(values(model.optimizer.variables), values(fresh.optimizer.variables))
    assert_all_equal(values(model.variables), values(fresh.variables))


def test_layer_not_tracked_by_the_checkpoint_is_unaffected(saved):
    path, model, _ = saved
    tracked = make_model()
    status = ek.train.Checkpoint(model=tracked).restore(path)
    stranger = make_model(kernel_initializer="zeros")  # same paths under another root
    stranger(X)
    other = ek.keras.Sequential([layers.Dense(3, kernel_initializer="ones", input_shape=(4,))])
    np.testing.assert_array_equal(stranger.layers[0].kernel.numpy(), np.zeros((4, 3)))
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), np.ones((4, 3)))
    tracked(X)
    assert_all_equal(values(model.variables), values(tracked.variables))
    status.expect_partial()


def test_no_observer_remains_once_every_value_is_assigned(saved):
    path, _, _ = saved
    before = observers()
    fresh, fresh_opt = make_model(), ek.keras.optimizers.Adam(0.01)
    status = ek.train.Checkpoint(model=fresh, optimizer=fresh_opt).restore(path)
    during = observers()
    assert len(during[0]) == len(before[0]) + 1 and len(during[1]) == len(before[1]) + 1
    fresh(X)  # the weights arrive; the slots still wait
    assert len(observers()[1]) == len(before[1]) + 1
    train_step(fresh, fresh_opt)
    status.assert_consumed()
    assert observers() == before

    built = make_model(input_shape=(4,))  # everything exists: nothing waits, nothing registers
    ek.train.Checkpoint(model=built).restore(path).expect_partial()
    assert observers() == before


def test_a_deleted_checkpoint_is_freed_and_its_values_still_arrive(saved):
    path, model, _ = saved
    fresh = make_model()
    ckpt = ek.train.Checkpoint(model=fresh)
    ckpt.restore(path)
    gone = weakref.ref(ckpt)
    del ckpt
    gc.collect()
    assert gone() is None
    fresh(X)
    assert_all_equal(values(model.variables), values(fresh.variables))


def test_a_waiting_restoration_keeps_no_layer_alive(saved):
    path, _, _ = saved
    before = observers()
    fresh = make_model()
    status = ek.train.Checkpoint(model=fresh).restore(path)
    first = weakref.ref(fresh.layers[0])
    model = weakref.ref(fresh)
    del fresh, status
    gc.collect()
    assert model() is None and first() is None
    assert observers() == before  # the restoration went with the objects it waited for


def test_the_newest_restore_wins_and_replaces_the_older(saved, tmp_path):
    path, _, _ = saved
    before = observers()
    other = make_model(input_shape=(4,))
    other_path = ek.train.Checkpoint(model=other).write(str(tmp_path / "other"))
    fresh = make_model()
    ckpt = ek.train.Checkpoint(model=fresh)
    ckpt.restore(path).expect_partial()
    ckpt.restore(other_path)
    assert len(observers()[0]) == len(before[0]) + 1  # the older restoration is gone
    fresh(X)
    assert_all_equal(values(other.variables), values(fresh.variables))
    assert observers() == before


def test_a_newer_restore_of_one_layer_wins_over_an_older_restore_of_the_model(saved, tmp_path):
    path, model, _ = saved
    before = observers()
    other = layers.Dense(3, activation="relu")
    other(X)
    other_path = ek.train.Checkpoint(layer=other).write(str(tmp_path / "layer"))
    fresh = make_model()
    older = ek.train.Checkpoint(model=fresh).restore(path)
    ek.train.Checkpoint(layer=fresh.layers[0]).restore(other_path).assert_existing_objects_matched()
    fresh(X)
    assert_all_equal(values(other.variables), values(fresh.layers[0].variables))
    assert_all_equal(values(model.layers[1].variables), values(fresh.layers[1].variables))
    with pytest.raises(AssertionError, match="model/layer-0/kernel"):
        older.assert_consumed()  # replaced by the newer restore's values
    # The optimizer's values still wait for `Checkpoint.optimizer` to be given (TensorFlow's
    # deferred restoration); the status holds that Checkpoint, so they go with it.
    del older
    gc.collect()
    assert observers() == before


def test_a_deferred_value_of_another_shape_raises_when_the_weight_is_created(saved):
    path, _, _ = saved
    wide = ek.keras.Sequential([layers.Dense(5), layers.Dense(2)])
    status = ek.train.Checkpoint(model=wide).restore(path)
    with pytest.raises(CheckpointError, match=r"'model/layer-0/kernel'.*\(4, 3\).*\(4, 5\)"):
        wide(X)
    with pytest.raises(AssertionError, match="model/layer-0/kernel"):
        status.assert_consumed()


# -- Observers -------------------------------------------------------------------------------


class Log:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def event(self, value):
        self.log.append((self.name, value))


def test_observers_are_called_in_order_once_each_and_held_weakly():
    log: list = []
    obs = Observers()
    a, b = Log("a", log), Log("b", log)
    obs.register(a)
    obs.register(b)
    obs.register(a)  # already registered: no second call
    obs.notify("event", 1)
    assert log == [("a", 1), ("b", 1)]
    assert list(obs) == [a, b] and a in obs and len(obs) == 2
    gone = weakref.ref(b)
    del b
    gc.collect()
    assert gone() is None and list(obs) == [a] and len(obs) == 1
    obs.unregister(a)
    assert not obs and len(obs) == 0
    obs.notify("event", 2)
    assert log == [("a", 1), ("b", 1)]


def test_an_observer_may_unregister_itself_while_notified():
    log: list = []
    obs = Observers()

    class Once(Log):
        def event(self, value):
            super().event(value)
            obs.unregister(self)

    once, always = Once("once", log), Log("always", log)
    obs.register(once)
    obs.register(always)
    obs.notify("event", 1)
    obs.notify("event", 2)
    assert log == [("once", 1), ("always", 1), ("always", 2)]


def test_an_observer_error_propagates_to_the_notifier():
    class Failing:
        def weight_created(self, layer, variable):
            raise RuntimeError(f"no {variable.name}")

    failing = Failing()
    Layer.variable_observers.register(failing)
    try:
        with pytest.raises(RuntimeError, match=r"no dense_.*/kernel"):
            layers.Dense(2)(X)
    finally:
        Layer.variable_observers.unregister(failing)
    assert failing not in Layer.variable_observers
