import os
import time

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from dermcls import Settings
from dermcls.callbacks import make_callbacks
from dermcls.network import build_model, compile_model, make_optimizer
from dermcls.pipeline import make_datasets


def setup_devices():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main(s):
    setup_devices()
    run_dir = os.path.join(s.workdir, time.strftime("%y%m%d_%H%M%S") + f"_bs{s.batch_size * hvd.size()}")

    train_ds, val_ds, steps = make_datasets(s, hvd.size(), hvd.rank())
    lr = s.lr * hvd.size()
    model = build_model(s)
    opt = hvd.DistributedOptimizer(make_optimizer(s, lr))
    compile_model(model, s, optimizer=opt)

    model.fit(train_ds, steps_per_epoch=steps, epochs=s.epochs, validation_data=val_ds,
              callbacks=make_callbacks(s, run_dir, lr, steps), verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(run_dir, "final.keras"))


if __name__ == "__main__":
    main(Settings.from_cli())
