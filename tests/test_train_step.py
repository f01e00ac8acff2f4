"""hvdkit.tensorflow.train_step at 2 ranks, each rank with its own batch: with XLA, without, and chosen by a
timed trial, the weights after each step are those of SGD on the average of the ranks' gradients, computed
here in float64 from the data alone; every rank makes the same choice; a model XLA cannot compile falls back
to the uncompiled step (and says why); and a small convolutional network follows the same loss curve compiled
by XLA as without it, within float32 rounding."""
import json

import numpy as np
import pytest

pytestmark = [pytest.mark.horovod, pytest.mark.tensorflow, pytest.mark.slow]  # slow: launches ranks

SCRIPT = """
import json
import numpy as np
import keras
import hvdkit.tensorflow as hk
tf = hk.tf

ctx = hk.init(seed=0, threads=1)
r = ctx.rank
x = tf.constant([[r + 1.0, 1.0, -r], [0.5, r, 2.0]])  # this rank's batch of 2
y = tf.constant([[2.0 * r], [1.0 - r]])


class NumpyScale(keras.layers.Layer):  # an op XLA cannot compile (numpy_function runs Python), on some ranks
    def __init__(self, ranks):
        super().__init__()
        self.ranks = ranks

    def call(self, t):
        if r not in self.ranks:
            return t
        out = tf.numpy_function(lambda a: a * np.float32(1.0), [t], tf.float32, stateful=False)
        out.set_shape(t.shape)
        return out

    def compute_output_shape(self, shape):
        return shape


def linear(extra):
    layers = [keras.Input((3,))] + ([NumpyScale(extra)] if extra else []) + [
        keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")]
    return keras.Sequential(layers)


def weights_after(jit, steps, extra=()):
    model, opt = linear(extra), keras.optimizers.SGD(0.05)
    step = hk.train_step(model, keras.losses.MeanSquaredError(), opt, jit_compile=jit)
    hk.broadcast_state(model, opt)
    rows = []
    for _ in range(steps):
        float(step(x, y))
        rows.append(model.layers[-1].kernel.numpy()[:, 0].tolist())
    return {"jit": str(jit), "extra": list(extra), "choice": step.choice, "report": step.report(), "weights": rows}


for case in (weights_after(True, 2), weights_after(False, 2), weights_after("auto", 7),
             weights_after("auto", 7, extra=(0, 1)), weights_after("auto", 7, extra=(1,))):
    print("CASE", json.dumps(case), flush=True)

# The same small CNN, from the same weights and batches, compiled by XLA and not: the losses of 8 steps.
def cnn_losses(jit):
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((12, 12, 3)), keras.layers.Conv2D(8, 3, padding="same"),
                              keras.layers.BatchNormalization(), keras.layers.ReLU(),
                              keras.layers.Conv2D(16, 3, strides=2), keras.layers.GlobalAveragePooling2D(),
                              keras.layers.Dense(5)])
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    step = hk.train_step(model, keras.losses.SparseCategoricalCrossentropy(from_logits=True), opt, jit_compile=jit)
    hk.broadcast_state(model, opt)
    g = np.random.default_rng(r)  # one batch per rank, fitted step by step
    images, labels = tf.constant(g.normal(size=(8, 12, 12, 3)), tf.float32), tf.constant(g.integers(0, 5, 8))
    return [float(step(images, labels)) for _ in range(8)]
print("CNN", json.dumps({"xla": cnn_losses(True), "plain": cnn_losses(False)}), flush=True)
"""


def expected_weights(steps, lr=0.05):
    """SGD on mean squared error, each rank's batch averaged, then the ranks' gradients averaged (float64)."""
    w = np.ones(3)
    out = []
    for _ in range(steps):
        grads = []
        for r in (0, 1):
            x = np.array([[r + 1.0, 1.0, -r], [0.5, r, 2.0]])
            y = np.array([2.0 * r, 1.0 - r])
            grads.append(2 * x.T @ (x @ w - y) / len(y))
        w = w - lr * np.mean(grads, axis=0)
        out.append(w.copy())
    return np.array(out)


@pytest.fixture(scope="module")
def launch(tmp_path_factory):
    from conftest import run_ranks
    return run_ranks(2, SCRIPT, cwd=str(tmp_path_factory.mktemp("train-step")), timeout=300).check()


def test_each_way_gives_sgd_on_the_averaged_gradients(launch):
    cases = [json.loads(line) for line in launch.lines("CASE")]
    assert len(cases) == 10, launch.stdout[-3000:]
    for case in cases:
        np.testing.assert_allclose(case["weights"], expected_weights(len(case["weights"])), rtol=1e-5,
                                   err_msg=f"{case['jit']} extra={case['extra']}")


def test_the_trial_makes_one_choice_on_every_rank(launch):
    auto = [json.loads(line) for line in launch.lines("CASE") if '"jit": "auto"' in line]
    plain_model = [c for c in auto if not c["extra"]]
    assert len(plain_model) == 2 and plain_model[0]["choice"] == plain_model[1]["choice"] in (True, False)
    assert plain_model[0]["report"] == plain_model[1]["report"]
    assert plain_model[0]["report"].startswith("XLA ") and " ms, no XLA " in plain_model[0]["report"]
    fixed = [json.loads(line) for line in launch.lines("CASE") if '"jit": "True"' in line]
    assert {c["report"] for c in fixed} == {"XLA (chosen by the caller)"}


def test_a_model_xla_cannot_compile_falls_back_on_every_rank(launch):
    fallback = [json.loads(line) for line in launch.lines("CASE") if '"extra": [0, 1]' in line]
    assert len(fallback) == 2
    for case in fallback:
        assert case["choice"] is False
        assert case["report"].startswith("XLA failed (InvalidArgumentError: ") and case["report"].endswith(
            " ms per step: no XLA"), case["report"]


def test_xla_failing_on_one_rank_only_falls_back_on_every_rank_without_a_hang(launch):
    # Rank 1 cannot compile, rank 0 can: both run the same trial steps, and both take the uncompiled way.
    cases = [c for c in map(json.loads, launch.lines("CASE")) if c["extra"] == [1]]
    assert len(cases) == 2 and {c["choice"] for c in cases} == {False}, cases
    failed_here, failed_there = sorted(c["report"] for c in cases)
    assert failed_here.startswith("XLA failed (InvalidArgumentError: "), failed_here  # rank 1
    assert failed_there.startswith("XLA failed on another rank, no XLA "), failed_there  # rank 0
    assert failed_here.endswith(" ms per step: no XLA") and failed_there.endswith(" ms per step: no XLA")


def test_xla_follows_the_uncompiled_loss_curve(launch):
    for line in launch.lines("CNN"):
        curves = json.loads(line)
        assert curves["plain"][-1] < 0.8 * curves["plain"][0]  # it learns: the comparison is not between constants
        np.testing.assert_allclose(curves["xla"], curves["plain"], rtol=2e-5)
