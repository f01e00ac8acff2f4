"""Train a small CNN with Horovod + Keras, then fit a temperature on the validation split
and compare ECE / NLL before and after scaling."""
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from calibnet.callbacks import training_callbacks
from calibnet.config import Config
from calibnet.data import load, train_pipeline
from calibnet.temperature import ece, fit_temperature, softmax


def build_model(num_classes=10):
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Dropout(0.25),
        keras.layers.Flatten(),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(num_classes),   # logits: needed for temperature scaling
    ])


def main(cfg: Config):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_tr, y_tr), (x_val, y_val), (x_te, y_te) = load(cfg.dataset, cfg.val_fraction, cfg.seed)
    train_ds = train_pipeline(x_tr, y_tr, cfg.batch_size, hvd.size(), hvd.rank(), cfg.seed)
    steps = len(x_tr) // (cfg.batch_size * hvd.size())

    model = build_model()
    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg.lr))
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
              validation_data=(x_val, y_val),
              callbacks=training_callbacks(cfg.out_dir),
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() != 0:
        return
    val_logits = model.predict(x_val, batch_size=1024, verbose=0)
    test_logits = model.predict(x_te, batch_size=1024, verbose=0)
    t = fit_temperature(val_logits, y_val)
    report = {"temperature": t}
    for tag, z in (("uncalibrated", test_logits), ("calibrated", test_logits / t)):
        p = softmax(z)
        report[tag] = {
            "acc": float((p.argmax(-1) == y_te).mean()),
            "nll": float(-np.log(p[np.arange(len(y_te)), y_te] + 1e-12).mean()),
            "ece": ece(p, y_te),
        }
    print(json.dumps(report, indent=2))
    with open(os.path.join(cfg.out_dir, "temperature.json"), "w") as f:
        json.dump(report, f, indent=2)


if __name__ == "__main__":
    main(Config.parse())
