"""Train one forecaster per horizon (1h, 6h, 24h, 72h) back to back in a single Horovod job.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train_all.py --data /scratch/load/series.npz
"""
import argparse
import json
import os

import horovod.tensorflow as hvd

hvd.init()
os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.rank())

import tensorflow as tf  # noqa: E402  (import after CUDA_VISIBLE_DEVICES is set)

from forecast.ckpt import Checkpointer  # noqa: E402
from forecast.data import windows  # noqa: E402
from forecast.models import make_forecaster  # noqa: E402
from forecast.train_loop import evaluate, train_epoch  # noqa: E402


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--horizons", default="horizons.json")
    ap.add_argument("--lookback", type=int, default=168)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--ckpt-root", default="checkpoints")
    return ap.parse_args()


def main():
    args = parse()
    with open(args.horizons) as f:
        horizons = json.load(f)["horizons"]

    summary = {}
    for h in horizons:
        name = f"h{h['steps']:03d}"
        train_ds, val_ds = windows(args.data, args.lookback, h["steps"], args.batch)
        model = make_forecaster(args.lookback, h.get("units", 64), h.get("kind", "lstm"))
        opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), clipnorm=1.0)
        ckpt = Checkpointer(os.path.join(args.ckpt_root, name), model, opt)

        for epoch in range(h.get("epochs", args.epochs)):
            train_loss = train_epoch(model, opt, train_ds, first_epoch=(epoch == 0))
            val_mae = evaluate(model, val_ds)
            ckpt.save(epoch)
            if hvd.rank() == 0:
                print(f"[{name}] epoch {epoch:02d} train_mse {train_loss:.4f} val_mae {val_mae:.4f}", flush=True)
        summary[name] = val_mae

    if hvd.rank() == 0:
        with open(os.path.join(args.ckpt_root, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
