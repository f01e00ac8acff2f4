"""Ship detection on Sentinel-1 SAR chips (VV/VH), centre heatmap + box size regression.

Runs on the preemptible partition: the job is resubmitted automatically and resumes from the last
checkpoint (SHIP_RESUME=1 by default, see shipdet/config.py).
    srun python train.py
"""
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from shipdet.config import ShipConfig
from shipdet.data import chip_dataset
from shipdet.model import ShipNet
from shipdet.state import restore_or_init, save_epoch
from shipdet.step import Stepper


def main():
    cfg = ShipConfig.from_env()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = chip_dataset(cfg.train_glob, cfg.batch_size, hvd.rank(), hvd.size(), training=True)
    val_ds = chip_dataset(cfg.val_glob, cfg.batch_size, hvd.rank(), hvd.size(), training=False)

    model = ShipNet(width=cfg.width)
    model(tf.zeros([1, cfg.chip, cfg.chip, 2]))
    opt = tf.keras.optimizers.Adam(learning_rate=cfg.lr * hvd.size(), clipnorm=None)
    stepper = Stepper(model, opt, cfg.accum_steps)
    ckpt, manager, start_epoch = restore_or_init(model, opt, cfg.ckpt_dir, cfg.resume)

    for epoch in range(start_epoch, cfg.epochs):
        t0 = time.time()
        for i, (x, y) in enumerate(train_ds.take(cfg.steps_per_epoch * cfg.accum_steps)):
            loss = stepper.train(x, y, i)
        val = tf.keras.metrics.Mean()
        for x, y in val_ds.take(cfg.val_steps):
            val.update_state(stepper.evaluate(x, y))
        val_loss = hvd.allreduce(val.result(), name="val_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {float(loss):.4f} val {float(val_loss):.4f} {time.time() - t0:.0f}s",
                  flush=True)
            save_epoch(ckpt, manager, epoch)


if __name__ == "__main__":
    main()
