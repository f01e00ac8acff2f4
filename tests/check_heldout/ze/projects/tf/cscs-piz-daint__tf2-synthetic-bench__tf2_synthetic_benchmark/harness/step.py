import tensorflow as tf

import horovod.tensorflow as hvd

_loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_train_step(model, opt, compression=False):
    comp = hvd.Compression.fp16 if compression else hvd.Compression.none

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            probs = model(x, training=True)
            loss = _loss(y, probs)
        tape = hvd.DistributedGradientTape(tape, compression=comp)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        # broadcast after the first update so the optimizer slots exist as well
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    return train_step
