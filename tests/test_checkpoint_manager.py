"""`CheckpointManager` as TensorFlow documents it: every constructor argument has its effect
(`keep_checkpoint_every_n_hours`, `checkpoint_interval` with `step_counter`, `init_fn`),
`save(checkpoint_number, check_interval, options)`, and a damaged or hostile state file is
survived (a warning, as TensorFlow logs "Checkpoint ignored"; nothing deleted outside the
directory)."""

import os
import time
import warnings

import numpy as np
import pytest

import eagerkernel as ek


def names(paths):
    return [os.path.basename(p) for p in paths]


def files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".safetensors"))


# -- keep_checkpoint_every_n_hours ---------------------------------------------------------------


def test_keep_checkpoint_every_n_hours_preserves_what_leaves_the_active_set(tmp_path):
    v = ek.Variable(0.0)
    ckpt = ek.train.Checkpoint(v=v)
    manager = ek.train.CheckpointManager(
        ckpt,
        tmp_path,
        max_to_keep=2,
        keep_checkpoint_every_n_hours=1e-6,  # 3.6 ms
    )
    for i in range(5):
        v.assign(float(i))
        manager.save()
        time.sleep(0.01)  # each save lands more than 3.6 ms after the previous one
    # TensorFlow keeps all five: the three that left the active set were each written more
    # than 1e-6 hours after the last preserved one. Only the active set is listed.
    assert files(tmp_path) == [f"ckpt-{i}.safetensors" for i in range(1, 6)]
    assert names(manager.checkpoints) == ["ckpt-4", "ckpt-5"]
    state = ek.train.get_checkpoint_state(tmp_path)
    assert names(state.all_model_checkpoint_paths) == ["ckpt-4", "ckpt-5"]
    assert len(state.all_model_checkpoint_timestamps) == 2
    assert state.last_preserved_timestamp >= state.all_model_checkpoint_timestamps[0] - 1.0
    # A preserved checkpoint restores, and a later manager without the setting keeps it.
    ek.train.Checkpoint(v=v).restore(str(tmp_path / "ckpt-2")).assert_consumed()
    assert float(v.numpy()) == 1.0
    later = ek.train.CheckpointManager(ek.train.Checkpoint(v=v), tmp_path, max_to_keep=1)
    assert names(later.checkpoints) == ["ckpt-4", "ckpt-5"]
    later.save()
    assert "ckpt-2.safetensors" in files(tmp_path)
    assert "ckpt-4.safetensors" not in files(tmp_path)


def test_without_keep_every_n_hours_only_max_to_keep_remain(tmp_path):
    ckpt = ek.train.Checkpoint(v=ek.Variable(0.0))
    manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=2)
    for _ in range(5):
        manager.save()
        time.sleep(0.01)
    assert files(tmp_path) == ["ckpt-4.safetensors", "ckpt-5.safetensors"]


def test_keep_every_n_hours_large_deletes_as_usual(tmp_path):
    ckpt = ek.train.Checkpoint(v=ek.Variable(0.0))
    manager = ek.train.CheckpointManager(
        ckpt, tmp_path, max_to_keep=2, keep_checkpoint_every_n_hours=10
    )
    for _ in range(4):
        manager.save()
    assert files(tmp_path) == ["ckpt-3.safetensors", "ckpt-4.safetensors"]


# -- checkpoint_interval, step_counter -----------------------------------------------------------


def test_checkpoint_interval_saves_every_n_steps(tmp_path):
    step = ek.Variable(0, dtype="int64", trainable=False)
    ckpt = ek.train.Checkpoint(step=step)
    manager = ek.train.CheckpointManager(
        ckpt, tmp_path, max_to_keep=None, step_counter=step, checkpoint_interval=3
    )
    assert manager.checkpoint_interval == 3
    saved = []
    for s in range(8):
        step.assign(np.int64(s))
        saved.append(manager.save() is not None)
    assert saved == [True, False, False, True, False, False, True, False]
    assert names(manager.checkpoints) == ["ckpt-1", "ckpt-2", "ckpt-3"]
    # check_interval=False saves before the interval, but never twice for one step.
    step.assign(np.int64(7))
    assert manager.save(check_interval=False) is not None
    assert manager.save(check_interval=False) is None
    assert len(manager.checkpoints) == 4


def test_checkpoint_interval_needs_step_counter(tmp_path):
    ckpt = ek.train.Checkpoint(v=ek.Variable(0.0))
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=1, checkpoint_interval=5)


def test_restore_or_initialize_sets_the_interval_origin(tmp_path):
    step = ek.Variable(0, dtype="int64", trainable=False)
    ckpt = ek.train.Checkpoint(step=step)
    manager = ek.train.CheckpointManager(
        ckpt, tmp_path, max_to_keep=3, step_counter=step, checkpoint_interval=10
    )
    step.assign(np.int64(20))
    manager.save()
    again = ek.train.CheckpointManager(
        ek.train.Checkpoint(step=step), tmp_path, 3, step_counter=step, checkpoint_interval=10
    )
    step.assign(np.int64(0))
    assert again.restore_or_initialize() == manager.latest_checkpoint
    assert int(step.numpy()) == 20
    step.assign(np.int64(25))
    assert again.save() is None  # 25 < 20 + 10
    step.assign(np.int64(30))
    assert again.save() is not None


# -- init_fn -------------------------------------------------------------------------------------


