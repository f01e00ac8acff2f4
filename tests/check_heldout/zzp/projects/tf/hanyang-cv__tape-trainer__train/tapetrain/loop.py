import tensorflow as tf
import horovod.tensorflow as hvd

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_train_step(model, optimizer, ema):
    @tf.function
    def train_step(images, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_fn(labels, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
            for e, v in zip(ema, model.variables):
                e.assign(v)
        return loss
    return train_step


def update_ema(ema, model, decay):
    for e, v in zip(ema, model.variables):
        e.assign(decay * e + (1.0 - decay) * v)


def evaluate(model, dataset):
    correct, count = tf.constant(0.0), tf.constant(0.0)
    for images, labels in dataset:
        pred = tf.argmax(model(images, training=False), axis=1, output_type=tf.int32)
        correct += tf.reduce_sum(tf.cast(pred == labels, tf.float32))
        count += tf.cast(tf.shape(labels)[0], tf.float32)
    correct = hvd.allreduce(correct, op=hvd.Sum, name="eval_correct")
    count = hvd.allreduce(count, op=hvd.Sum, name="eval_count")
    return float(correct / count)
