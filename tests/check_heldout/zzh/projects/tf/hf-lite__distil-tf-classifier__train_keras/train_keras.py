"""Fine-tune / train a small transformer classifier on pre-tokenised IMDB with
horovod.tensorflow.keras. Config in YAML, a few keys overridable from the command line.

    horovodrun -np 4 python train_keras.py -c configs/base.yaml --epochs 5
"""
import argparse
import logging
import os

import yaml
import keras
import horovod.tensorflow.keras as hvd

from textcls.callbacks import training_callbacks
from textcls.data import load_tokenized, to_dataset
from textcls.env import configure_gpus
from textcls.model import build_classifier
from textcls.schedules import WarmupCosine

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/base.yaml")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--data-dir")
    ap.add_argument("--init-weights", help="weights of a pre-trained encoder (.weights.h5)")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    if args.epochs:
        cfg["epochs"] = args.epochs
    if args.data_dir:
        cfg["data_dir"] = args.data_dir

    hvd.init()
    configure_gpus(mixed_precision=True)

    train_ids, train_y = load_tokenized(cfg["data_dir"], "train")
    test_ids, test_y = load_tokenized(cfg["data_dir"], "test")
    train_ds = to_dataset(train_ids, train_y, cfg["batch_size"], hvd.size(), hvd.rank(), shuffle=True)
    test_ds = to_dataset(test_ids, test_y, cfg["batch_size"], hvd.size(), hvd.rank(), shuffle=False)

    steps_per_epoch = len(train_ids) // (cfg["batch_size"] * hvd.size())
    total_updates = steps_per_epoch * cfg["epochs"] // cfg["accum_steps"]
    schedule = WarmupCosine(cfg["lr"] * hvd.size(), total_updates, int(cfg["warmup_frac"] * total_updates))

    optimizer = hvd.DistributedOptimizer(
        keras.optimizers.AdamW(schedule, weight_decay=cfg["weight_decay"]),
        backward_passes_per_step=cfg["accum_steps"],
        average_aggregated_gradients=True,
        compression=hvd.Compression.fp16,
    )

    model = build_classifier(cfg["seq_len"], cfg["vocab_size"], cfg["d_model"], cfg["layers"], cfg["heads"])
    if args.init_weights:
        model.load_weights(args.init_weights, skip_mismatch=True)
    model.compile(
        optimizer=keras.optimizers.AdamW(schedule, weight_decay=cfg["weight_decay"], clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    if hvd.rank() == 0:
        model.summary()
        logging.info("world size %d, %d steps/epoch, optimizer %s", hvd.size(), steps_per_epoch,
                     type(optimizer).__name__)

    model.fit(
        train_ds,
        epochs=cfg["epochs"],
        validation_data=test_ds,
        callbacks=training_callbacks(cfg["output_dir"]),
        verbose=1 if hvd.rank() == 0 else 0,
    )
    if hvd.rank() == 0:
        model.save(os.path.join(cfg["output_dir"], "final.keras"))


if __name__ == "__main__":
    main()
