"""MIMO-UNet-style motion deblurring on GoPro, TF2 custom loop + Horovod."""
import argparse
import dataclasses
import logging

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from deblur import TrainConfig
from deblur.data import make_train, make_val
from deblur.losses import charbonnier, fft_l1, psnr
from deblur.net import small_unet

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(message)s")
log = logging.getLogger("deblur")


def parse_config():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        ap.add_argument("--" + f.name.replace("_", "-"), type=f.type,
                        default=getattr(cfg, f.name))
    return TrainConfig(**vars(ap.parse_args()))


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = [tf.Variable(v, trainable=False) for v in model.trainable_variables]

    def update(self, model):
        for s, v in zip(self.shadow, model.trainable_variables):
            s.assign(self.decay * s + (1.0 - self.decay) * v)

    def swap(self, model):
        for s, v in zip(self.shadow, model.trainable_variables):
            tmp = tf.identity(v)
            v.assign(s)
            s.assign(tmp)


def main():
    cfg = parse_config()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    model = small_unet()
    opt = keras.optimizers.Adam(cfg.lr)   # global batch is fixed, so the lr stays as tuned
    train_ds = make_train(cfg, hvd.size(), hvd.rank())
    val_ds = make_val(cfg)

    @tf.function
    def train_step(blur, sharp, first_batch):
        with tf.GradientTape() as tape:
            out = model(blur, training=True)
            loss = charbonnier(out, sharp) + cfg.fft_weight * fft_l1(out, sharp)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    ema = None
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=3)

    for step, (blur, sharp) in enumerate(train_ds.take(cfg.iterations)):
        loss = train_step(blur, sharp, step == 0)
        if ema is None:
            ema = EMA(model, cfg.ema_decay)   # after the broadcast, so every shadow copy starts equal
        ema.update(model)
        if step % 100 == 0 and hvd.rank() == 0:
            log.info("step %d  loss %.4f", step, float(loss))
        if (step + 1) % cfg.eval_every == 0:
            # all workers score the full GoPro test split with the EMA weights; rank 0 reports
            ema.swap(model)
            scores = [float(tf.reduce_mean(psnr(model(b, training=False), s))) for b, s in val_ds]
            ema.swap(model)
            if hvd.rank() == 0:
                log.info("step %d  EMA PSNR %.2f dB", step + 1, sum(scores) / len(scores))
                manager.save(checkpoint_number=step + 1)


if __name__ == "__main__":
    main()
