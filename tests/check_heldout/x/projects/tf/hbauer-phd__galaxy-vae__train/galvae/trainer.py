import horovod.tensorflow as hvd
import tensorflow as tf


class VAETrainer:
    def __init__(self, model, optimizer, cfg, log_dir=None):
        self.model, self.optimizer, self.cfg = model, optimizer, cfg
        self.is_chief = hvd.rank() == 0
        self.writer = tf.summary.create_file_writer(log_dir) if log_dir else None
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        # only rank 0 owns a manager: one writer for the checkpoint directory
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.ckpt_dir, max_to_keep=2) if self.is_chief else None

    def maybe_resume(self):
        epoch = 0
        if self.is_chief and self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            epoch = int(self.manager.latest_checkpoint.rsplit("-", 1)[-1])
        # rank 0's restored weights reach the others with the first-step broadcast below
        return hvd.broadcast_object(epoch, root_rank=0, name="start_epoch")

    @tf.function
    def train_step(self, x, first_batch):
        with tf.GradientTape() as tape:
            loss = self.model.elbo_loss(x, training=True)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    def evaluate(self, ds):
        total, n = 0.0, 0
        for x in ds:
            total += float(self.model.elbo_loss(x))
            n += 1
        # equal number of equal batches on every worker -> mean of the per-worker means is the mean
        return float(hvd.allreduce(tf.constant(total / n), name="val_loss"))

    def fit(self, train_ds, val_ds, start_epoch=0):
        best, bad, first = float("inf"), 0, True
        for epoch in range(start_epoch, self.cfg.epochs):
            for x in train_ds:
                loss = self.train_step(x, first)
                first = False
            val = self.evaluate(val_ds)
            stop = False
            if self.is_chief:
                with self.writer.as_default():
                    tf.summary.scalar("train/loss", loss, step=epoch)
                    tf.summary.scalar("val/loss", val, step=epoch)
                self.manager.save(checkpoint_number=epoch + 1)
                if val < best:
                    best, bad = val, 0
                    self.model.save_weights(self.cfg.ckpt_dir + "/best.weights.h5")
                else:
                    bad += 1
                stop = bad >= self.cfg.patience
                print(f"epoch {epoch}: train {float(loss):.2f} val {val:.2f} best {best:.2f}", flush=True)
            if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
                break
