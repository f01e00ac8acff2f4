import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from anomaly import settings
from anomaly.io import make_pipeline, shard_paths
from anomaly.model import conv_autoencoder
from anomaly.timing import summary, timed


def main():
    cfg = settings.load()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, n_train = make_pipeline(shard_paths(cfg["io"]["manifest"], "train"), cfg, training=True)
    val_ds, _ = make_pipeline(shard_paths(cfg["io"]["manifest"], "val"), cfg, training=False)

    model = conv_autoencoder(cfg["io"]["window"], cfg["io"]["channels"],
                             cfg["model"]["hidden"], cfg["model"]["latent"])
    optimizer = keras.optimizers.Adam(cfg["train"]["lr"] * hvd.size())
    mse = keras.losses.MeanSquaredError()

    @tf.function
    def train_step(batch, first):
        with tf.GradientTape() as tape:
            loss = mse(batch, model(batch, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    @timed("validate")
    def validate():
        total, batches = tf.constant(0.0), 0
        for batch in val_ds:
            total += mse(batch, model(batch, training=False))
            batches += 1
        return hvd.allreduce(total, op=hvd.Sum) / batches

    first = True
    for epoch in range(cfg["train"]["epochs"]):
        for step, batch in enumerate(train_ds):
            loss = train_step(batch, first)
            first = False
            if hvd.rank() == 0 and step % cfg["train"]["report_every"] == 0:
                print(f"[train] epoch={epoch} step={step} loss={loss.numpy():.5f}", flush=True)
        val_loss = validate()
        if hvd.rank() == 0:
            print(f"[eval] epoch={epoch} val_mse={float(val_loss):.5f} timing={summary()}", flush=True)
            os.makedirs(cfg["train"]["ckpt_dir"], exist_ok=True)
            model.save_weights(os.path.join(cfg["train"]["ckpt_dir"], f"ae-{epoch:03d}.weights.h5"))


if __name__ == "__main__":
    main()
