import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


class Engine:
    def __init__(self, model, optimizer, cfg):
        self.model, self.opt, self.cfg = model, optimizer, cfg
        self.lead = cfg["data"]["lead_steps"]
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
        self.mgr = tf.train.CheckpointManager(self.ckpt, os.path.join(cfg["run"]["out"], "ckpt"),
                                              max_to_keep=cfg["run"]["ckpt_keep"])

    def restore(self):
        if self.mgr.latest_checkpoint:
            self.ckpt.restore(self.mgr.latest_checkpoint)
        return int(self.ckpt.epoch.numpy())

    def _loss(self, seq, training):
        x, loss = seq[:, 0], 0.0
        for k in range(1, self.lead + 1):
            x = self.model(x, training=training)
            loss += tf.reduce_mean(tf.square(x - seq[:, k]))
        return loss / self.lead

    @tf.function
    def train_step(self, seq, first):
        with tf.GradientTape() as tape:
            loss = self._loss(seq, True)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, seq):
        return self._loss(seq, False) * tf.cast(tf.shape(seq)[0], tf.float32), tf.cast(tf.shape(seq)[0], tf.float32)

    def evaluate(self, ds):
        tot = tf.zeros(2)
        for seq in ds:
            l, n = self.eval_step(seq)
            tot += tf.stack([l, n])
        tot = hvd.allreduce(tot, op=hvd.Sum, name="eval_tot")
        return float(tot[0] / tot[1])

    def fit(self, train_ds, valid_ds, start_epoch):
        first = True
        for epoch in range(start_epoch, self.cfg["optim"]["epochs"]):
            t0 = time.time()
            for i, seq in enumerate(train_ds):
                loss = self.train_step(seq, first)
                first = False
                if hvd.rank() == 0 and i % self.cfg["run"]["log_every"] == 0:
                    print("ep %d it %d loss %.4f" % (epoch, i, float(loss)), flush=True)
            vl = self.evaluate(valid_ds)
            self.ckpt.epoch.assign(epoch + 1)
            if hvd.rank() == 0:
                print("epoch %d valid rollout mse %.4f (%.0fs)" % (epoch, vl, time.time() - t0), flush=True)
                self.mgr.save()
