"""Step 5: a training step made by a factory closes over the optimizer it was given.

`make_finetune_step(model, opt)` returns a `tf.function` that applies `opt`'s gradients; the optimizer is the
factory's parameter, read by the nested function as a free name. A second stage built this way whose tape
Horovod did not wrap steps each rank with its own gradients, clipped or not. Written from scratch for these
tests: a two-stage Keras regression project whose steps live in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Two-stage surrogate.  horovodrun -np 4 python fit_surrogate.py --stage2-epochs 2"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from surrogate.steps import make_pretrain_step, make_finetune_step


    def dataset(rank, size, batch):
        rng = np.random.default_rng(7)
        x = rng.normal(size=(2048, 8)).astype("float32")
        y = x.sum(axis=1, keepdims=True)
        return tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).shuffle(256, seed=1).batch(batch)


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--stage1-epochs", type=int, default=2)
        ap.add_argument("--stage2-epochs", type=int, default=1)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        for gpu in tf.config.list_physical_devices("GPU")[hvd.local_rank():hvd.local_rank() + 1]:
            tf.config.set_visible_devices(gpu, "GPU")
        ds = dataset(hvd.rank(), hvd.size(), 64)
        model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
        model.build((None, 8))
        pre = make_pretrain_step(model, keras.optimizers.Adam(args.lr * hvd.size()))
        first = True
        for epoch in range(args.stage1_epochs):
            for x, y in ds:
                loss = pre(x, y, first)
                first = False
        tuned = make_finetune_step(model, keras.optimizers.SGD(0.1 * args.lr * hvd.size()))
        for epoch in range(args.stage2_epochs):
            for x, y in ds:
                loss = tuned(x, y)
            if hvd.rank() == 0:
                print(f"stage 2 epoch {epoch} loss {float(loss):.4f}")
                model.save_weights("surrogate.weights.h5")


    if __name__ == "__main__":
        main()
'''

STEPS = '''
    import tensorflow as tf
    import horovod.tensorflow as hvd


    def make_pretrain_step(model, opt):
        @tf.function
        def step(x, y, first):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            if first:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
            return loss
        return step


    def make_finetune_step(model, opt):
        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.abs(model(x, training=True) - y))
            {wrap}
            grads = tape.gradient(loss, model.trainable_variables)
            {clip}
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step
'''

WRAP = "tape = hvd.DistributedGradientTape(tape)"
CLIP = "grads, _ = tf.clip_by_global_norm(grads, 1.0)"
CLIP_EACH = "grads = [tf.clip_by_norm(g, 1.0) for g in grads]"


def step5(tmp_path, wrap, clip):
    files = {"fit_surrogate.py": ENTRY, "surrogate/__init__.py": "",
             "surrogate/steps.py": STEPS.replace("{wrap}", wrap or "pass").replace("{clip}", clip or "pass")}
    return check_project(tmp_path, files, script="fit_surrogate.py")[2][5]


def test_a_second_stage_step_with_a_plain_tape_is_flagged(tmp_path):
    f = step5(tmp_path, None, None)
    assert f.verdict in FLAGGED and "did not wrap" in f.evidence, f
    assert f.file and f.file.endswith("steps.py"), f


def test_its_clipped_gradients_are_still_its_own(tmp_path):
    for clip in (CLIP, CLIP_EACH):
        f = step5(tmp_path, None, clip)
        assert f.verdict in FLAGGED and "did not wrap" in f.evidence, (clip, f)


def test_both_stages_averaged_is_ok(tmp_path):
    by_hand = "grads = [hvd.allreduce(g) for g in grads]"
    for wrap, clip in ((WRAP, None), (WRAP, CLIP), (WRAP, CLIP_EACH), (None, by_hand)):
        f = step5(tmp_path, wrap, clip)
        assert f.verdict == OK, (wrap, clip, f)
