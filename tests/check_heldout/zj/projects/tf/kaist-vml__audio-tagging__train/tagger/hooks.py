import os

import horovod.tensorflow as hvd
import keras
import tensorflow as tf


class Hook:
    def before_train(self, trainer): pass
    def after_step(self, trainer, logs): pass
    def after_epoch(self, trainer, epoch): pass


class LogHook(Hook):
    def __init__(self, every):
        self.every = every

    def after_step(self, trainer, logs):
        if hvd.rank() == 0 and trainer.step % self.every == 0:
            print(f"step {trainer.step} loss {logs['loss']:.4f} lr {logs['lr']:.2e}", flush=True)


class EvalHook(Hook):
    def __init__(self, val_ds):
        self.val_ds = val_ds
        self.auc = keras.metrics.AUC(multi_label=True, from_logits=True, name="mAUC")
        self.bce = keras.metrics.Mean(name="val_bce")

    def after_epoch(self, trainer, epoch):
        self.auc.reset_state()
        self.bce.reset_state()
        for x, y in self.val_ds:
            logits = trainer.model(x, training=False)
            self.auc.update_state(y, logits)
            self.bce.update_state(tf.reduce_mean(
                tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)))
        trainer.metrics = {"val_mAUC": float(self.auc.result()), "val_bce": float(self.bce.result())}
        if hvd.rank() == 0:
            print(f"epoch {epoch}: " + ", ".join(f"{k}={v:.4f}" for k, v in trainer.metrics.items()),
                  flush=True)


class CheckpointHook(Hook):
    def __init__(self, ckpt_dir):
        self.ckpt_dir = ckpt_dir

    def after_epoch(self, trainer, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.ckpt_dir, exist_ok=True)
        trainer.model.save_weights(os.path.join(self.ckpt_dir, f"epoch{epoch:03d}.weights.h5"))
