"""Fit a neural signed distance function to one oriented point cloud (IGR-style eikonal loss).

Many points per step are split over the workers:
    horovodrun -np 4 python train_sdf.py --scan data/bunny.npz --global-points 16384
"""
import argparse
import os

import numpy as np
import tensorflow as tf

from sdfnet import distributed as dist
from sdfnet.chamfer import one_sided_sums, project_to_surface
from sdfnet.net import SDFNet
from sdfnet.sampling import PointSampler, load_scan, split_for_worker


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scan", default="data/bunny.npz")
    ap.add_argument("--global-points", type=int, default=16384, help="surface points per step, all workers")
    ap.add_argument("--lr", type=float, default=5e-3, help="lr for the global point batch")
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--lambda-eik", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--out", default="runs/sdf")
    return ap.parse_args()


def main():
    args = parse()
    rank, world = dist.setup()

    points, normals = load_scan(args.scan)
    mine = split_for_worker(len(points), rank, world)
    sampler = PointSampler(points[mine], normals[mine], args.global_points // world, seed=1000 + rank)

    model = SDFNet()
    model(tf.zeros([1, 3]))
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([args.iters // 2, 3 * args.iters // 4],
                                                                    [args.lr, args.lr / 2, args.lr / 4])
    opt = tf.keras.optimizers.Adam(schedule)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, args.out, max_to_keep=2)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
    dist.sync_weights(model)

    @tf.function
    def step(p, n, q):
        with tf.GradientTape() as tape:
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(p)
                inner.watch(q)
                f_p, f_q = model(p), model(q)
            g_p, g_q = inner.gradient(f_p, p), inner.gradient(f_q, q)
            surf = tf.reduce_mean(tf.abs(f_p)) + tf.reduce_mean(tf.norm(g_p - n, axis=-1))
            eik = tf.reduce_mean((tf.norm(g_q, axis=-1) - 1.0) ** 2)
            loss = surf + args.lambda_eik * eik
        tape = dist.wrap_tape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    eval_ref = points[mine]
    for it in range(int(opt.iterations.numpy()), args.iters):
        p, n, q = sampler.sample()
        loss = step(tf.constant(p), tf.constant(n), tf.constant(q))
        if (it + 1) % args.eval_every == 0:
            proj = project_to_surface(model, eval_ref)
            s, c = one_sided_sums(proj, points)
            s, c = dist.global_sum([s, c])
            if dist.is_chief():
                print(f"it {it + 1} loss {float(loss):.5f} surface->scan chamfer {s / c:.5f}", flush=True)
                manager.save(checkpoint_number=it + 1)


if __name__ == "__main__":
    main()
