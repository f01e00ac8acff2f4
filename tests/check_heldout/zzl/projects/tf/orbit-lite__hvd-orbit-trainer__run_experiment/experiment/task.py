import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

import orbit_lite


def cifar_input_fn(split, global_batch_size):
    def fn(ctx):
        (xt, yt), (xv, yv) = tf.keras.datasets.cifar10.load_data()
        x, y = (xt, yt) if split == "train" else (xv, yv)
        ds = tf.data.Dataset.from_tensor_slices(
            (x.astype(np.float32) / 255.0, y[:, 0].astype(np.int64)))
        ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
        if split == "train":
            ds = ds.shuffle(20000).repeat()
        return ds.batch(ctx.get_per_replica_batch_size(global_batch_size),
                        drop_remainder=True)
    return fn


class ClassificationTask(orbit_lite.StandardTrainer, orbit_lite.StandardEvaluator):
    def __init__(self, cfg, model, optimizer, train_ds, eval_ds):
        orbit_lite.StandardTrainer.__init__(self, train_ds)
        orbit_lite.StandardEvaluator.__init__(self, eval_ds)
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction="none")
        self.train_loss = tf.keras.metrics.Mean("train/loss")
        self.eval_acc = tf.keras.metrics.SparseCategoricalAccuracy("eval/acc")
        self._synced = False

    def train_loop_begin(self):
        self.train_loss.reset_state()

    @tf.function
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = tf.nn.compute_average_loss(
                self.loss_fn(y, logits),
                global_batch_size=self.cfg.global_batch_size)
            loss += tf.nn.scale_regularization_loss(self.model.losses)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_step(self, iterator):
        x, y = next(iterator)
        loss = self._step(x, y)
        if not self._synced:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
            self._synced = True
        self.train_loss.update_state(loss * hvd.size())

    def train_loop_end(self):
        return {"train/loss": hvd.allreduce(self.train_loss.result()).numpy()}

    def eval_begin(self):
        self.eval_acc.reset_state()
        return None

    def eval_step(self, batch, state):
        x, y = batch
        self.eval_acc.update_state(y, self.model(x, training=False))
        return state

    def eval_end(self, state):
        total = hvd.allreduce(self.eval_acc.total, op=hvd.Sum)
        count = hvd.allreduce(self.eval_acc.count, op=hvd.Sum)
        return {"eval/acc": float(total / count)}
