"""Intent classification (BiGRU) with Keras fit + Horovod.

    horovodrun -np 4 python train.py                  # reads ./config.json
    horovodrun -np 4 python train.py --epochs 10 --config other.json
"""
import argparse
import math
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from intentkit.config import Config
from intentkit.data import encoder, make_dataset, read_lines, read_tsv
from intentkit.model import build_classifier
from intentkit.training import callbacks_for, compile_model


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.json"))
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    return ap.parse_args()


def main():
    args = parse_args()
    cfg = Config.from_json(args.config, epochs=args.epochs, batch_size=args.batch_size)

    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    chief = hvd.rank() == 0

    vocab, labels = read_lines(cfg.vocab_file), read_lines(cfg.labels_file)
    vec, lab = encoder(vocab, labels, cfg.max_len)
    tr_x, tr_y = read_tsv(cfg.train_file)
    va_x, va_y = read_tsv(cfg.valid_file)
    train_ds = make_dataset(tr_x, tr_y, vec, lab, cfg.batch_size, shard=(hvd.size(), hvd.rank()),
                            shuffle=True, repeat=True)
    valid_ds = make_dataset(va_x, va_y, vec, lab, 256)
    steps_per_epoch = math.ceil(len(tr_x) / (cfg.batch_size * hvd.size()))

    model = compile_model(build_classifier(vec.vocabulary_size(), len(labels), cfg.max_len,
                                           cfg.embed_dim, cfg.hidden), cfg)
    if chief:
        model.summary()
    hist = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs, validation_data=valid_ds,
                     callbacks=callbacks_for(cfg, chief), verbose=2 if chief else 0)
    if chief:
        best = min(hist.history["val_loss"])
        print(f"best val_loss {best:.4f}, final val_accuracy {hist.history['val_accuracy'][-1]:.4f}")


if __name__ == "__main__":
    main()
