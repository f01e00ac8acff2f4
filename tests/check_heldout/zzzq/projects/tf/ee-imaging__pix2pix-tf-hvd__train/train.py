import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from p2p.options import parse_options
from p2p.data import make_dataset
from p2p.trainer import Pix2Pix
from p2p import dist


def main():
    opt = parse_options()
    hvd.init()
    dist.pin_gpu()

    train_ds = make_dataset(opt.train_dir, opt.img_size, opt.batch_size, True, opt.synthetic)
    val_ds = make_dataset(opt.val_dir, opt.img_size, 4, False, opt.synthetic)
    model = Pix2Pix(opt)
    manager = tf.train.CheckpointManager(model.ckpt, opt.checkpoint_dir, max_to_keep=3)
    if dist.is_master():
        os.makedirs(opt.sample_dir, exist_ok=True)

    for epoch in range(opt.epochs):
        t = time.time()
        g_sum = d_sum = 0.0
        n = 0
        for step, (a, b) in enumerate(train_ds):
            g, d, l1 = model.train_step(a, b, epoch == 0 and step == 0)
            g_sum += float(g); d_sum += float(d); n += 1
        g_avg = dist.allreduce_mean(g_sum / n, "g_loss")
        d_avg = dist.allreduce_mean(d_sum / n, "d_loss")
        psnr_tot, psnr_n = model.psnr_sum(val_ds)
        psnr_tot = hvd.allreduce(tf.constant(psnr_tot), op=hvd.Sum, name="psnr_tot")
        psnr_n = hvd.allreduce(tf.constant(psnr_n, tf.float32), op=hvd.Sum, name="psnr_n")
        if dist.is_master():
            print(f"epoch {epoch + 1}: G {g_avg:.3f} D {d_avg:.3f} val PSNR {float(psnr_tot / psnr_n):.2f} "
                  f"({time.time() - t:.0f}s)")
            a, b = next(iter(val_ds))
            model.save_samples(a, b, epoch)
            if (epoch + 1) % 20 == 0:
                manager.save()


if __name__ == "__main__":
    main()
