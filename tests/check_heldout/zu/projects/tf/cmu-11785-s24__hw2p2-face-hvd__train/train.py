import argparse

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from hw2p2.callbacks import build_callbacks, latest_checkpoint
from hw2p2.config import config
from hw2p2.data import make_dataset
from hw2p2.models import convnext_ish


def main():
    parser = argparse.ArgumentParser(description="11-785 HW2P2 face classification")
    parser.add_argument("--epochs", type=int, default=config["epochs"])
    parser.add_argument("--fresh", action="store_true", help="ignore existing checkpoints")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = make_dataset(config, "train", hvd.size(), hvd.rank(), train=True)
    val_ds = make_dataset(config, "dev", hvd.size(), hvd.rank(), train=False)

    model = convnext_ish(config["num_classes"], config["image_size"])
    lr = config["lr"] * hvd.size()
    sgd = keras.optimizers.SGD(learning_rate=lr, momentum=config["momentum"], nesterov=True)
    opt = hvd.DistributedOptimizer(sgd)
    model.compile(optimizer=sgd,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    initial_epoch = 0
    path, epoch = latest_checkpoint(config["ckpt_dir"])
    if path and not args.fresh:
        model.load_weights(path)
        initial_epoch = epoch
        if hvd.rank() == 0:
            print(f"resuming from {path}")

    model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, initial_epoch=initial_epoch,
              callbacks=build_callbacks(config, lr), verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
