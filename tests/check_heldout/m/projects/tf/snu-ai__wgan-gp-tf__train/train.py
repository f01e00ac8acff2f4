"""WGAN-GP on 32x32 images with a custom GradientTape loop, Horovod data parallel.

    horovodrun -np 4 python train.py --data data/cifar10_train.npz
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from wgan import ckpt as ckpt_util
from wgan.data import load_images, make_dataset
from wgan.nets import make_critic, make_generator
from wgan.steps import make_steps

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/cifar10_train.npz")
p.add_argument("--logdir", default="runs/wgan_gp")
p.add_argument("--steps", type=int, default=100000)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-4)
p.add_argument("--n-critic", type=int, default=5)
p.add_argument("--z-dim", type=int, default=128)
p.add_argument("--ckpt-every", type=int, default=5000)
p.add_argument("--log-every", type=int, default=200)
args = p.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

images = load_images(args.data)
dataset = iter(make_dataset(images, args.batch_size, hvd.rank(), hvd.size()))

generator = make_generator(args.z_dim)
critic = make_critic()
g_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.0, beta_2=0.9)
d_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.0, beta_2=0.9)
critic_step, generator_step = make_steps(generator, critic, g_opt, d_opt, args.z_dim)

step = tf.Variable(0, dtype=tf.int64, trainable=False)
ckpt, manager = ckpt_util.make_manager(generator, critic, g_opt, d_opt, step, args.logdir)
ckpt_util.restore_latest(ckpt, manager)
writer = tf.summary.create_file_writer(args.logdir) if hvd.rank() == 0 else None

t0 = time.time()
first = True
while int(step) < args.steps:
    for _ in range(args.n_critic):
        d_loss, w_dist = critic_step(next(dataset))
    g_loss = generator_step(args.batch_size)
    if first:
        # all variables exist now: start every worker from rank 0's state
        hvd.broadcast_variables(generator.variables + critic.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables + d_opt.variables, root_rank=0)
        first = False
    step.assign_add(1)

    s = int(step)
    if s % args.log_every == 0:
        d_avg = hvd.allreduce(d_loss, name="d_loss")
        g_avg = hvd.allreduce(g_loss, name="g_loss")
        w_avg = hvd.allreduce(w_dist, name="w_dist")
        if writer is not None:
            with writer.as_default():
                tf.summary.scalar("loss/critic", d_avg, step=s)
                tf.summary.scalar("loss/generator", g_avg, step=s)
                tf.summary.scalar("wasserstein", w_avg, step=s)
            print(f"step {s}: D {float(d_avg):.4f} G {float(g_avg):.4f} W {float(w_avg):.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
    if s % args.ckpt_every == 0:
        ckpt_util.save(manager, s)
