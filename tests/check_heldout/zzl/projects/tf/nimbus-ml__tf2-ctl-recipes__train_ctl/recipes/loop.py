import tensorflow as tf
import horovod.tensorflow as hvd


def make_steps(model, optimizer, global_batch_size):
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction="none")
    train_loss = tf.keras.metrics.Mean(name="train_loss")
    train_acc = tf.keras.metrics.SparseCategoricalAccuracy(name="train_acc")

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            per_example = loss_obj(y, logits)
            # same scaling as under MirroredStrategy: divide by the GLOBAL batch ...
            loss = tf.nn.compute_average_loss(
                per_example, global_batch_size=global_batch_size)
        # ... so the replicas' gradients must be summed, not averaged
        tape = hvd.DistributedGradientTape(tape, op=hvd.Sum)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        train_loss.update_state(tf.reduce_mean(per_example))
        train_acc.update_state(y, logits)
        return loss

    @tf.function
    def eval_step(x, y):
        logits = model(x, training=False)
        correct = tf.reduce_sum(tf.cast(
            tf.equal(tf.argmax(logits, -1), y), tf.float32))
        return correct, tf.cast(tf.shape(y)[0], tf.float32)

    return train_step, eval_step, [train_loss, train_acc]
