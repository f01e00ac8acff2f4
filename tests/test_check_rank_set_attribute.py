"""`hvdkit check`, step 7, on a checkpoint helper of the project that makes its writer on rank 0 only and
tests for it at the save (`self.manager = None`, then `if hvd.rank() == 0: self.manager =
CheckpointManager(...)`; `save()` writes `if self.manager is not None`). Which assignment a rank reads is
decided by the conditions around each: on rank 1 the manager is None and nothing is written. An assignment
every rank runs after them is the value on every rank.

Written from scratch for these tests: a TF tape trainer for river discharge, package `hydroflow`."""
import textwrap

import pytest

from hvdkit.check.findings import OK, WRONG
from hvdkit.check.static import analyze

ENTRY = textwrap.dedent("""
    import horovod.tensorflow as hvd
    import tensorflow as tf

    from hydroflow.ckpt import Checkpointer


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = tf.random.normal((4096, 12))
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(64)
        model = tf.keras.Sequential([tf.keras.Input((12,)), tf.keras.layers.Dense(32, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.Adam(1e-3 * hvd.size())
        ckpt = Checkpointer(model, opt, "runs/hydroflow")
        for epoch in range(20):
            for step, (xb, yb) in enumerate(ds):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                opt.apply_gradients(zip(grads, model.trainable_variables))
                if epoch == 0 and step == 0:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(opt.variables, root_rank=0)
            mean = hvd.allreduce(loss)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: loss {float(mean):.4f}")
            ckpt.save(epoch)


    if __name__ == "__main__":
        main()
""").lstrip()

CKPT = textwrap.dedent("""
    import horovod.tensorflow as hvd
    import tensorflow as tf


    class Checkpointer:
        def __init__(self, model, opt, directory):
            self.manager = None
            if hvd.rank() == 0:
                state = tf.train.Checkpoint(model=model, optimizer=opt)
                self.manager = tf.train.CheckpointManager(state, directory, max_to_keep=3)
            AFTER

        def save(self, epoch):
            if self.manager is not None:
                self.manager.save(checkpoint_number=epoch)
""").lstrip()


def _step7(tmp_path, after):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"hydroflow\"\n")
    (tmp_path / "train.py").write_text(ENTRY)
    (tmp_path / "hydroflow").mkdir()
    (tmp_path / "hydroflow" / "__init__.py").write_text("")
    (tmp_path / "hydroflow" / "ckpt.py").write_text(CKPT.replace("AFTER", after))
    findings, _, _ = analyze(str(tmp_path / "train.py"))
    return findings[7]


@pytest.mark.parametrize("after, verdict", [
    ("pass", OK),  # the manager exists on rank 0 only
    # remade on every rank after the rank-0 one: every rank writes into the same directory
    ("self.manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), directory, max_to_keep=3)",
     WRONG),
])
def test_a_writer_made_on_rank_0_only_and_tested_at_the_save(tmp_path, after, verdict):
    assert _step7(tmp_path, after).verdict == verdict
