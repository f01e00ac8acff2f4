"""GraphSAGE node classification with sampled neighbourhoods, TF2 + Horovod.

    horovodrun -np 4 python train_sage.py --graph data/reddit_small.npz --epochs 20
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from sage.config import SageConfig
from sage.graph import Graph, NeighborSampler, split_train_nodes
from sage.model import GraphSAGE
from sage.trainer import Trainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", default="data/reddit_small.npz")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--fanouts", type=int, nargs="+", default=[10, 5])
    ap.add_argument("--ckpt-dir", default="./sage_ckpt")
    args = ap.parse_args()
    cfg = SageConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                     fanouts=tuple(args.fanouts))

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    graph = Graph.load(args.graph)
    my_nodes = split_train_nodes(graph.train_idx, hvd.rank(), hvd.size(), seed=cfg.seed)
    sampler = NeighborSampler(graph, cfg.fanouts)

    model = GraphSAGE(cfg.hidden, graph.num_classes, num_layers=len(cfg.fanouts))
    optimizer = tf.keras.optimizers.Adam(cfg.lr * hvd.size())
    trainer = Trainer(model, optimizer, cfg)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    rng = np.random.default_rng(cfg.seed + hvd.rank())
    steps = len(my_nodes) // cfg.batch_size
    for epoch in range(cfg.epochs):
        rng.shuffle(my_nodes)
        total = 0.0
        for step in range(steps):
            batch = my_nodes[step * cfg.batch_size:(step + 1) * cfg.batch_size]
            feats, adjs, labels = sampler.sample(batch)
            loss = trainer.train_step(feats, adjs, labels)
            if epoch == 0 and step == 0 and hvd.rank() == 0:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(optimizer.variables, root_rank=0)
            total += float(loss)

        val_acc = trainer.evaluate(sampler, graph.val_idx, graph.labels)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {total / max(steps, 1):.4f} val_acc {val_acc:.4f}")
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
