"""ANI-style energy+force training in TF2, horovod data parallel.

    python train.py --np 4 --data data/ani1x_subset.npz          # horovod.run spawns 4 workers
    horovodrun -np 4 python train.py --np 1 --data ...            # or launch yourself
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from anitf.aev import RadialAEV
from anitf.nets import ANIModel
from anitf.data import ANIData, worker_indices
from anitf.launcher import launch
from anitf import dist


def train_fn(cfg):
    dist.setup()
    rank, world = hvd.rank(), hvd.size()
    keras.utils.set_random_seed(cfg["seed"])

    data = ANIData(cfg["data"])
    tr_idx, va_idx = worker_indices(len(data), rank, world, cfg["seed"])
    sae = data.self_energies(np.sort(np.concatenate(hvd.allgather_object(tr_idx))))

    aev = RadialAEV(n_species=4)
    model = ANIModel(aev, 4)
    b0 = data.collate(tr_idx[:2])
    model(b0["species"], b0["pos"], b0["seg"], tf.constant(2))   # create the weights
    opt = keras.optimizers.AdamW(learning_rate=cfg["lr"] * world, weight_decay=1e-6)
    opt.build(model.trainable_variables)
    hvd.broadcast_variables(model.variables + opt.variables, root_rank=0)

    sae_tf = tf.constant(sae)

    def predict(b):
        pos = tf.convert_to_tensor(b["pos"])
        with tf.GradientTape() as g:
            g.watch(pos)
            e = model(b["species"], pos, b["seg"], tf.shape(b["energy"])[0])
            e = e + tf.math.unsorted_segment_sum(tf.gather(sae_tf, b["species"]), b["seg"],
                                                 tf.shape(b["energy"])[0])
        return e, -g.gradient(e, pos)

    @tf.function(reduce_retracing=True)
    def step(b):
        with tf.GradientTape() as tape:
            e, f = predict(b)
            l_e = tf.reduce_mean(tf.square(e - b["energy"]) / b["natoms"])
            l_f = tf.reduce_mean(tf.square(f - b["forces"]))
            loss = cfg["w_e"] * l_e + cfg["w_f"] * l_f
        grads = tape.gradient(loss, model.trainable_variables)
        grads = hvd.grouped_allreduce(grads, op=hvd.Average)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    bs = cfg["batch_size"]
    rng = np.random.default_rng(cfg["seed"] + rank)
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        order = rng.permutation(tr_idx)
        for k in range(0, len(order) - bs + 1, bs):
            loss = step(data.collate(order[k:k + bs]))

        e_err = f_err = n_mol = n_comp = 0.0
        for k in range(0, len(va_idx), bs):
            b = data.collate(va_idx[k:k + bs])
            e, f = predict(b)
            e_err += float(tf.reduce_sum(tf.abs(e - b["energy"]) / b["natoms"]))
            f_err += float(tf.reduce_sum(tf.abs(f - b["forces"])))
            n_mol += len(b["energy"]); n_comp += b["forces"].size
        e_mae, f_mae = dist.pooled_mae(e_err, n_mol), dist.pooled_mae(f_err, n_comp)

        if rank == 0:
            print(f"epoch {epoch} loss {float(loss):.4f} val E/atom {e_mae:.4f} F {f_mae:.4f} "
                  f"{time.time() - t0:.1f}s", flush=True)
            if (epoch + 1) % cfg["ckpt_every"] == 0:
                ckpt.write(os.path.join(cfg["out"], f"ani_{epoch + 1}"))
    return rank


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--hosts", default=None)
    ap.add_argument("--data", default="data/ani1x_subset.npz")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--w-e", type=float, default=1.0)
    ap.add_argument("--w-f", type=float, default=0.1)
    ap.add_argument("--ckpt-every", type=int, default=10)
    ap.add_argument("--out", default="runs/ani")
    ap.add_argument("--seed", type=int, default=11)
    cfg = vars(ap.parse_args())
    print(launch(train_fn, cfg))
