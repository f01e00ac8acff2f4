"""GIN graph classification on molecule graphs, Horovod + tf.GradientTape.

    mpirun -np 4 python train.py --data data/mutag.npz --epochs 100
"""
import argparse
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd
import keras

from gin.data import graph_dataset, load_molecules, shard_molecules, synthetic_molecules
from gin.model import GraphClassifier
from gin.steps import make_eval_step, make_train_step

p = argparse.ArgumentParser()
p.add_argument("--data", default="")
p.add_argument("--epochs", type=int, default=100)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--head-lr-mult", type=float, default=5.0)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--out", default="out_gin")
args = p.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)

mols = load_molecules(args.data) if args.data else synthetic_molecules(3000)
n_val = len(mols) // 10
train_mols = shard_molecules(mols[n_val:], hvd.rank(), hvd.size(), seed=1)
val_mols = shard_molecules(mols[:n_val], hvd.rank(), hvd.size(), seed=1)

model = GraphClassifier(hidden=args.hidden)
enc_opt = keras.optimizers.Adam(args.lr * hvd.size())
head_opt = keras.optimizers.Adam(args.lr * args.head_lr_mult * hvd.size())
train_step = make_train_step(model, enc_opt, head_opt)
eval_step = make_eval_step(model)

if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)

first = True
for epoch in range(args.epochs):
    t0 = time.time()
    for graphs, labels in graph_dataset(train_mols, args.batch_size, shuffle=True, seed=epoch):
        loss = train_step(graphs, labels, first)
        first = False
    correct = total = 0.0
    for graphs, labels in graph_dataset(val_mols, args.batch_size, shuffle=False):
        c, n = eval_step(graphs, labels)
        correct += c
        total += n
    acc = hvd.allreduce(tf.stack([correct, total]), op=hvd.Sum)
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {float(loss):.4f} val acc {float(acc[0] / acc[1]):.4f} ({time.time() - t0:.1f}s)")
        model.save_weights(os.path.join(args.out, "gin.weights.h5"))
