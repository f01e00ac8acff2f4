"""Rank script for hvdkit.tensorflow's steps, one check per subcommand (mirror of steps_torch.py).

    mpirun -n 2 python tests/ranks/steps_tf.py shard|metrics|warmup|order|broadcast|checkpoint|fit [...] [...]

Several checks run in turn in one launch (tests/steps.py's shared launches): each sets up its own model,
seeds and data, so none depends on what ran before it.
"""
import argparse
import hashlib
import json
import os
import signal
import warnings

import numpy as np
import tensorflow as tf
import keras

import hvdkit.tensorflow as hk


def digest(variables):
    h = hashlib.sha256()
    for v in variables:
        h.update(np.ascontiguousarray(v.numpy()).tobytes())
    return h.hexdigest()


def shard(ctx, args):
    ds = tf.data.Dataset.range(args.n)
    for drop_last in (False, True):
        sharded = hk.shard(ds, batch_size=3, shuffle=True, seed=5, drop_last=drop_last)
        for epoch in (0, 1):
            seen = [int(i) for batch in sharded.for_epoch(epoch) for i in batch.numpy()]
            print("SHARD", json.dumps({"rank": ctx.rank, "drop_last": drop_last, "epoch": epoch,
                                       "steps": sharded.steps, "samples": seen}), flush=True)
    evaluated = [int(i) for batch in hk.shard_eval(ds, batch_size=3) for i in batch.numpy()]
    print("EVAL", json.dumps({"rank": ctx.rank, "samples": evaluated}), flush=True)


def metrics(ctx, args):
    values = tf.fill([ctx.rank + 1], float(ctx.rank))
    out = hk.average_metrics({"loss": (tf.reduce_sum(values), ctx.rank + 1), "acc": (ctx.rank + 1, ctx.rank + 1),
                              "empty": (0.0, 0)})
    print("METRICS", ctx.rank, json.dumps(out), flush=True)


def warmup(ctx, args):
    sched = hk.warmup(keras.optimizers.SGD(hk.scale_lr(0.1, rule=args.rule)), steps=args.warmup, rule=args.rule)
    lrs = [float(sched(step)) for step in range(args.warmup + 3)]
    print("LRS", ctx.rank, json.dumps({"scaled": hk.scale_lr(0.1, rule=args.rule), "lrs": lrs}), flush=True)


def order(ctx, args):
    """Steps 4 and 5 in both orders: the LR each optimizer step really applied, read off the update; and the
    same when the run is saved after 2 steps and a new run resumes from the checkpoint (step 7).

    One weight, loss = weight * (rank + 1): the averaged gradient is (size + 1) / 2, so plain SGD moves the
    weight by lr * (size + 1) / 2. Any warning fails the check.
    """
    warnings.simplefilter("error")
    x = tf.constant([[ctx.rank + 1.0]])

    def build(name):
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, use_bias=False, kernel_initializer="zeros")])
        opt = keras.optimizers.SGD(hk.scale_lr(0.1))
        if name == "warmup_first":
            hk.warmup(opt, steps=args.warmup)
            opt = hk.distributed_optimizer(opt)
        else:
            opt = hk.distributed_optimizer(opt)
            hk.warmup(opt, steps=args.warmup)
        hk.broadcast_state(model, opt)
        return model, opt

    def applied(model, opt, steps):
        lrs = []
        for _ in range(steps):
            before = float(model.weights[0].numpy()[0, 0])
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            lrs.append((before - float(model.weights[0].numpy()[0, 0])) / ((ctx.size + 1) / 2))
        return lrs

    out = {}
    for name in ("warmup_first", "optimizer_first"):
        out[name] = applied(*build(name), args.warmup + 2)
        ckpt = hk.Checkpointer(f"order-{name}")
        model, opt = build(name)
        lrs = applied(model, opt, 2)
        ckpt.save(0, model=model, optimizer=opt)
        model, opt = build(name)  # a new run
        ckpt.restore(model=model, optimizer=opt)
        out[name + "_resumed"] = lrs + applied(model, opt, args.warmup)
    print("ORDER", ctx.rank, json.dumps(out), flush=True)


def bn_model(seed):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.BatchNormalization(),
                             keras.layers.ReLU(), keras.layers.Dense(2)])


def local_steps(model, opt, n, shift):
    for _ in range(n):
        x = tf.random.normal([16, 4]) + shift
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))


