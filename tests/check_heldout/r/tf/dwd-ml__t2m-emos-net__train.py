"""Post-processing of ensemble 2 m temperature forecasts at SYNOP stations: a network that predicts a
Gaussian (mu, sigma) per station and lead time, trained on the CRPS (Rasp & Lerch 2018 style).

    sbatch --nodes=2 --ntasks-per-node=4 --gres=gpu:4 --wrap "srun python train.py --data /hpc/pp/t2m_2016_2021.npz"
"""
import argparse
import time

import horovod.tensorflow as hvd
import tensorflow as tf

from pp import data, hvd_utils, losses
from pp.model import build_emos_net

p = argparse.ArgumentParser()
p.add_argument("--data", required=True)
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--batch", type=int, default=1024, help="per GPU")
p.add_argument("--lr", type=float, default=1e-3, help="lr of a single-GPU run")
p.add_argument("--ckpt-dir", default="./ckpt_emos")
args = p.parse_args()

hvd.init()
hvd_utils.pin_gpu()

train_ds, val_ds, n_stations, n_feat, steps, val_steps = data.make_datasets(
    args.data, args.batch, hvd.rank(), hvd.size())

model = build_emos_net(n_feat, n_stations)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr)
ckpt = hvd_utils.Checkpointer(model, opt, args.ckpt_dir)


@tf.function
def train_step(x, sid, y):
    with tf.GradientTape() as tape:
        mu, sigma = model([x, sid], training=True)
        loss = losses.crps_normal(y, mu, sigma)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def val_step(x, sid, y):
    mu, sigma = model([x, sid], training=False)
    return losses.crps_normal(y, mu, sigma)


for epoch in range(args.epochs):
    t0 = time.time()
    opt.learning_rate.assign(hvd_utils.warmup_lr(epoch, args.lr, warmup_epochs=3))
    train_crps = tf.keras.metrics.Mean()
    for step, (x, sid, y) in enumerate(train_ds.take(steps)):
        train_crps(train_step(x, sid, y))
        if epoch == 0 and step == 0:
            # after the first step, so that the optimizer slots exist
            hvd_utils.broadcast_model_and_optimizer(model, opt)
    val_crps = tf.keras.metrics.Mean()
    for x, sid, y in val_ds.take(val_steps):
        val_crps(val_step(x, sid, y))
    tr = hvd_utils.allreduce_mean(train_crps.result(), "train_crps")
    va = hvd_utils.allreduce_mean(val_crps.result(), "val_crps")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: train CRPS {tr:.4f} K  val CRPS {va:.4f} K  "
              f"lr {float(opt.learning_rate.numpy()):.2e}  {time.time() - t0:.0f}s", flush=True)
    ckpt.save(epoch)
