"""Divergences found running keras-io graph/audio/rl examples (helper kmisc) against Keras 3."""

import numpy as np

from eagerkernel import keras


def test_cosine_decay_warmup_matches_keras_float32():
    # keras-io mpnn-molecular-graphs: CosineDecay with warm-up. Values printed by
    # tensorflow-cpu 2.21 / Keras 3.15 (float(schedule(step))).
    s = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0, decay_steps=16, warmup_target=1e-3, warmup_steps=40
    )
    got = [float(s(x)) for x in [0, 1, 20, 40, 55]]
    assert got == [
        0.0,
        2.5000001187436283e-05,
        0.0005000000237487257,
        0.0010000000474974513,
        9.607345418771729e-06,
    ]


def test_cosine_decay_alpha_matches_keras_float32():
    # Oracle: Keras 3.15 CosineDecay(0.1, 7, alpha=0.1) at steps 0, 1, 3, 6, 7, 9.
    s = keras.optimizers.schedules.CosineDecay(0.1, 7, alpha=0.1)
    got = [float(s(x)) for x in [0, 1, 3, 6, 7, 9]]
    assert got == [
        0.10000000149011612,
        0.09554359316825867,
        0.06501343846321106,
        0.014456398785114288,
        0.010000000707805157,
        0.010000000707805157,
    ]
    # Several steps at once: float32, the steps' shape; Keras gives 0.49999997 at the middle.
    v = keras.optimizers.schedules.CosineDecay(1.0, 10)(np.array([0, 5, 10, 20])).numpy()
    assert v.dtype == np.float32
    np.testing.assert_array_equal(v, np.float32([1.0, 0.4999999701976776, 0.0, 0.0]))


def _wrap_class(fail):
    class Wrap(keras.layers.Layer):
        """No build of its own, a Dense sublayer and a compute_output_shape."""

        def __init__(self, **kw):
            super().__init__(**kw)
            self.d = keras.layers.Dense(3)

        def call(self, x):
            if fail and (x.shape[0] is None or x.shape[0] < 50):
                raise ValueError("boom")
            return self.d(x) * 2.0

        def compute_output_shape(self, s):
            return (*s[:-1], 3)

    return Wrap


def test_symbolic_call_builds_sublayers_despite_compute_output_shape():
    # keras-io mpnn-molecular-graphs: Keras 3's _maybe_build traces call() for a layer without
    # build(), so its sublayers' weights exist after keras.Input; oracle (Keras 3.15) printed
    # ['wrap/dense/kernel', 'wrap/dense/bias'] and count_params() == 15.
    inp = keras.Input((4,))
    wrap = _wrap_class(False)(name="wrap")
    m = keras.Model(inp, wrap(inp))
    name = wrap.d.name  # "dense", or "dense_N" after other tests in the process made Dense layers
    assert [w.path for w in m.weights] == [f"wrap/{name}/kernel", f"wrap/{name}/bias"]
    assert m.count_params() == 15
    x = np.ones((2, 4), np.float32)
    k, b = (w.numpy() for w in m.weights)
    np.testing.assert_allclose(m(x).numpy(), 2.0 * (x @ k + b), rtol=1e-6)


def test_symbolic_call_warns_when_sublayers_cannot_be_traced():
    # Oracle: Keras 3.15 warns "Layer 'bad' looks like it has unbuilt state, but Keras is not
    # able to trace the layer `call()`..." and the model has no weights yet.
    import pytest

    inp = keras.Input((4,))
    with pytest.warns(UserWarning, match="Layer 'bad' looks like it has unbuilt state"):
        m = keras.Model(inp, _wrap_class(True)(name="bad")(inp))
    assert m.weights == []


def test_preprocessing_sequence_missing_name_message():
    # keras-io node2vec_movielens calls keras.preprocessing.sequence.skipgrams, gone in Keras 3;
    # oracle (Keras 3.15): AttributeError: module 'keras.preprocessing.sequence' has no
    # attribute 'skipgrams'.
    import pytest

    with pytest.raises(AttributeError) as info:
        keras.preprocessing.sequence.skipgrams  # noqa: B018
    assert str(info.value) == ("module 'keras.preprocessing.sequence' has no attribute 'skipgrams'")
    out = keras.preprocessing.sequence.pad_sequences([[1, 2]], maxlen=3)
    np.testing.assert_array_equal(out, [[0, 1, 2]])


def test_backend_ctc_decode_accepts_float_lengths():
    # keras-io ctc_asr passes input_length=np.ones(batch) * frames (float64); Keras 2's
    # ctc_decode casts it to int32. Expected values: tf.nn.ctc_greedy_decoder on
    # log(transpose(y_pred) + 1e-7) with int32 lengths, tensorflow-cpu 2.21, same seed.
    rng = np.random.default_rng(0)
    yp = rng.random((2, 6, 5)).astype("float32")
    yp /= yp.sum(-1, keepdims=True)
    decoded, log_prob = keras.backend.ctc_decode(yp, np.ones(2) * 6, greedy=True)
    np.testing.assert_array_equal(decoded[0].numpy(), [[2, 1, 2, 1, -1, -1], [3, 2, 0, 2, -1, -1]])
    np.testing.assert_allclose(log_prob.numpy().ravel(), [6.636757, 6.505785], rtol=1e-5)
    decoded, log_prob = keras.backend.ctc_decode(
        yp, np.ones(2) * 6, greedy=False, beam_width=4, top_paths=2
    )
    np.testing.assert_array_equal(decoded[0].numpy()[:, :3], [[0, 2, 3], [3, 0, 2]])
    np.testing.assert_allclose(
        log_prob.numpy(), [[-3.8476162, -3.8881726], [-3.7868714, -4.085592]], rtol=1e-5
    )


def test_load_model_of_a_weights_only_checkpoint_says_where_the_weights_are(tmp_path):
    # keras-io speaker_recognition_using_cnn: ModelCheckpoint("model.h5") then load_model.
    # Keras 3.15 writes an HDF5 model; eagerkernel writes weights only (model.h5.safetensors),
    # so load_model raises FileNotFoundError naming the weights file and the way to load them.
    import pytest

    path = str(tmp_path / "model.h5")
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m.compile("sgd", "mse")
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    cb = keras.callbacks.ModelCheckpoint(path, save_best_only=True)
    m.fit(x, y, epochs=1, verbose=0, validation_data=(x, y), callbacks=[cb])
    with pytest.raises(FileNotFoundError, match=r"model\.h5\.safetensors.*load_weights"):
        keras.models.load_model(path)
    m2 = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m2.load_weights(path)
    for a, b in zip(m.get_weights(), m2.get_weights()):
        np.testing.assert_array_equal(a, b)
