"""Housing-price regressor, packaged as a k8s training job.

In the cluster the MPIJob launcher runs `horovodrun ... python trainer.py`;
on a workstation `python trainer.py --np 2` starts the workers itself.
"""
import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf

DEFAULTS = {
    "per_replica_batch": 32,
    "base_lr": 1e-3,
    "epochs": 200,
    "lr_boundaries": [100, 150],
    "export_dir": "/mnt/models/housing",
    "log_dir": "/mnt/logs/housing",
}


def input_fn(x, y, per_replica_batch, ctx, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        # hand-made round robin split instead of ds.shard()
        ds = ds.enumerate().filter(
            lambda i, _: i % ctx.num_input_pipelines == ctx.input_pipeline_id
        ).map(lambda i, xy: xy)
        ds = ds.shuffle(1024).repeat()
    return ds.batch(per_replica_batch)


def make_model(n_features):
    return tf.keras.Sequential([
        tf.keras.layers.Input((n_features,)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(1),
    ])


def train_fn(cfg):
    import horovod.tensorflow as hvd

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    chief = hvd.rank() == 0

    (x_tr, y_tr), (x_te, y_te) = tf.keras.datasets.boston_housing.load_data()
    mu, sd = x_tr.mean(0), x_tr.std(0)
    x_tr, x_te = ((x_tr - mu) / sd).astype("float32"), ((x_te - mu) / sd).astype("float32")
    y_tr, y_te = y_tr.astype("float32")[:, None], y_te.astype("float32")[:, None]

    ctx = tf.distribute.InputContext(hvd.size(), hvd.rank(), hvd.size())
    train_ds = input_fn(x_tr, y_tr, cfg["per_replica_batch"], ctx, training=True)
    test_ds = input_fn(x_te, y_te, 256, ctx, training=False)
    global_batch = cfg["per_replica_batch"] * hvd.size()
    steps_per_epoch = max(1, len(x_tr) // global_batch)

    model = make_model(x_tr.shape[1])
    lr = tf.keras.optimizers.schedules.PiecewiseConstantDecay(
        [b * steps_per_epoch for b in cfg["lr_boundaries"]],
        [cfg["base_lr"] * hvd.size() * f for f in (1.0, 0.1, 0.01)])
    optimizer = tf.keras.optimizers.Adam(lr)
    mse = tf.keras.losses.MeanSquaredError()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = mse(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    loss_metric = tf.keras.metrics.Mean()
    mae_metric = tf.keras.metrics.MeanAbsoluteError()
    ckpt = tf.train.Checkpoint(model=model)
    writer = tf.summary.create_file_writer(cfg["log_dir"]) if chief else None

    it = iter(train_ds)
    synced = False
    for epoch in range(cfg["epochs"]):
        loss_metric.reset_state()
        mae_metric.reset_state()
        t0 = time.time()
        for _ in range(steps_per_epoch):
            x, y = next(it)
            loss_metric.update_state(train_step(x, y))
            if not synced:
                hvd.broadcast_variables(model.variables + optimizer.variables, root_rank=0)
                synced = True
        # the test split is tiny: every worker scores all of it
        for x, y in test_ds:
            mae_metric.update_state(y, model(x, training=False))
        train_loss = hvd.allreduce(loss_metric.result())
        if chief:
            with writer.as_default():
                tf.summary.scalar("train_mse", train_loss, step=epoch)
                tf.summary.scalar("test_mae", mae_metric.result(), step=epoch)
            if epoch % 20 == 0 or epoch == cfg["epochs"] - 1:
                print(json.dumps({"epoch": epoch, "train_mse": float(train_loss),
                                  "test_mae": float(mae_metric.result()),
                                  "sec": round(time.time() - t0, 2)}))
                ckpt.write(os.path.join(cfg["export_dir"], "weights"))
    return float(mae_metric.result())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="JSON file overriding DEFAULTS")
    ap.add_argument("--np", type=int, default=0,
                    help="start this many local workers with horovod.run")
    args = ap.parse_args()
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    if args.np > 0:
        import horovod
        results = horovod.run(train_fn, args=(cfg,), np=args.np, use_gloo=True)
        print("test MAE per worker:", results)
    else:
        train_fn(cfg)


if __name__ == "__main__":
    main()
