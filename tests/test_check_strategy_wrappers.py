"""TensorFlow code written with tf.distribute habits and moved to Horovod: hand-written strategy wrappers.

- Step 8: one input function for both splits that shards only `if training:` (`input_fn(x, y, ctx,
  training=False)` for the test split): every rank evaluates the whole test split, so rank 0's metric is the
  job's. The same function called with training=True for the test split shards it, and the unaveraged metric
  is missing its average.
- Step 7: a guard on a property of the project's strategy class (`strategy.is_chief` returning
  `hvd.rank() == 0`) keeps the write on rank 0; a property that holds on every rank does not.
- Walk: a controller that keeps the task it is handed (`self.trainer = trainer`) runs the task's methods
  through it (`self.trainer.train(n)`), so the tape and the broadcast in the task are seen.
- Steps 2 and 3: a dataclass whose fields default to `hvd.local_rank()`, `hvd.size()` and `hvd.rank()`,
  read off an instance (`gpus[dist.local_rank]`, `ds.shard(dist.world_size, dist.rank)`), is the local rank,
  the size and the rank; fields that default to constants are not.

Written from scratch for these tests, shaped as small TF2 repositories."""
import textwrap

from hvdkit.check import FLAGGED, MISSING, OK, WRONG
from hvdkit.check.static import analyze

from crash_scripts import check_project

INPUT_FN = '''
    """Boston housing regression on Kubernetes.  horovodrun -np 4 python trainer.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def input_fn(x, y, batch, ctx, training):
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        if training:
            ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).shuffle(1024).repeat()
        return ds.batch(batch)


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        (x_tr, y_tr), (x_te, y_te) = tf.keras.datasets.boston_housing.load_data()
        ctx = tf.distribute.InputContext(hvd.size(), hvd.rank(), hvd.size())
        train_ds = input_fn(x_tr, y_tr, 32, ctx, training=True)
        test_ds = input_fn(x_te, y_te, 64, ctx, training={test_training})
        model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        mae = tf.keras.metrics.MeanAbsoluteError()
        it = iter(train_ds)
        for step in range(500):
            x, y = next(it)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables + optimizer.variables, root_rank=0)
        for x, y in test_ds:
            mae.update_state(y, model(x, training=False))
        if hvd.rank() == 0:
            print("test mae", float(mae.result()))
            model.save_weights("boston.weights.h5")


    if __name__ == "__main__":
        main()
'''


def input_fn_step8(tmp_path, test_training):
    path = tmp_path / "trainer.py"
    path.write_text(textwrap.dedent(INPUT_FN.replace("{test_training}", test_training)))
    return analyze(str(path))[0][8]


def test_a_shared_input_fn_that_shards_only_training_leaves_the_test_split_whole(tmp_path):
    f = input_fn_step8(tmp_path, "False")
    assert f.verdict == OK and "whole evaluation data" in f.evidence, f


def test_the_same_input_fn_sharding_the_test_split_needs_the_average(tmp_path):
    assert input_fn_step8(tmp_path, "True").verdict in FLAGGED


ENTRY = '''
    """CIFAR-10 with a hand-rolled strategy.  horovodrun -np 4 python train_ctl.py"""
    import tensorflow as tf

    from recipes.strategy import HorovodStrategy
    from recipes.task import Task, Controller


    def main():
        strategy = HorovodStrategy()
        (x, y), _ = tf.keras.datasets.cifar10.load_data()
        ds = tf.data.Dataset.from_tensor_slices((x / 255.0, y[:, 0])).shard(
            strategy.num_replicas_in_sync, strategy.rank).shuffle(5000).batch(64).repeat()
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        optimizer = tf.keras.optimizers.SGD(0.01 * strategy.num_replicas_in_sync)
        task = Task(model, optimizer, ds)
        ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        manager = tf.train.CheckpointManager(ckpt, "ckpt", max_to_keep=3)
        Controller(task, manager, strategy).run(steps=1000, every=100)


    if __name__ == "__main__":
        main()
'''

STRATEGY = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    class HorovodStrategy:
        def __init__(self):
            hvd.init()
            gpus = tf.config.list_physical_devices("GPU")
            if gpus:
                tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

        @property
        def num_replicas_in_sync(self):
            return hvd.size()

        @property
        def rank(self):
            return hvd.rank()

        @property
        def is_chief(self):
            return {chief}
'''

TASK = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    class Task:
        def __init__(self, model, optimizer, ds):
            self.model, self.optimizer, self.it = model, optimizer, iter(ds)
            self.synced = False

        def train(self, n):
            for _ in range(n):
                x, y = next(self.it)
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(
                        y, self.model(x, training=True), from_logits=True))
                {tape}
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                if not self.synced:
                    hvd.broadcast_variables(self.model.variables + self.optimizer.variables, root_rank=0)
                    self.synced = True
            return float(loss)


    class Controller:
        def __init__(self, trainer, manager, strategy):
            self.trainer = trainer
            self.manager = manager
            self.strategy = strategy

        def run(self, steps, every):
            done = 0
            while done < steps:
                loss = self.trainer.train(every)
                done += every
                if self.strategy.is_chief:
                    print("step", done, "loss", loss)
                    self.manager.save(checkpoint_number=done)
'''


