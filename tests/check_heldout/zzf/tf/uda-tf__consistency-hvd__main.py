import argparse

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from uda.callbacks import make_callbacks
from uda.data import build_pipeline
from uda.model import UDAModel, backbone
from uda.optim import build_optimizer


def get_flags():
    ap = argparse.ArgumentParser("UDA")
    ap.add_argument("--data", default="data/tiny_imnet_64.npz")
    ap.add_argument("--labeled-per-class", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--unsup-ratio", type=int, default=4)
    ap.add_argument("--optimizer", default="adamw", choices=["sgd", "adam", "adamw"])
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--warmup-epochs", type=int, default=5)
    ap.add_argument("--uda-coeff", type=float, default=1.0)
    ap.add_argument("--model-dir", default="models/uda")
    return ap.parse_args()


def main():
    flags = get_flags()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(flags.data)
    x, y = d["x_train"].astype("float32") / 255.0, d["y_train"].astype("int64")
    num_classes = int(y.max()) + 1
    rng = np.random.default_rng(0)
    lab = np.concatenate([rng.choice(np.flatnonzero(y == c), flags.labeled_per_class, replace=False)
                          for c in range(num_classes)])
    train = build_pipeline(x[lab], y[lab], x, flags.batch, flags.unsup_ratio)
    val = tf.data.Dataset.from_tensor_slices((d["x_val"].astype("float32") / 255.0, d["y_val"].astype("int64")))
    val = val.batch(256)
    steps_per_epoch = len(x) // (flags.batch * flags.unsup_ratio * hvd.size())

    model = UDAModel(backbone(num_classes), uda_coeff=flags.uda_coeff)
    model(tf.zeros((1, 64, 64, 3)))
    lr = flags.lr * hvd.size()
    model.compile(optimizer=build_optimizer(flags.optimizer, lr, flags.weight_decay))
    model.fit(train, epochs=flags.epochs, steps_per_epoch=steps_per_epoch, validation_data=val,
              callbacks=make_callbacks(flags.model_dir, lr, flags.warmup_epochs, steps_per_epoch),
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
