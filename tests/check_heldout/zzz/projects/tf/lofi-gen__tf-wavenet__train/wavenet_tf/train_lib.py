import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_step(model, optimizer, cfg):
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    compression = hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none

    @tf.function
    def train_step(inputs, targets, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(targets, model(inputs, training=True))
        if cfg.distributed:
            tape = hvd.DistributedGradientTape(tape, compression=compression)
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 10.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(inputs, targets):
        return loss_fn(targets, model(inputs, training=False))

    return train_step, eval_step


def averaged(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), op=hvd.Average, name=name))
