import tensorflow as tf
import horovod.tensorflow as hvd

_mse = tf.keras.losses.MeanSquaredError()


def _step_fn(model, opt):
    @tf.function(reduce_retracing=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = _mse(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def train_epoch(model, opt, ds, first_epoch=False):
    if not hasattr(model, "_hvd_step"):
        model._hvd_step = _step_fn(model, opt)
    total, n = 0.0, 0
    for i, (x, y) in enumerate(ds):
        loss = model._hvd_step(x, y)
        if first_epoch and i == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        total += float(loss)
        n += 1
    return total / max(n, 1)


def evaluate(model, ds):
    abs_err, count = 0.0, 0.0
    for x, y in ds:
        pred = model(x, training=False)
        abs_err += float(tf.reduce_sum(tf.abs(pred - y)))
        count += float(tf.size(y))
    sums = hvd.allreduce(tf.constant([abs_err, count], tf.float64), op=hvd.Sum, name="val_mae")
    return float(sums[0] / sums[1])
