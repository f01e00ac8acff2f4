import horovod.tensorflow as hvd
import keras
import tensorflow as tf
from keras import layers


class MorphologyNet(keras.Model):
    """Small residual CNN; its train_step averages gradients over Horovod workers itself."""

    def __init__(self, n_outputs=37, width=32, **kwargs):
        super().__init__(**kwargs)
        self.stem = layers.Conv2D(width, 5, strides=2, padding="same", activation="relu")
        self.blocks = []
        for mult in (1, 2, 4, 8):
            self.blocks.append([layers.Conv2D(width * mult, 3, padding="same", activation="relu"),
                                layers.Conv2D(width * mult, 3, padding="same"),
                                layers.Conv2D(width * mult, 1, padding="same"),
                                layers.MaxPooling2D()])
        self.pool = layers.GlobalAveragePooling2D()
        self.dropout = layers.Dropout(0.3)
        self.head = layers.Dense(n_outputs, activation="sigmoid", dtype="float32")

    def call(self, x, training=False):
        x = self.stem(x)
        for conv_a, conv_b, proj, pool in self.blocks:
            x = pool(tf.nn.relu(conv_b(conv_a(x)) + proj(x)))
        return self.head(self.dropout(self.pool(x), training=training))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return self.compute_metrics(x, y, y_pred, sample_weight=None)
