"""N-BEATS (generic) on an M4-like monthly set, data-parallel with Horovod GradientTape."""
import os
import sys

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from common.hvd_setup import init_and_pin, mean_over_workers
from nbeats import NBeats
from nbeats.config import TrainConfig
from nbeats.data import train_dataset, test_set


def smape(y, f):
    return 200.0 * np.mean(np.abs(y - f) / (np.abs(y) + np.abs(f) + 1e-8))


def main(argv):
    init_and_pin()
    cfg = TrainConfig(epochs=int(argv[1]) if len(argv) > 1 else TrainConfig.epochs)
    tf.random.set_seed(cfg.seed)

    ds, series = train_dataset(cfg)
    model = NBeats(cfg)
    opt = tf.keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size())
    loss_fn = tf.keras.losses.MeanAbsoluteError()

    @tf.function
    def step(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    it = iter(ds)
    for epoch in range(cfg.epochs):
        for i in range(cfg.steps_per_epoch):
            x, y = next(it)
            loss = step(x, y, epoch == 0 and i == 0)
        # every worker scores its own block of series; blocks are equal sized
        n = len(series) // hvd.size()
        mine = series[hvd.rank() * n:(hvd.rank() + 1) * n]
        xt, yt = test_set(mine, cfg.lookback, cfg.horizon)
        s = mean_over_workers(smape(yt, model(xt).numpy()), "smape")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {float(loss):.4f} test sMAPE {s:.3f}")
            ckpt.write(os.path.join(cfg.ckpt_dir, "ckpt"))


if __name__ == "__main__":
    main(sys.argv)
