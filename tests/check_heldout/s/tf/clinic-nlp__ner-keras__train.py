"""BiLSTM clinical NER (i2b2 2014 de-identification tags), Keras 3 + Horovod.

    horovodrun -np 4 python train.py --config configs/i2b2.yaml
"""
import argparse

import yaml
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from nerkit.data import load_split, to_dataset
from nerkit.fit_utils import compile_model, make_callbacks
from nerkit.model import bilstm_tagger
from nerkit.optim import make_optimizer
from nerkit.tags import check_num_tags


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/i2b2.yaml")
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = load_split(cfg["data"]["train"])
    x_dev, y_dev = load_split(cfg["data"]["dev"])
    bs = cfg["train"]["batch_size"]
    train_ds = to_dataset(x_tr, y_tr, bs, shuffle=True).repeat()
    dev_ds = to_dataset(x_dev, y_dev, bs, shuffle=False).shard(hvd.size(), hvd.rank())

    num_tags = check_num_tags(cfg["data"]["num_tags"])
    model = bilstm_tagger(cfg["data"]["vocab_size"], num_tags, cfg["model"]["embed_dim"],
                          cfg["model"]["lstm_units"])
    opt = hvd.DistributedOptimizer(make_optimizer(cfg["optim"], scale=hvd.size()))
    model = compile_model(model, cfg)

    model.fit(train_ds, steps_per_epoch=len(x_tr) // bs, epochs=cfg["train"]["epochs"],
              validation_data=dev_ds, callbacks=make_callbacks(cfg),
              verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print("dev:", model.evaluate(dev_ds, verbose=0, return_dict=True))


if __name__ == "__main__":
    main()
