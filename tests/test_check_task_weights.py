"""Learned loss weights beside a network in a TensorFlow tape loop (uncertainty weighting of a data term and a
physics term): a `tf.Module` whose only variable starts at zeros, trained by its own optimizer from a tape
Horovod did not wrap.

- Step 5 is wrong: the weights step with each rank's own gradients.
- Step 4 does not judge that optimizer's LR: its updates are each rank's own (step 5's fault), so its
  constant LR is no missing scaling; the network's optimizer is scaled.
- Step 6: the weights start at zeros on every rank and need no broadcast; made with a random initial value,
  they do.

Written from scratch for these tests, shaped as a surrogate-model repository with its own `plasma` package."""
from hvdkit.check import FLAGGED, OK, WRONG

from crash_scripts import check_project

TRAIN = '''
    """Tokamak profile surrogate.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from plasma.model import UncertaintyWeights


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.rand(4096, 8).astype("float32")[hvd.rank()::hvd.size()]
        y = x.sum(1, keepdims=True)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512).batch(64).repeat()
        model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(1)])
        weights = UncertaintyWeights(2)
        opt = tf.keras.optimizers.Adam(learning_rate=1e-3 * hvd.size())
        w_opt = tf.keras.optimizers.Adam(learning_rate=1e-3)
        it = iter(ds)
        for step in range(300):
            xb, yb = next(it)
            with tf.GradientTape() as tape, tf.GradientTape() as wtape:
                pred = model(xb, training=True)
                loss = weights([tf.reduce_mean(tf.square(pred - yb)), tf.reduce_mean(tf.nn.relu(-pred))])
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            w_grads = wtape.gradient(loss, weights.trainable_variables)
            w_opt.apply_gradients(zip(w_grads, weights.trainable_variables))
            if step == 0:
                hvd.broadcast_variables(model.variables + opt.variables, root_rank=0)
        if hvd.rank() == 0:
            model.save_weights("tokamak.weights.h5")


    if __name__ == "__main__":
        main()
'''

MODEL = '''
    import tensorflow as tf


    class UncertaintyWeights(tf.Module):
        def __init__(self, n_terms=2):
            super().__init__()
            self.log_vars = tf.Variable({init}, name="log_vars")

        def __call__(self, losses):
            total = 0.0
            for i, term in enumerate(losses):
                total += tf.exp(-self.log_vars[i]) * term + self.log_vars[i]
            return total
'''


def tokamak(tmp_path, init="tf.zeros(n_terms)"):
    files = {"train.py": TRAIN, "plasma/__init__.py": "", "plasma/model.py": MODEL.replace("{init}", init)}
    return check_project(tmp_path, files, script="train.py")[2]


def test_the_weights_plain_tape_is_step_5s_fault(tmp_path):
    f = tokamak(tmp_path)[5]
    assert f.verdict == WRONG and "wtape" in f.evidence, f


def test_the_lr_of_an_optimizer_stepping_unaveraged_is_not_judged(tmp_path):
    f = tokamak(tmp_path)[4]
    assert f.verdict == OK and "scaled by hvd.size()" in f.evidence, f


def test_weights_starting_at_zeros_need_no_broadcast(tmp_path):
    assert tokamak(tmp_path)[6].verdict == OK


def test_weights_starting_at_random_values_need_a_broadcast(tmp_path):
    f = tokamak(tmp_path, init="tf.random.normal([n_terms])")[6]
    assert f.verdict in FLAGGED and "weights" in f.evidence, f
