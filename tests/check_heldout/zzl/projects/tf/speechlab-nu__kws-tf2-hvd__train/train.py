"""Keyword spotting (Speech Commands, 12 classes) - Horovod training entry point."""
import argparse

import tensorflow as tf

from kws.dist import init_distributed
from kws.features import make_dataset
from kws.model import DSCNN
from kws.trainer import Trainer


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/speech_commands_train.npz")
    ap.add_argument("--val", default="data/speech_commands_val.npz")
    ap.add_argument("--global-batch", type=int, default=1024)
    ap.add_argument("--base-lr", type=float, default=1e-3,
                    help="learning rate for a 256-example batch")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--ckpt-dir", default="ckpt/kws")
    ap.add_argument("--log-dir", default="logs/kws")
    return ap.parse_args()


def main():
    args = get_args()
    dctx = init_distributed()
    ctx = dctx.input_context()

    train_ds = make_dataset(args.train, args.global_batch, ctx, training=True)
    val_ds = make_dataset(args.val, args.global_batch, ctx, training=False)

    model = DSCNN()
    # linear scaling rule against the reference batch of 256
    lr = args.base_lr * args.global_batch / 256
    optimizer = tf.keras.optimizers.Adam(lr)

    trainer = Trainer(model, optimizer, dctx, args.ckpt_dir, args.log_dir)
    if dctx.is_chief:
        print(f"{dctx.world_size} workers, global batch {args.global_batch}, lr {lr}")
    trainer.fit(train_ds, val_ds, args.epochs)


if __name__ == "__main__":
    main()
