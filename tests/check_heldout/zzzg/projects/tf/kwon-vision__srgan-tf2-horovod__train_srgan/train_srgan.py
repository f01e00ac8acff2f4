#!/usr/bin/env python
import argparse
import os
import time

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

from gan_sr.dataset import full_val, hr_lr_pairs
from gan_sr.models import discriminator, generator, vgg_features
from gan_sr.steps import make_train_step


def get_args():
    ap = argparse.ArgumentParser("SRGAN, TF2 + horovod")
    ap.add_argument("--train", default="/data/DIV2K/train_HR/*.png")
    ap.add_argument("--val", default="/data/Set14/*.png")
    ap.add_argument("--srresnet", default="weights/srresnet_x4.weights.h5")
    ap.add_argument("--vgg", default="weights/vgg19_notop.weights.h5")
    ap.add_argument("--hr-size", type=int, default=96)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--steps", type=int, default=100000)
    ap.add_argument("--val-every", type=int, default=2000)
    ap.add_argument("--out", default="runs/srgan")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    gen, disc = generator(), discriminator(args.hr_size)
    if os.path.exists(args.srresnet):
        gen.load_weights(args.srresnet)
    vgg = vgg_features(args.vgg)
    g_opt = keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.9)
    d_opt = keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.9)
    step_fn = make_train_step(gen, disc, vgg, g_opt, d_opt, {"pixel": 1e-2, "vgg": 6e-3, "adv": 1e-3})

    ds = hr_lr_pairs(args.train, args.hr_size, 4, args.batch)
    val = full_val(args.val, 4)
    ckpt = tf.train.Checkpoint(gen=gen, disc=disc, g_opt=g_opt, d_opt=d_opt)
    t0 = time.time()
    for it, (lr, hr) in enumerate(ds.take(args.steps)):
        g_loss, d_loss = step_fn(lr, hr, it == 0)
        if hvd.rank() == 0 and it % 200 == 0:
            print(f"[{it}] g {float(g_loss):.4f} d {float(d_loss):.4f} ({time.time() - t0:.0f}s)", flush=True)
        if (it + 1) % args.val_every == 0:
            psnrs = [tf.image.psnr(tf.clip_by_value(gen(l, training=False), 0, 1), h, 1.0)[0] for l, h in val]
            if hvd.rank() == 0:
                print(f"[{it + 1}] Set14 PSNR {np.mean(psnrs):.2f}")
                ckpt.write(os.path.join(args.out, "ckpt"))


if __name__ == "__main__":
    main()
