import tensorflow as tf
import horovod.tensorflow as hvd


class Trainer:
    def __init__(self, model, optimizer, dctx, ckpt_dir, log_dir):
        self.model = model
        self.optimizer = optimizer
        self.dctx = dctx
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.train_loss = tf.keras.metrics.Mean("loss")
        self.train_acc = tf.keras.metrics.SparseCategoricalAccuracy("acc")
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer,
                                        epoch=tf.Variable(0))
        self.manager = tf.train.CheckpointManager(self.ckpt, ckpt_dir, max_to_keep=2)
        self.writer = tf.summary.create_file_writer(log_dir) if dctx.is_chief else None

    @tf.function
    def train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self.train_loss.update_state(loss)
        self.train_acc.update_state(y, logits)

    def evaluate(self, ds):
        correct, seen = 0, 0
        for x, y in ds:
            pred = tf.argmax(self.model(x, training=False), -1)
            correct += int(tf.reduce_sum(tf.cast(pred == y, tf.int32)))
            seen += int(tf.shape(y)[0])
        tot = hvd.allreduce(tf.constant([correct, seen], tf.float64), op=hvd.Sum)
        return float(tot[0] / tot[1])

    def fit(self, train_ds, val_ds, epochs):
        first = True
        for epoch in range(int(self.ckpt.epoch), epochs):
            self.train_loss.reset_state()
            self.train_acc.reset_state()
            for x, y in train_ds:
                self.train_step(x, y, first)
                first = False
            val_acc = self.evaluate(val_ds)
            loss = float(hvd.allreduce(self.train_loss.result()))
            self.ckpt.epoch.assign_add(1)
            if self.dctx.is_chief:
                self.manager.save()
                with self.writer.as_default():
                    tf.summary.scalar("train/loss", loss, step=epoch)
                    tf.summary.scalar("val/acc", val_acc, step=epoch)
                print(f"epoch {epoch}: loss {loss:.4f} val_acc {val_acc:.4f}", flush=True)
