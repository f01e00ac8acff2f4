import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from .dist import global_sum, chief
from .features import partition, batches


class Loop:
    def __init__(self, model, opt, args):
        self.model, self.opt, self.args = model, opt, args
        self.ckpt = tf.train.Checkpoint(model=model, opt=opt, epoch=tf.Variable(0))
        self.manager = tf.train.CheckpointManager(self.ckpt, args.ckpt_dir, max_to_keep=args.keep) if chief() else None

    @tf.function
    def step(self, x, y, first):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x, training=True) - y))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            # variables exist only after the first apply -> broadcast now
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def evaluate(self, xv, yv):
        rank, size = hvd.rank(), hvd.size()
        sq, n = 0.0, 0
        for s in range(rank * 8192, len(yv), size * 8192):
            xb = {k: v[s:s + 8192] for k, v in xv.items()}
            p = self.model(xb, training=False).numpy()
            sq += float(np.sum((p - yv[s:s + 8192]) ** 2))
            n += len(p)
        tot = global_sum([sq, n], "val_sums")
        return float(np.sqrt(tot[0] / tot[1]))            # RMSLE over all valid rows

    def run(self, x, y, xv, yv):
        first = True
        best = np.inf
        for epoch in range(self.args.epochs):
            t0 = time.time()
            idx = partition(len(y), hvd.rank(), hvd.size(), seed=123, epoch=epoch)
            for i, (xb, yb) in enumerate(batches(x, y, idx, self.args.batch_size)):
                loss = self.step(xb, yb, first)
                first = False
                if chief() and i % self.args.log_every == 0:
                    print(f"ep {epoch} it {i} loss {loss.numpy():.4f}", flush=True)
            rmsle = self.evaluate(xv, yv)
            if chief():
                print(f"ep {epoch} valid RMSLE {rmsle:.4f} [{time.time() - t0:.0f}s]", flush=True)
                if rmsle < best:
                    best = rmsle
                    self.ckpt.epoch.assign(epoch)
                    self.manager.save()
        return best
