"""Step 6: one training function run twice (teacher, then student), each run broadcasting after its first step.

`train_model(name, model, ...)` makes its optimizer and its tape step, and the step broadcasts the model
and the optimizer when handed `tf.constant(first)` with `first` True on the first batch. The student's run
makes a new optimizer after the teacher's broadcast: that is another run of the training, with its own
broadcast, not a model rebuilt after the broadcast. The flag is read through `tf.constant(...)`; handed
`tf.constant(False)` on every batch, the broadcast never runs. Written from scratch for these tests: a
two-stage Keras project whose step factory lives in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Teacher then student.  horovodrun -np 2 python two_stage.py"""
    import os

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from stages.steps import make_train_step


    def train_model(name, model, ds, epochs, lr):
        optimizer = keras.optimizers.Adam(learning_rate=lr * hvd.size())
        step = make_train_step(model, optimizer)
        ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        manager = tf.train.CheckpointManager(ckpt, os.path.join("ckpt", name), max_to_keep=1)
        first = True
        for epoch in range(epochs):
            for x, y in ds:
                loss = step(x, y, tf.constant({flag}))
                first = False
            if hvd.rank() == 0:
                print(f"[{name}] epoch {epoch} loss {float(loss):.4f}")
                manager.save()


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        rng = np.random.default_rng(0)
        x = rng.normal(size=(4096, 16)).astype("float32")
        y = (x[:, :1] > 0).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(1024).batch(64)
        teacher = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
        train_model("teacher", teacher, ds, 3, 1e-3)
        student = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
        train_model("student", student, ds, 3, 5e-4)


    if __name__ == "__main__":
        main()
'''

STEPS = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd

    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


    def make_train_step(model, optimizer):
        @tf.function
        def train_step(x, y, first_batch):
            with tf.GradientTape() as tape:
                loss = bce(y, model(x, training=True))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            if first_batch:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
            return loss
        return train_step
'''


def step6(tmp_path, flag):
    files = {"two_stage.py": ENTRY.replace("{flag}", flag), "stages/__init__.py": "", "stages/steps.py": STEPS}
    return check_project(tmp_path, files, script="two_stage.py")[2][6]


def test_each_run_broadcasting_after_its_first_step_is_ok(tmp_path):
    f = step6(tmp_path, "first")
    assert f.verdict == OK, f


def test_a_flag_handed_false_on_every_batch_never_broadcasts(tmp_path):
    assert step6(tmp_path, "False").verdict in FLAGGED
