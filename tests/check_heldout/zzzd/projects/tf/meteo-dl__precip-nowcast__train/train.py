"""Precipitation nowcasting with a small ConvNet (past 4 radar frames -> next 2).

    mpirun -np 4 python train.py --frames /data/radar/frames.npy
    python train.py --backend local
"""
import argparse
import os

import tensorflow as tf
import keras
from keras import layers

from nowcast import dist
from nowcast.data import make_dataset, radar_sequences
from nowcast.train_loop import NowcastTrainer

DEFAULTS = dict(backend="horovod", frames=None, batch_size=8, lr=1e-3, epochs=25, ckpt_dir="checkpoints/nowcast")


def build_net(t_in=4, t_out=2, width=32):
    inp = keras.Input((None, None, t_in))
    x1 = layers.Conv2D(width, 3, padding="same", activation="relu")(inp)
    x2 = layers.Conv2D(width * 2, 3, strides=2, padding="same", activation="relu")(x1)
    x2 = layers.Conv2D(width * 2, 3, padding="same", activation="relu")(x2)
    up = layers.UpSampling2D()(x2)
    x = layers.Concatenate()([up, x1])
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(x)
    return keras.Model(inp, layers.Conv2D(t_out, 1, activation="softplus")(x), name="nowcast_unet")


def main():
    ap = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v) if v is not None else str, default=v)
    args = ap.parse_args()

    dist.init(args.backend)
    x, y = radar_sequences(args.frames)
    n_val = len(x) // 8
    train_ds = make_dataset(x[n_val:], y[n_val:], args.batch_size, dist.rank(), dist.size())
    val_ds = make_dataset(x[:n_val], y[:n_val], args.batch_size, dist.rank(), dist.size(), training=False)

    model = build_net()
    optimizer = keras.optimizers.Adam(learning_rate=args.lr * dist.size())
    dist.sync_model(model, optimizer)
    trainer = NowcastTrainer(model, optimizer)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)

    for epoch in range(args.epochs):
        train_loss = trainer.fit_epoch(train_ds)
        val_loss, val_csi = trainer.evaluate(val_ds)
        if dist.is_root():
            print(f"epoch {epoch:02d} train_mae={train_loss:.4f} val_mae={val_loss:.4f} csi@1mm={val_csi:.3f}")
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
