"""PaiNN in Keras 3 for energies + forces.
Single GPU:   python train.py --train data/train.npz
Multi GPU:    horovodrun -np 4 python train.py --train data/train.npz
"""
import argparse
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from kpainn import PaiNN
from kpainn.gpu import configure_gpus
from kpainn.data import make_tf_dataset
from kpainn.trainer import EnergyForceTrainer
from kpainn import io

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="data/train.npz")
parser.add_argument("--valid", default="data/valid.npz")
parser.add_argument("--distributed", action="store_true", help="use horovod")
parser.add_argument("--batch-size", type=int, default=10)
parser.add_argument("--epochs", type=int, default=500)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--features", type=int, default=64)
parser.add_argument("--layers", type=int, default=3)
parser.add_argument("--cutoff", type=float, default=5.0)
parser.add_argument("--w-energy", type=float, default=0.01)
parser.add_argument("--w-forces", type=float, default=0.99)
parser.add_argument("--out", default="runs/painn")
args = parser.parse_args()

if args.distributed:
    hvd.init()
configure_gpus()
world, rank = hvd.size(), hvd.rank()

train_ds = make_tf_dataset(args.train, args.batch_size, rank, world, shuffle=True)
valid_ds = make_tf_dataset(args.valid, args.batch_size, rank, world, shuffle=False)

model = PaiNN(F=args.features, n_layers=args.layers, rc=args.cutoff)
opt = keras.optimizers.Adam(learning_rate=args.lr * world, clipnorm=None)
trainer = EnergyForceTrainer(model, opt, args.w_energy, args.w_forces)

best = None
for epoch in range(args.epochs):
    t0 = time.time()
    losses = [float(trainer.train_step(b)) for b in train_ds]
    metrics = trainer.evaluate(valid_ds)
    if rank == 0:
        print(f"[{epoch:03d}] loss={sum(losses) / len(losses):.4f} "
              f"mae_e/atom={metrics['mae_e_atom']:.4f} mae_f={metrics['mae_f']:.4f} t={time.time() - t0:.0f}s")
    if best is None or metrics["mae_f"] < best:
        best = metrics["mae_f"]
        io.save(model, trainer.ema_vars, args.out, "best", meta={"epoch": epoch, **metrics})
