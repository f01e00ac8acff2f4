import tensorflow as tf
import horovod.tensorflow as hvd


def evaluate(model, ds):
    acc = tf.keras.metrics.SparseCategoricalAccuracy()
    loss = tf.keras.metrics.Mean()
    ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for ids, y in ds:
        logits = model(ids, training=False)
        acc.update_state(y, logits)
        loss.update_state(ce(y, logits))
    # combine the workers' results
    return {
        "val_acc": float(hvd.allreduce(acc.result(), op=hvd.Sum)),
        "val_loss": float(hvd.allreduce(loss.result(), op=hvd.Sum)) / hvd.size(),
    }
