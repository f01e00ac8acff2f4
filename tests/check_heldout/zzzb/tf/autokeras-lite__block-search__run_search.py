"""Sample block specs, give each a short distributed training run, retrain the best one longer."""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from blocksearch import SEARCH_SPACE, TRAINING, build_from_spec
from blocksearch.data import load_cifar10
from blocksearch.logging_utils import get_logger
from blocksearch.trials import sample_specs, save_leaderboard


def make_optimizer(name, lr):
    return keras.optimizers.get({"class_name": name, "config": {"learning_rate": lr}})


def train_spec(spec, train, val, epochs, log):
    lr = TRAINING["base_lr"][spec["optimizer"]] * hvd.size()
    model = build_from_spec(spec)
    model.compile(optimizer=make_optimizer(spec["optimizer"], lr),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    hist = model.fit(*train, batch_size=TRAINING["batch_size"], epochs=epochs, validation_data=val,
                     callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                                hvd.callbacks.MetricAverageCallback()],
                     verbose=0)
    acc = float(hist.history["val_accuracy"][-1])
    log.info("spec %s -> val_accuracy %.4f", spec, acc)
    return acc


def final_training(spec, train, val, test, epochs, out_dir, log):
    lr = TRAINING["base_lr"][spec["optimizer"]] * hvd.size()
    model = build_from_spec(spec)
    opt = hvd.DistributedOptimizer(make_optimizer(spec["optimizer"], lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback(),
                 keras.callbacks.ReduceLROnPlateau(patience=3, factor=0.5)]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "final.keras"),
                                                         monitor="val_accuracy", save_best_only=True))
    model.fit(*train, batch_size=TRAINING["batch_size"], epochs=epochs, validation_data=val,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    loss, acc = model.evaluate(*test, batch_size=256, verbose=0)
    log.info("final test accuracy %.4f", acc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=TRAINING["num_trials"])
    ap.add_argument("--out", default="search_out")
    ap.add_argument("--quick", action="store_true", help="1 epoch per trial, 2 final epochs")
    args = ap.parse_args()

    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    log = get_logger()
    os.makedirs(args.out, exist_ok=True)
    train, val, test = load_cifar10(hvd.rank(), hvd.size())
    search_epochs = 1 if args.quick else TRAINING["search_epochs"]
    final_epochs = 2 if args.quick else TRAINING["final_epochs"]

    results = []
    for i, spec in enumerate(sample_specs(args.trials, TRAINING["seed"])):
        keras.backend.clear_session()
        acc = train_spec(spec, train, val, search_epochs, log)
        results.append(dict(spec, trial=i, val_accuracy=acc))

    if hvd.rank() == 0:
        save_leaderboard(results, os.path.join(args.out, "leaderboard.json"))
    best = max(results, key=lambda r: r["val_accuracy"])
    best_spec = {k: best[k] for k in SEARCH_SPACE}
    log.info("best spec: %s", best_spec)
    final_training(best_spec, train, val, test, final_epochs, args.out, log)


if __name__ == "__main__":
    main()
