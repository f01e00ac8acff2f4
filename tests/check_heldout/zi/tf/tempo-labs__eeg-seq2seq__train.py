#!/usr/bin/env python
"""Forecast the next 0.5 s of 32-channel EEG from the previous 4 s (Horovod, custom loop)."""
import argparse

import keras
import numpy as np
import horovod.tensorflow as hvd

from seqlib import dist
from seqlib.data import list_recordings, to_dataset, windows_from
from seqlib.model import Seq2Seq
from seqlib.trainer import Trainer


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="data/eeg_npy")
    ap.add_argument("--enc-len", type=int, default=512)
    ap.add_argument("--dec-len", type=int, default=64)
    ap.add_argument("--hop", type=int, default=64)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--out", default="out/seq2seq")
    return ap.parse_args()


def main():
    args = cli()
    dist.setup_gpus()

    files = list_recordings(args.root)
    n_val = max(1, len(files) // 8)
    x_tr, y_tr = windows_from(files[n_val:], args.enc_len, args.dec_len, args.hop)
    x_va, y_va = windows_from(files[:n_val], args.enc_len, args.dec_len, args.hop)
    rank, size = hvd.rank(), hvd.size()
    train_ds = to_dataset(x_tr, y_tr, args.batch, rank, size, train=True)
    val_ds = to_dataset(x_va, y_va, 256, rank, size, train=False)
    steps = len(x_tr) // (args.batch * size)

    model = Seq2Seq(channels=x_tr.shape[-1], dec_len=args.dec_len)
    sched = keras.optimizers.schedules.CosineDecay(args.lr * size, decay_steps=args.epochs * steps,
                                                   warmup_target=None)
    trainer = Trainer(model, keras.optimizers.Adam(sched), args.out, chief=dist.is_chief())

    it = iter(train_ds)
    for epoch in range(args.epochs):
        train_mse = trainer.train_epoch(it, steps)
        val_mse = trainer.evaluate(val_ds)
        if dist.is_chief():
            print(f"epoch {epoch:02d} train_mse {train_mse:.5f} val_mse {val_mse:.5f}", flush=True)
        trainer.maybe_save(val_mse, epoch)
    if dist.is_chief():
        np.save(f"{args.out}/history_done.npy", np.array([epoch]))


if __name__ == "__main__":
    main()
