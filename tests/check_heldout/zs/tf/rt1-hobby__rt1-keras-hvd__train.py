import argparse
import logging

import keras
import horovod.tensorflow.keras as hvd

from rt1.callbacks import make_callbacks
from rt1.data import load_episodes, make_dataset, make_windows
from rt1.devices import configure_gpus
from rt1.model import build_policy

logging.basicConfig(level=logging.INFO)


def parse():
    p = argparse.ArgumentParser("rt1-keras")
    p.add_argument("--data-root", default="/data/bridge_state")
    p.add_argument("--synthetic", type=int, default=0)
    p.add_argument("--window", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--out-dir", default="runs/rt1")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    n_gpus = configure_gpus()
    logging.info("rank %d/%d, %d visible GPUs", hvd.rank(), hvd.size(), n_gpus)

    episodes = load_episodes(args.data_root, args.synthetic)
    n_val = max(1, len(episodes) // 10)
    x_tr, y_tr = make_windows(episodes[n_val:], args.window)
    x_va, y_va = make_windows(episodes[:n_val], args.window)
    train_ds = make_dataset(x_tr, y_tr, args.batch_size, hvd.rank(), hvd.size())
    val_ds = make_dataset(x_va, y_va, args.batch_size, hvd.rank(), hvd.size(), training=False)
    steps = len(x_tr) // (args.batch_size * hvd.size())

    model = build_policy(args.window, x_tr.shape[-1], y_tr.shape[-1])
    lr = args.lr * hvd.size()
    base_opt = keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-4, clipnorm=1.0)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    opt = hvd.DistributedOptimizer(base_opt, compression=compression)
    model.compile(optimizer=base_opt, loss="mse", metrics=["mae"])
    if hvd.rank() == 0:
        model.summary()

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=make_callbacks(args.out_dir, args.warmup_epochs, lr, steps),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
