import tensorflow as tf
import horovod.tensorflow as hvd


def smoothed_xent(labels, logits, eps):
    v = tf.shape(logits)[-1]
    onehot = tf.one_hot(labels, v) * (1 - eps) + eps / tf.cast(v, tf.float32)
    per_tok = tf.nn.softmax_cross_entropy_with_logits(onehot, logits)
    mask = tf.cast(labels != 0, tf.float32)
    return tf.reduce_sum(per_tok * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)


def make_train_step(model, optimizer, eps):
    @tf.function(reduce_retracing=True)
    def train_step(src, tgt, first_batch):
        with tf.GradientTape() as tape:
            logits = model((src, tgt[:, :-1]), training=True)
            loss = smoothed_xent(tgt[:, 1:], logits, eps)
        grads = tape.gradient(loss, model.trainable_variables)
        # explicit allreduce keeps the grads dense and lets us clip on the averaged values
        grads = [hvd.allreduce(g, op=hvd.Average) for g in grads]
        grads, _ = tf.clip_by_global_norm(grads, 1.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


@tf.function
def greedy_decode(model, src, max_len):
    ys = tf.ones([tf.shape(src)[0], 1], tf.int32)
    for _ in tf.range(max_len):
        tf.autograph.experimental.set_loop_options(shape_invariants=[(ys, tf.TensorShape([None, None]))])
        nxt = tf.argmax(model((src, ys))[:, -1], -1, output_type=tf.int32)
        ys = tf.concat([ys, nxt[:, None]], 1)
    return ys[:, 1:]
