"""Galaxy morphology classification (Galaxy Zoo DECaLS cut-outs) on Expanse GPUs.

    srun --ntasks-per-node=4 --gpus-per-node=4 python train.py --config configs/default.yaml
"""
import argparse
import os

import yaml
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from galaxy.callbacks import build_callbacks
from galaxy.model import MorphologyModel
from galaxy.pipeline import make_dataset


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--epochs", type=int, default=None, help="override train.epochs")
    return ap.parse_args()


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    dcfg, mcfg, tcfg = cfg["data"], cfg["model"], cfg["train"]
    epochs = args.epochs or tcfg["epochs"]

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    batch = tcfg["batch_size"]
    train_ds = make_dataset(dcfg["train_pattern"], dcfg, mcfg["num_classes"], batch, training=True)
    val_ds = make_dataset(dcfg["val_pattern"], dcfg, mcfg["num_classes"], batch, training=False)
    # one epoch = one pass over the training set by all workers together
    steps_per_epoch = dcfg["n_train"] // (batch * hvd.size())
    val_steps = dcfg["n_val"] // (batch * hvd.size())

    model = MorphologyModel(dcfg["image_size"], mcfg["width"], mcfg["num_classes"], mcfg["dropout"])
    scaled_lr = tcfg["lr"] * hvd.size()
    model.compile(
        optimizer=keras.optimizers.AdamW(learning_rate=scaled_lr, weight_decay=1e-4),
        loss=keras.losses.CategoricalCrossentropy(from_logits=True,
                                                  label_smoothing=tcfg["label_smoothing"]),
    )

    callbacks = build_callbacks(tcfg["out_dir"], scaled_lr, tcfg["warmup_epochs"], steps_per_epoch)
    model.fit(train_ds, epochs=epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save_weights(os.path.join(tcfg["out_dir"], "final.weights.h5"))


if __name__ == "__main__":
    main()