def broadcast(ctx, args):
    model = bn_model(10 + ctx.rank)
    opt = keras.optimizers.Adam(0.01 * (ctx.rank + 1))
    local_steps(model, opt, ctx.rank + 1, float(ctx.rank))
    hk.broadcast_state(model, opt)
    print("BCAST", ctx.rank, digest(model.variables), digest(opt.variables), int(opt.iterations),
          float(opt.learning_rate), flush=True)


def checkpoint(ctx, args):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((64, 4)).astype("float32"), rng.integers(0, 2, 64).astype("int32")
    model = bn_model(20 + ctx.rank)
    train = hk.shard(tf.data.Dataset.from_tensor_slices((x, y)), 4, seed=1)
    opt = keras.optimizers.Adam(hk.scale_lr(0.01))
    hk.warmup(opt, steps=6)
    hk.broadcast_state(model, opt)
    ckpt = hk.Checkpointer(args.dir, keep=2)
    start = ckpt.restore(model=model, optimizer=opt, data=train)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = hk.DistributedGradientTape(tape).gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    print("START", ctx.rank, start, train.epoch, int(opt.iterations), digest(model.trainable_variables), flush=True)
    for epoch in range(start, args.epochs):
        train.set_epoch(epoch)
        for xb, yb in train:
            step(xb, yb)
        wrote = ckpt.save(epoch, model=model, optimizer=opt, data=train, note=f"epoch {epoch}")
        print("SAVED", ctx.rank, epoch, digest(model.trainable_variables), wrote, flush=True)
        if epoch == args.kill_after:
            hk.average_metrics({"saved": (1, 1)})  # a barrier: the kill comes after rank 0's file is complete
            if ctx.rank == ctx.size - 1:
                os.kill(os.getpid(), signal.SIGKILL)
    print("DONE", ctx.rank, digest(model.trainable_variables), ckpt.values.get("note"), flush=True)


def fit(ctx, args):
    """model.fit with hvdkit's Keras 3 callbacks: broadcast, warmup, exact metric averaging."""
    rng = np.random.default_rng(1)
    n = 40 + 8 * ctx.rank  # uneven shards on purpose
    x = rng.standard_normal((n, 4)).astype("float32") + ctx.rank
    y = (x.sum(axis=1) > 2 * ctx.rank).astype("int32")
    model = bn_model(30 + ctx.rank)
    model.compile(optimizer=hk.distributed_optimizer(keras.optimizers.SGD(hk.scale_lr(0.05))),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    seen = {}

    class Record(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.update(logs)

    callbacks = [hk.BroadcastCallback(), hk.WarmupCallback(steps=4), hk.MetricAverageCallback(), Record()]
    # Every rank takes the same number of steps: 5 batches of 8.
    model.fit(x[:40], y[:40], batch_size=8, epochs=2, shuffle=False, verbose=0, callbacks=callbacks,
              validation_data=(x, y))
    # This rank's own validation sums, without any collective: the test adds them up over the ranks.
    val = model.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
    local = {"n": n, "loss_sum": val["loss"] * n, "correct": val["accuracy"] * n}
    print("FIT", ctx.rank, json.dumps({"logs": {k: float(v) for k, v in seen.items()}, "local": local,
                                       "weights": digest(model.trainable_variables)}), flush=True)


def allreduce(ctx, args):
    """tests/test_launch_allreduce.py: Horovod's own allreduce of (rank + 1) * [0, 1, 2, 3], Sum and Average."""
    import horovod.tensorflow as hvd
    x = float(hvd.rank() + 1) * tf.range(4, dtype=tf.float64)
    s = hvd.allreduce(x, op=hvd.Sum, name="s")
    a = hvd.allreduce(x, op=hvd.Average, name="a")
    print("RESULT", hvd.rank(), hvd.size(), *s.numpy().tolist(), *a.numpy().tolist(), flush=True)


def equiv(ctx, args):
    """tests/test_equivalence.py: data-parallel training against sequential training (equiv_tf.py)."""
    from equiv_tf import run
    run(ctx, args.equiv_batch)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checks", nargs="+", metavar="check",
                    choices=["shard", "metrics", "warmup", "order", "broadcast", "checkpoint", "fit", "allreduce",
                             "equiv"])
    ap.add_argument("--n", type=int, default=23)
    ap.add_argument("--rule", default="linear")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--equiv-batch", type=int, default=4, help="equiv: samples per rank per step")
    ap.add_argument("--dir", default="ckpt")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--kill-after", type=int, default=-1)
    args = ap.parse_args()
    ctx = hk.init(seed=0, threads=1)
    for check in args.checks:  # in turn, each with the warning filters it started with
        with warnings.catch_warnings():
            globals()[check](ctx, args)


if __name__ == "__main__":
    main()
