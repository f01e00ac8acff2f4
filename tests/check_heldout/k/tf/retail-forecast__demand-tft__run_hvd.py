"""Store-item demand forecasting, trained on several workers with horovod.run.

    python run_hvd.py --num-proc 8 --hosts w1:4,w2:4 --sales data/sales.csv
"""
import argparse
import os

import horovod
import numpy as np


def train_fn(sales, history, horizon, global_batch, lr, epochs, ckpt_dir, seed=1234):
    import horovod.tensorflow as hvd
    import tensorflow as tf

    from forecast.model import DemandForecaster, quantile_loss
    from forecast.windows import load_sales, make_windows

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    feats, _ = load_sales(sales)
    split = feats.shape[1] - 4 * horizon
    x_tr, y_tr = make_windows(feats, history, horizon, stride=7, last_day=split)
    x_va, y_va = make_windows(feats, history, horizon, stride=horizon, last_day=feats.shape[1])
    x_va, y_va = x_va[-feats.shape[0] * 4:], y_va[-feats.shape[0] * 4:]

    # The global batch is fixed; each worker takes its share of it.
    local_batch = global_batch // hvd.size()
    steps_per_epoch = len(x_tr) // global_batch
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shuffle(len(x_tr), seed=seed, reshuffle_each_iteration=False)
             .shard(hvd.size(), hvd.rank())
             .shuffle(8192)
             .repeat()
             .batch(local_batch, drop_remainder=True))
    holdout = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(512)

    model = DemandForecaster(horizon)
    adam = tf.keras.optimizers.Adam(learning_rate=lr)
    q = model.quantiles

    @tf.function
    def step_fn(x, y, first):
        with tf.GradientTape() as tape:
            loss = quantile_loss(y, model(x, training=True), q)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        adam.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(adam.variables, root_rank=0)
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=adam)
    it = iter(train)
    wape = None
    for epoch in range(epochs):
        for i in range(steps_per_epoch):
            x, y = next(it)
            loss = step_fn(x, y, epoch == 0 and i == 0)
        abs_err, abs_sum = 0.0, 0.0
        for x, y in holdout:
            median = model(x, training=False)[..., 1]
            abs_err += float(tf.reduce_sum(tf.abs(median - y)))
            abs_sum += float(tf.reduce_sum(tf.abs(y)))
        totals = hvd.allreduce(tf.constant([abs_err, abs_sum], tf.float64), op=hvd.Sum, name="wape")
        wape = float(totals[0] / totals[1])
        if hvd.rank() == 0:
            print(f"epoch {epoch}: last loss {float(loss):.4f}  holdout WAPE {wape:.4f}", flush=True)
            ckpt.write(os.path.join(ckpt_dir, f"epoch{epoch:03d}"))
    return wape


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-proc", type=int, default=4)
    ap.add_argument("--hosts", default=None)
    ap.add_argument("--sales", default="data/sales.csv")
    ap.add_argument("--history", type=int, default=56)
    ap.add_argument("--horizon", type=int, default=28)
    ap.add_argument("--global-batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--ckpt-dir", default="checkpoints/demand")
    a = ap.parse_args()
    os.makedirs(a.ckpt_dir, exist_ok=True)
    np.random.seed(0)
    results = horovod.run(train_fn, kwargs=dict(sales=a.sales, history=a.history, horizon=a.horizon,
                                                global_batch=a.global_batch, lr=a.lr, epochs=a.epochs,
                                                ckpt_dir=os.path.abspath(a.ckpt_dir)),
                          num_proc=a.num_proc, hosts=a.hosts)
    print("holdout WAPE:", results[0])


if __name__ == "__main__":
    main()
