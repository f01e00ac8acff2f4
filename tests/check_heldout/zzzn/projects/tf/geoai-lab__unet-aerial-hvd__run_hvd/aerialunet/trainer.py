import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from .data import train_dataset, val_tiles
from .metrics import ConfMat
from .model import unet


class PolyLR(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, base_lr, total_iters, power=0.9):
        self.base_lr, self.total_iters, self.power = base_lr, total_iters, power

    def __call__(self, step):
        frac = tf.minimum(tf.cast(step, tf.float32) / self.total_iters, 1.0)
        return self.base_lr * (1.0 - frac) ** self.power


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.train_ds, self.iters_per_epoch = train_dataset(cfg)
        self.model = unet(cfg.classes)
        total = cfg.epochs * self.iters_per_epoch
        self.opt = keras.optimizers.Adam(PolyLR(cfg.lr * hvd.size(), total, cfg.power))
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.best = -1.0
        if hvd.rank() == 0:
            os.makedirs(cfg.out, exist_ok=True)

    @tf.function
    def _step(self, img, lbl, first):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(lbl, self.model(img, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def sliding_logits(self, img):
        w, s = self.cfg.window, self.cfg.stride
        _, H, W, _ = img.shape
        out = np.zeros((H, W, self.cfg.classes), np.float32)
        cnt = np.zeros((H, W, 1), np.float32)
        ys = list(range(0, max(H - w, 0) + 1, s)) + ([H - w] if H > w and (H - w) % s else [])
        xs = list(range(0, max(W - w, 0) + 1, s)) + ([W - w] if W > w and (W - w) % s else [])
        for y in ys:
            for x in xs:
                out[y:y + w, x:x + w] += self.model(img[:, y:y + w, x:x + w], training=False)[0].numpy()
                cnt[y:y + w, x:x + w] += 1
        return out / np.maximum(cnt, 1)

    def validate(self):
        cm = ConfMat(self.cfg.classes)
        for img, lbl in val_tiles(self.cfg):
            cm.add(lbl, np.argmax(self.sliding_logits(img), -1))
        return cm.allreduce().iou()

    def fit(self):
        first = True
        for epoch in range(self.cfg.epochs):
            t0 = time.time()
            for it, (img, lbl) in enumerate(self.train_ds):
                loss = self._step(img, lbl, first)
                first = False
                if hvd.rank() == 0 and it % 25 == 0:
                    print('ep %d it %d/%d loss %.4f' % (epoch, it, self.iters_per_epoch, float(loss)), flush=True)
            iou = self.validate()
            if hvd.rank() == 0:
                print('ep %d  IoU %s  mIoU %.4f  %.0fs' % (epoch, np.round(iou, 4), iou.mean(), time.time() - t0))
                self.model.save_weights(os.path.join(self.cfg.out, 'last.weights.h5'))
                if iou.mean() > self.best:
                    self.best = float(iou.mean())
                    self.model.save_weights(os.path.join(self.cfg.out, 'best_miou.weights.h5'))
        return self.best
