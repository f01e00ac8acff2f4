import horovod.tensorflow as hvd
import tensorflow as tf

mse = tf.keras.losses.MeanSquaredError()


@tf.function(reduce_retracing=True)
def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function(reduce_retracing=True)
def finetune_step(model, optimizer, x, y):
    # only the head is trained on the target plant, the LSTM layers stay frozen
    head = model.layers[-2].trainable_variables + model.layers[-1].trainable_variables
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=False))
    grads = tape.gradient(loss, head)
    optimizer.apply_gradients(zip(grads, head))
    return loss
