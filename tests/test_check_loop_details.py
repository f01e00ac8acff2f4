"""Three details of TF 2 loops, each judged by what the code computes:

- a keeper made on rank 0 only (`keeper = BestKeeper(...) if hvd.rank() == 0 else None`) and called under
  `if keeper is not None and keeper.update(...)`: the short-circuit is a guard, so its method's save runs on
  rank 0 alone (ok); a keeper made on every rank writes on every rank (flagged);
- gradients accumulated in an object of the script's own and allreduced when applied
  (`opt.apply_gradients(zip(hvd.grouped_allreduce(acc.mean()), ...))`): averaged (ok); without the
  allreduce, flagged;
- steps per epoch counted in global batches (`len(x) // args.global_batch`, each rank's batch being
  `args.global_batch // hvd.size()`): one pass over a rank's shard (ok); the whole set counted in batches of
  64, flagged.

Written from scratch for these tests: a forecasting script with micro-batch accumulation."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

SCRIPT = '''
    """Demand forecaster.  horovodrun -np 4 python train.py"""
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    p = argparse.ArgumentParser()
    p.add_argument("--global-batch", type=int, default=256)
    p.add_argument("--accum", type=int, default=2)
    p.add_argument("--out", default="ckpt")
    args = p.parse_args()


    class BestKeeper:
        def __init__(self, model, directory):
            self.ckpt = tf.train.Checkpoint(model=model)
            self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=2)
            self.best = float("inf")

        def update(self, value):
            if value < self.best:
                self.best = value
                self.manager.save()
                return True
            return False


    class Accumulator:
        """Sums micro-batch gradients in non-trainable variables."""

        def __init__(self, variables):
            self.total = {v.name: tf.Variable(tf.zeros_like(v), trainable=False) for v in variables}

        def add(self, grads):
            for slot, g in zip(self.total.values(), grads):
                slot.assign_add(g)

        def mean(self, n):
            return [slot / n for slot in self.total.values()]

        def reset(self):
            for slot in self.total.values():
                slot.assign(tf.zeros_like(slot))


    hvd.init()
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16384, 24)).astype("float32")
    y = x[:, :1] * 0.5
    per_rank = args.global_batch // hvd.size()
    data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).repeat().batch(per_rank)
    steps = {steps}
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)])
    model.build((None, 24))
    opt = tf.keras.optimizers.Adam(1e-3)
    acc = Accumulator(model.trainable_variables)
    {keeper}
    hvd.broadcast_variables(model.variables, root_rank=0)


    @tf.function
    def micro_step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(a, training=True) - b))
        acc.add(tape.gradient(loss, model.trainable_variables))
        return loss


    def apply_step():
        grads = {grads}
        opt.apply_gradients(zip(grads, model.trainable_variables))
        acc.reset()


    for epoch in range(20):
        for i, (a, b) in enumerate(data.take(steps * args.accum)):
            loss = micro_step(a, b)
            if (i + 1) % args.accum == 0:
                apply_step()
        mean_loss = float(hvd.allreduce(loss))
        if keeper is not None and keeper.update(mean_loss):
            print(f"epoch {epoch}: best {mean_loss:.5f}")
'''

GLOBAL = "len(x) // args.global_batch"
AVERAGED = "hvd.grouped_allreduce(acc.mean(args.accum), op=hvd.Average)"
RANK0_KEEPER = "keeper = BestKeeper(model, args.out) if hvd.rank() == 0 else None"


def check(tmp_path, steps=GLOBAL, grads=AVERAGED, keeper=RANK0_KEEPER):
    source = SCRIPT.replace("{steps}", steps).replace("{grads}", grads).replace("{keeper}", keeper)
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"))
    findings, _, _ = analyze(str(path))
    return findings


def test_the_correct_script_passes_steps_3_5_and_7(tmp_path):
    f = check(tmp_path)
    assert [f[n].verdict for n in (3, 5, 7)] == [OK, OK, OK], f


def test_a_keeper_made_on_every_rank_writes_on_every_rank(tmp_path):
    f = check(tmp_path, keeper="keeper = BestKeeper(model, args.out)")
    assert f[7].verdict in FLAGGED, f[7]


def test_accumulated_gradients_applied_without_an_allreduce_are_flagged(tmp_path):
    f = check(tmp_path, grads="acc.mean(args.accum)")
    assert f[5].verdict in FLAGGED, f[5]


def test_steps_counted_over_the_whole_set_in_other_batches_are_flagged(tmp_path):
    f = check(tmp_path, steps="len(x) // 64")
    assert f[3].verdict in FLAGGED, f[3]
