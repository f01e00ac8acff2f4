import time

import tensorflow as tf
import horovod.tensorflow as hvd

from .data import load_table, datasets
from .io import Checkpointer
from .net import mlp


def _setup_devices():
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)


def main(cfg):
    """Entry point for every worker (called by horovod.run or directly under horovodrun)."""
    hvd.init()
    _setup_devices()

    x, y = load_table(cfg["table"])
    train_ds, val_ds = datasets(x, y, cfg["batch_size"])
    model = mlp(cfg["width"], cfg["depth"])
    opt = tf.keras.optimizers.Adam(cfg["lr"] * hvd.size())
    ckpt = Checkpointer(cfg["ckpt_dir"], model=model, optimizer=opt)
    resumed = ckpt.restore_latest()
    start = int(resumed.rsplit("-", 1)[1]) if resumed else 0

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    history = []
    for epoch in range(start, cfg["epochs"]):
        t0 = time.time()
        for b, (xb, yb) in enumerate(train_ds):
            loss = step(xb, yb)
            if epoch == start and b == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(opt.variables, root_rank=0)
        # full validation table on every rank -> the same number everywhere
        val = tf.keras.metrics.Mean()
        for xb, yb in val_ds:
            val.update_state(tf.reduce_mean(tf.abs(model(xb) - yb)))
        history.append(float(val.result()))
        ckpt.save(epoch + 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train mse {float(loss):.5f} val mae {history[-1]:.5f} "
                  f"[{time.time() - t0:.1f}s]", flush=True)
    return history