def test_init_fn_runs_only_without_a_checkpoint(tmp_path):
    v = ek.Variable(0.0)
    ckpt = ek.train.Checkpoint(v=v)
    calls = []

    def init_fn():
        calls.append(1)
        v.assign(42.0)

    manager = ek.train.CheckpointManager(ckpt, tmp_path / "run", max_to_keep=2, init_fn=init_fn)
    assert manager.restore_or_initialize() is None
    assert calls == [1] and float(v.numpy()) == 42.0
    path = manager.save()
    v.assign(0.0)
    assert manager.restore_or_initialize() == path
    assert calls == [1] and float(v.numpy()) == 42.0
    with pytest.raises(TypeError, match="init_fn"):
        ek.train.CheckpointManager(ckpt, tmp_path / "x", max_to_keep=1, init_fn=3)


# -- save's arguments ----------------------------------------------------------------------------


def test_checkpoint_number_names_the_file_and_still_counts(tmp_path):
    ckpt = ek.train.Checkpoint(v=ek.Variable(0.0))
    manager = ek.train.CheckpointManager(ckpt, tmp_path, max_to_keep=None)
    step = ek.Variable(1000, dtype="int64", trainable=False)
    assert os.path.basename(manager.save(checkpoint_number=step)) == "ckpt-1000"
    assert os.path.basename(manager.save(checkpoint_number=7)) == "ckpt-7"
    assert int(ckpt.save_counter.numpy()) == 2  # incremented by both saves
    assert os.path.basename(manager.save()) == "ckpt-3"
    with pytest.raises(TypeError, match="checkpoint_number"):
        manager.save(checkpoint_number=1.5)
    with pytest.raises(TypeError, match="options"):  # a CheckpointOptions is accepted
        manager.save(options=object())
    assert names(manager.checkpoints) == ["ckpt-1000", "ckpt-7", "ckpt-3"]


def test_max_to_keep_error_is_tensorflows(tmp_path):
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for"):
        ek.train.CheckpointManager(ek.train.Checkpoint(), tmp_path, max_to_keep=0)


# -- damaged and hostile state files (item 7) ----------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00garbage\x80",  # not UTF-8
        b'model_checkpoint_path: "ckpt-1\\q"\n',  # a bad escape
        b"model_checkpoint_path: ckpt-1\nthis is not a state file\n",
        b'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_timestamps: nan\n',
    ],
)
def test_damaged_state_file_warns_and_carries_on(tmp_path, content):
    v = ek.Variable(1.0)
    (tmp_path / "checkpoint").write_bytes(content)
    with pytest.warns(RuntimeWarning, match="Checkpoint ignored"):
        assert ek.train.latest_checkpoint(tmp_path) is None
    with pytest.warns(RuntimeWarning, match="Checkpoint ignored"):
        path = ek.train.Checkpoint(v=v).save(str(tmp_path / "plain"))
    assert ek.train.latest_checkpoint(tmp_path) == path  # the state file was rewritten
    (tmp_path / "checkpoint").write_bytes(content)
    with pytest.warns(RuntimeWarning, match="Checkpoint ignored"):
        manager = ek.train.CheckpointManager(ek.train.Checkpoint(v=v), tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        saved = manager.save()
    assert ek.train.latest_checkpoint(tmp_path) == saved


def test_state_file_naming_a_file_outside_is_never_deleted(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    victim = tmp_path / "victim.safetensors"
    victim.write_bytes(b"precious")
    (directory / "checkpoint").write_text(
        'model_checkpoint_path: "../victim"\nall_model_checkpoint_paths: "../victim"\n'
    )
    with pytest.warns(RuntimeWarning, match="outside the directory"):
        manager = ek.train.CheckpointManager(
            ek.train.Checkpoint(v=ek.Variable(0.0)), directory, max_to_keep=1
        )
    with pytest.warns(RuntimeWarning, match="outside the directory"):
        manager.save()  # the state file still names it: still left alone
    for _ in range(2):
        manager.save()
    assert victim.read_bytes() == b"precious"
    assert files(directory) == ["ckpt-3.safetensors"]


def test_a_relative_directory_keeps_max_to_keep_checkpoints_and_lists_them_as_tensorflow(
    tmp_path, monkeypatch
):
    # The guide's ``CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)``: the state file's
    # names and the new saves are one list (they were listed twice, relative and absolute,
    # and the sweep deleted checkpoints it should keep). TensorFlow 2.21 prints these paths.
    monkeypatch.chdir(tmp_path)
    ckpt = ek.train.Checkpoint(step=ek.Variable(1), v=ek.Variable(1.0))
    manager = ek.train.CheckpointManager(ckpt, "./tf_ckpts", max_to_keep=3)
    assert [manager.save() for _ in range(5)] == [f"./tf_ckpts/ckpt-{i}" for i in range(1, 6)]
    assert manager.checkpoints == ["./tf_ckpts/ckpt-3", "./tf_ckpts/ckpt-4", "./tf_ckpts/ckpt-5"]
    again = ek.train.CheckpointManager(ckpt, "./tf_ckpts", max_to_keep=3)
    assert again.latest_checkpoint == "./tf_ckpts/ckpt-5"
    assert again.checkpoints == manager.checkpoints
    for _ in range(5):
        again.save()
    assert again.checkpoints == ["./tf_ckpts/ckpt-8", "./tf_ckpts/ckpt-9", "./tf_ckpts/ckpt-10"]
    assert sorted(p.name for p in (tmp_path / "tf_ckpts").glob("*.safetensors")) == [
        "ckpt-10.safetensors",
        "ckpt-8.safetensors",
        "ckpt-9.safetensors",
    ]
    assert ek.train.latest_checkpoint("./tf_ckpts") == "./tf_ckpts/ckpt-10"
