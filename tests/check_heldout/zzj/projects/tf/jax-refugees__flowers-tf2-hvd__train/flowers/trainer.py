import os

import keras
import tensorflow as tf
import horovod.tensorflow as hvd


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr, self.warmup_steps, self.total_steps = peak_lr, warmup_steps, total_steps

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak_lr * (step + 1) / self.warmup_steps
        frac = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak_lr * (1 + tf.cos(3.14159265 * tf.minimum(frac, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)

    def get_config(self):
        return {'peak_lr': self.peak_lr, 'warmup_steps': self.warmup_steps, 'total_steps': self.total_steps}


class Trainer:
    def __init__(self, cfg, model, steps_per_epoch):
        self.cfg, self.model = cfg, model
        sched = WarmupCosine(cfg.peak_lr, cfg.warmup_steps, cfg.epochs * steps_per_epoch)
        self.opt = keras.optimizers.AdamW(learning_rate=sched, weight_decay=1e-4)
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=self.opt)
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.ckpt_dir, max_to_keep=2)

    @tf.function
    def train_step(self, x, y, first):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, x, y):
        logits = self.model(x, training=False)
        return tf.reduce_sum(tf.cast(tf.argmax(logits, -1, output_type=tf.int64) == tf.cast(y, tf.int64),
                                     tf.float32))

    def evaluate(self, val_ds):
        # every rank scores the whole (small) validation split, so the number is the same everywhere
        correct, n = 0.0, 0
        for x, y in val_ds:
            correct += float(self.eval_step(x, y))
            n += int(x.shape[0])
        return correct / max(n, 1)

    def save(self, epoch):
        if hvd.rank() == 0:
            os.makedirs(self.cfg.ckpt_dir, exist_ok=True)
            return self.manager.save(checkpoint_number=epoch)
