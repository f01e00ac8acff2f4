import time

import tensorflow as tf
import horovod.tensorflow as hvd


class Hook:
    def after_step(self, trainer, step, loss): pass
    def after_epoch(self, trainer, epoch): pass


class LoggerHook(Hook):
    def __init__(self, interval=50):
        self.interval, self.t = interval, time.time()

    def after_step(self, trainer, step, loss):
        if hvd.rank() == 0 and step % self.interval == 0:
            lr = trainer.optimizer.learning_rate
            print(f"step {step:6d} loss {float(loss):.4f} lr {float(lr):.5f} ({time.time() - self.t:.1f}s)", flush=True)
            self.t = time.time()


class EvalHook(Hook):
    def __init__(self, val_ds, ema=None):
        self.val_ds, self.ema = val_ds, ema

    def after_epoch(self, trainer, epoch):
        if self.ema is not None:
            self.ema.swap_in()
        correct = total = 0.0
        for images, labels in self.val_ds:
            logits = trainer.model(images, training=False)
            correct += float(tf.reduce_sum(tf.cast(tf.argmax(logits, 1, output_type=tf.int32) == tf.cast(labels, tf.int32), tf.float32)))
            total += float(tf.shape(labels)[0])
        stats = hvd.allreduce(tf.constant([correct, total]), op=hvd.Sum, name="val_stats")
        if self.ema is not None:
            self.ema.swap_out()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val top1 (ema) = {float(stats[0] / stats[1]):.4f}", flush=True)


class CheckpointHook(Hook):
    def __init__(self, manager, ckpt):
        self.manager, self.ckpt = manager, ckpt

    def after_epoch(self, trainer, epoch):
        self.ckpt.epoch.assign(epoch + 1)
        if hvd.rank() == 0:
            self.manager.save()
