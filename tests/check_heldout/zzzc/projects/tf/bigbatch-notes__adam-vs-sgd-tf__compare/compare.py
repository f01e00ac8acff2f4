"""Adam vs SGD on N workers at the same *global* batch (the batch is split, not grown)."""
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from cmp import data
from cmp.evaluation import evaluate
from cmp.settings import from_cli
from cmp.steps import make_train_step, sync


def build_model():
    return keras.Sequential([keras.Input((48,)), keras.layers.Dense(256, activation="relu"),
                             keras.layers.Dense(256, activation="relu"), keras.layers.Dense(6)])


def make_optimizer(name, s):
    # lr is tuned for the global batch, which does not change with the worker count
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=s.lr_sgd, momentum=0.9)
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=s.lr_adam)
    raise ValueError(name)


def run_one(name, s, train, test):
    per_worker = s.global_batch // hvd.size()
    train_ds = data.index_pipeline(train, per_worker, hvd.rank(), hvd.size(), seed=0)
    test_ds = data.index_pipeline(test, 500, hvd.rank(), hvd.size(), seed=0, train=False)
    model, opt = build_model(), make_optimizer(name, s)
    opt.build(model.trainable_variables)
    if s.resume and hvd.rank() == 0:
        model.load_weights(s.resume)
    sync(model, opt)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_step = make_train_step(model, opt, loss_fn)
    history = []
    for epoch in range(s.epochs):
        losses = [float(train_step(x, y)) for x, y in train_ds]
        vloss, vacc = evaluate(model, test_ds, loss_fn)
        history.append({"epoch": epoch, "train_loss_rank0": float(np.mean(losses)),
                        "val_loss": vloss, "val_acc": vacc})
        if hvd.rank() == 0:
            print(f"[{name}] {history[-1]}")
            if (epoch + 1) % s.save_every == 0:
                model.save_weights(os.path.join(s.out, f"{name}_e{epoch + 1}.weights.h5"))
    return history


def main():
    s = from_cli()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() == 0:
        os.makedirs(s.out, exist_ok=True)
    train, test = data.load()
    results = {name: run_one(name, s, train, test) for name in s.optimizers}
    if hvd.rank() == 0:
        with open(os.path.join(s.out, f"compare_np{hvd.size()}.json"), "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
