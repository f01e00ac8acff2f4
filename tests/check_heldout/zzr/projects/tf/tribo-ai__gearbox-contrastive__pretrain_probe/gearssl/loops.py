import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from .encoder import info_nce
from .hvd_ops import global_sum, sync_after_first_step


def pretrain(encoder, projector, optimizer, dataset, epochs, ckpt, log):
    params = encoder.trainable_variables + projector.trainable_variables

    @tf.function
    def step(v1, v2):
        with tf.GradientTape() as tape:
            loss = info_nce(projector(encoder(v1, training=True)), projector(encoder(v2, training=True)))
        tape = hvd.DistributedGradientTape(tape)
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    synced = False
    for epoch in range(epochs):
        total, n = 0.0, 0
        for v1, v2 in dataset:
            loss = step(v1, v2)
            if not synced:
                sync_after_first_step(encoder, projector, optimizer=optimizer)
                synced = True
            total, n = total + float(loss), n + 1
        s, c = global_sum([total, n], "pretrain_loss")
        log(f"pretrain epoch {epoch} loss {s / c:.4f}")
        ckpt.save(epoch)


def linear_probe(encoder, x_tr, y_tr, x_te, y_te, epochs=30, lr=1e-2):
    """Frozen encoder; each worker fits on its slice, gradients averaged; test counts summed."""
    f_tr = encoder.predict(x_tr, verbose=0)
    head = keras.layers.Dense(2)
    head.build((None, f_tr.shape[1]))
    hvd.broadcast_variables(head.variables, root_rank=0)
    opt = keras.optimizers.SGD(lr * hvd.size(), momentum=0.9)
    for _ in range(epochs):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
                y_tr, head(f_tr), from_logits=True))
        tape = hvd.DistributedGradientTape(tape)
        opt.apply_gradients(zip(tape.gradient(loss, head.trainable_variables), head.trainable_variables))
    pred = tf.argmax(head(encoder.predict(x_te, verbose=0)), 1).numpy()
    tp = int(((pred == 1) & (y_te == 1)).sum())
    fp = int(((pred == 1) & (y_te == 0)).sum())
    fn = int(((pred == 0) & (y_te == 1)).sum())
    tp, fp, fn = global_sum([tp, fp, fn], "probe_counts")
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return p, r, 2 * p * r / max(p + r, 1e-12)