def strategy_project(tmp_path, chief="hvd.rank() == 0", tape="tape = hvd.DistributedGradientTape(tape)"):
    files = {"train_ctl.py": ENTRY, "recipes/__init__.py": "",
             "recipes/strategy.py": STRATEGY.replace("{chief}", chief),
             "recipes/task.py": TASK.replace("{tape}", tape)}
    return check_project(tmp_path, files, script="train_ctl.py")[2]


def test_a_write_guarded_by_the_strategys_chief_property_is_rank_0s(tmp_path):
    f = strategy_project(tmp_path)[7]
    assert f.verdict == OK and "rank 0 writes" in f.evidence, f


def test_a_chief_property_true_on_every_rank_lets_every_rank_write(tmp_path):
    f = strategy_project(tmp_path, chief="hvd.size() > 0")[7]
    assert f.verdict == WRONG, f


def test_a_controller_runs_the_task_it_keeps(tmp_path):
    found = strategy_project(tmp_path)
    assert found[5].verdict == OK and "DistributedGradientTape" in found[5].evidence, found[5]
    assert found[6].verdict == OK and "broadcast_variables" in found[6].evidence, found[6]


def test_a_controller_runs_the_tasks_plain_tape_too(tmp_path):
    f = strategy_project(tmp_path, tape="pass")[5]
    assert f.verdict == MISSING, f


DIST_ENTRY = '''
    """IMDB text classifier.  horovodrun -np 4 python finetune.py"""
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from textcls.config import DistConfig


    def main():
        hvd.init()
        dist = DistConfig()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[dist.local_rank], "GPU")
        x = tf.random.uniform((2048, 16))
        y = tf.cast(tf.reduce_sum(x, 1) > 8, tf.int64)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(dist.world_size, dist.rank).batch(32)
        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        opt = tf.keras.optimizers.Adam(1e-3 * dist.world_size)
        for step, (xb, yb) in enumerate(ds):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(yb, model(xb), from_logits=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables + opt.variables, root_rank=0)
        if dist.rank == 0:
            model.save_weights("textcls.weights.h5")


    if __name__ == "__main__":
        main()
'''

DIST_CONFIG = '''
    from dataclasses import dataclass, field

    import horovod.tensorflow as hvd


    @dataclass
    class DistConfig:
        world_size: int = field(default_factory=lambda: {size})
        rank: int = field(default_factory=lambda: {rank})
        local_rank: int = field(default_factory=lambda: {local})
'''


def dist_project(tmp_path, size="hvd.size()", rank="hvd.rank()", local="hvd.local_rank()"):
    config = DIST_CONFIG.replace("{size}", size).replace("{rank}", rank).replace("{local}", local)
    files = {"finetune.py": DIST_ENTRY, "textcls/__init__.py": "", "textcls/config.py": config}
    return check_project(tmp_path, files, script="finetune.py")[2]


def test_fields_defaulting_to_horovods_ranks_pin_and_shard(tmp_path):
    found = dist_project(tmp_path)
    assert found[2].verdict == OK and "local rank" in found[2].evidence, found[2]
    assert found[3].verdict == OK and "disjoint" in found[3].evidence, found[3]


def test_fields_defaulting_to_constants_neither_pin_nor_shard(tmp_path):
    found = dist_project(tmp_path, size="1", rank="0", local="0")
    assert found[2].verdict in FLAGGED, found[2]
    assert found[3].verdict in FLAGGED, found[3]


# Step 7: callbacks that write files filtered by a helper that gives the list back on rank 0 alone.
FIT = '''
    """CT classifier.  horovodrun -np 4 python main.py"""
    import keras
    import numpy as np
    import horovod.tensorflow.keras as hvd

    from ctcls.hvd_utils import standard_callbacks


    def main():
        hvd.init()
        x = np.random.rand(512, 16).astype("float32")
        y = (x.sum(1) > 8).astype("int64")
        x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
        model = keras.Sequential([keras.layers.Dense(2)])
        model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)] + standard_callbacks("out")
        model.fit(x, y, batch_size=32, epochs=3, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
'''

UTILS = '''
    import os

    import keras
    import horovod.tensorflow.keras as hvd


    def is_chief():
        return hvd.rank() == 0


    def chief_only(callbacks):
        {body}


    def standard_callbacks(out_dir):
        cbs = [hvd.callbacks.MetricAverageCallback()]
        cbs += chief_only([keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "ckpt-{{epoch:03d}}.weights.h5"),
                                                           save_weights_only=True)])
        return cbs
'''


def chief_only_step7(tmp_path, body):
    files = {"main.py": FIT, "ctcls/__init__.py": "",
             "ctcls/hvd_utils.py": UTILS.replace("{body}", body).replace("{{", "{").replace("}}", "}")}
    return check_project(tmp_path, files, script="main.py")[2][7]


def test_callbacks_given_back_on_rank_0_alone_are_rank_0s(tmp_path):
    assert chief_only_step7(tmp_path / "a", "return callbacks if is_chief() else []").verdict == OK
    assert chief_only_step7(tmp_path / "b", "if not is_chief():\n            return []\n        return callbacks"
                            ).verdict == OK


def test_callbacks_given_back_on_every_rank_write_on_every_rank(tmp_path):
    f = chief_only_step7(tmp_path, "return callbacks if os.environ.get('SAVE', '1') == '1' else []")
    assert f.verdict == WRONG, f
