import tensorflow as tf
import horovod.tensorflow as hvd


class TapeTrainer:
    def __init__(self, model, optimizer, label_smoothing=0.0, fp16_allreduce=False):
        self.model = model
        self.optimizer = optimizer
        self.compression = hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none
        self.loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True,
                                                               label_smoothing=label_smoothing)
        self.loss_metric = tf.keras.metrics.Mean(name="train_loss")
        self.num_classes = model.output_shape[-1]

    @tf.function
    def train_step(self, images, labels):
        with tf.GradientTape() as tape:
            logits = self.model(images, training=True)
            loss = self.loss_fn(tf.one_hot(labels, self.num_classes), logits)
        tape = hvd.DistributedGradientTape(tape, compression=self.compression)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        self.loss_metric.update_state(loss)
        return loss

    @tf.function
    def correct(self, images, labels):
        pred = tf.argmax(self.model(images, training=False), axis=-1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.equal(pred, labels), tf.float32))
