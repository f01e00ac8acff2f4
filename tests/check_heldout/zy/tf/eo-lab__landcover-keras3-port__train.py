"""EuroSAT land-cover classifier, Horovod data parallel.

Runs on tf.keras 2 (old cluster image) and Keras 3 (new image): see trainlib/compat.py.
"""
import argparse
from dataclasses import dataclass, fields

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from trainlib.compat import SGD, KERAS3
from trainlib.data import sharded_train, full_eval
from trainlib.callbacks import horovod_callbacks
from trainlib.model import small_resnet


@dataclass
class Config:
    train_npz: str = "data/eurosat_train.npz"
    test_npz: str = "data/eurosat_test.npz"
    out_dir: str = "runs/eurosat"
    batch_size: int = 64
    base_lr: float = 0.0125
    momentum: float = 0.9
    epochs: int = 30
    warmup_epochs: int = 3
    save_every: int = 5


def parse() -> Config:
    ap = argparse.ArgumentParser()
    for f in fields(Config):
        ap.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=f.type, default=f.default)
    return Config(**vars(ap.parse_args()))


def main(cfg: Config):
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, steps = sharded_train(cfg.train_npz, cfg.batch_size, hvd.rank(), hvd.size())
    test_ds = full_eval(cfg.test_npz, 256)

    lr = cfg.base_lr * hvd.size()
    model = small_resnet()
    opt = hvd.DistributedOptimizer(SGD(learning_rate=lr, momentum=cfg.momentum))
    compile_kwargs = {} if KERAS3 else {"experimental_run_tf_function": False}
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], **compile_kwargs)

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
              callbacks=horovod_callbacks(lr, cfg.warmup_epochs, steps, cfg.out_dir, cfg.save_every),
              verbose=1 if hvd.rank() == 0 else 0)

    # every worker scores the whole test split; the numbers are identical, print once
    loss, acc = model.evaluate(test_ds, verbose=0)
    if hvd.rank() == 0:
        print("test loss %.4f  test acc %.4f" % (loss, acc))


if __name__ == "__main__":
    main(parse())
