"""Document-level sentiment on NoReC with Keras + Horovod.

    mpirun -np 4 python train_fit.py configs/norec_cnn.yaml
"""
import json
import math
import os
import sys

import yaml
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from textcls.callbacks import make_callbacks
from textcls.data import LABELS, build_vectorizer, make_dataset, read_jsonl
from textcls.model_factory import build_model


def main(config_path):
    with open(config_path) as f:
        cfg = yaml.safe_load(f)

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    dcfg, tcfg = cfg["data"], cfg["training"]
    train_texts, train_labels = read_jsonl(dcfg["train"])
    dev_texts, dev_labels = read_jsonl(dcfg["dev"])
    test_texts, test_labels = read_jsonl(dcfg["test"])
    vectorizer = build_vectorizer(train_texts, dcfg["vocab_size"], dcfg["seq_len"])

    bs = tcfg["batch_size"]
    train_ds = make_dataset(train_texts, train_labels, vectorizer, bs, training=True)
    dev_ds = make_dataset(dev_texts, dev_labels, vectorizer, bs, training=False)
    test_ds = make_dataset(test_texts, test_labels, vectorizer, bs, training=False)
    steps_per_epoch = math.ceil(len(train_texts) / (bs * hvd.size()))

    model = build_model(cfg["model"], dcfg["vocab_size"], dcfg["seq_len"], len(LABELS))
    optimizer = keras.optimizers.Adam(learning_rate=cfg["optimizer"]["lr"] * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer)
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=tcfg["epochs"],
                        validation_data=dev_ds, callbacks=make_callbacks(cfg, steps_per_epoch),
                        verbose=1 if hvd.rank() == 0 else 0)

    test_loss, test_acc = model.evaluate(test_ds, verbose=0)
    if hvd.rank() == 0:
        print(f"test accuracy {100 * test_acc:.2f}%  loss {test_loss:.4f}")
        with open(os.path.join(tcfg["out_dir"], "results.json"), "w") as f:
            json.dump({"test_accuracy": test_acc, "test_loss": test_loss,
                       "epochs_run": len(history.history["loss"])}, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/norec_cnn.yaml")
