import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd_tf


class MorphNet(keras.Model):
    """Small residual CNN; ``train_step`` averages gradients over Horovod workers itself."""

    def __init__(self, num_classes=10, width=32, **kwargs):
        super().__init__(**kwargs)
        self.stem = keras.layers.Conv2D(width, 3, padding="same", activation="relu")
        self.stages = []
        for mult in (1, 2, 4, 8):
            self.stages.append([
                keras.layers.Conv2D(width * mult, 3, padding="same", use_bias=False),
                keras.layers.BatchNormalization(),
                keras.layers.Conv2D(width * mult, 3, padding="same", use_bias=False),
                keras.layers.BatchNormalization(),
                keras.layers.Conv2D(width * mult, 1, padding="same"),
                keras.layers.MaxPooling2D(),
            ])
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.dropout = keras.layers.Dropout(0.3)
        self.classifier = keras.layers.Dense(num_classes)

    def call(self, x, training=False):
        x = self.stem(x)
        for conv1, bn1, conv2, bn2, proj, pool in self.stages:
            h = tf.nn.relu(bn1(conv1(x), training=training))
            h = bn2(conv2(h), training=training)
            x = pool(tf.nn.relu(h + proj(x)))
        return self.classifier(self.dropout(self.pool(x), training=training))

    def train_step(self, data):
        images, labels = data
        with tf.GradientTape() as tape:
            logits = self(images, training=True)
            loss = self.compute_loss(x=images, y=labels, y_pred=logits)
        tape = hvd_tf.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(labels, logits)
        return {m.name: m.result() for m in self.metrics}
