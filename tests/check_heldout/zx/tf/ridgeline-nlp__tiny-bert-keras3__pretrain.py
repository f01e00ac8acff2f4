"""Masked-LM pretraining of TinyBERT on sharded TFRecords (Keras 3 + Horovod).

Example:
    horovodrun -np 16 -H node1:8,node2:8 python pretrain.py --config configs/tiny.json
"""
import argparse
import logging
import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from tbert.config import PretrainConfig
from tbert.data import pretraining_dataset
from tbert.model import TinyBertMLM
from tbert.schedule import WarmupPolyDecay

logger = logging.getLogger("tbert.pretrain")


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=str, default="configs/tiny.json")
    parser.add_argument("--output_dir", type=str, default="checkpoints/tiny")
    parser.add_argument("--resume", action="store_true")
    return parser.parse_args()


def main():
    args = get_args()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    tf.random.set_seed(1234 + hvd.rank())  # different masking noise per worker
    cfg = PretrainConfig.from_json(args.config)
    logging.basicConfig(level=logging.INFO)
    if hvd.rank() == 0:
        logger.info("world size %d, config %s", hvd.size(), cfg)

    train_ds = pretraining_dataset(cfg.train_files, cfg, hvd.size(), hvd.rank())

    model = TinyBertMLM(cfg)
    schedule = WarmupPolyDecay(peak_lr=cfg.peak_lr * hvd.size(),
                               warmup_steps=cfg.warmup_steps,
                               total_steps=cfg.epochs * cfg.steps_per_epoch)
    optimizer = keras.optimizers.AdamW(learning_rate=schedule, weight_decay=0.01,
                                       clipnorm=1.0)
    optimizer = hvd.DistributedOptimizer(optimizer)
    model.compile(optimizer=optimizer)

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.output_dir, "mlm-{epoch:02d}.weights.h5"), save_weights_only=True))
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(args.output_dir, "logs"),
                                                     update_freq=100))

    initial_epoch = 0
    if args.resume:
        latest = sorted(f for f in os.listdir(args.output_dir) if f.endswith(".weights.h5"))
        if latest:
            model(next(iter(train_ds))[0])
            model.load_weights(os.path.join(args.output_dir, latest[-1]))
            initial_epoch = int(latest[-1].split("-")[1].split(".")[0])

    model.fit(train_ds, epochs=cfg.epochs, initial_epoch=initial_epoch,
              steps_per_epoch=cfg.steps_per_epoch, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
