import keras
import tensorflow as tf
import horovod.tensorflow as hvd


def build_backbone(width=32):
    return keras.Sequential([
        keras.layers.Conv2D(width, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(width * 2, 3, padding="same", activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
    ], name="backbone")


class HorovodClassifier(keras.Model):
    """keras.Model with its own train_step: gradients go through hvd.DistributedGradientTape
    so model.fit works with a plain keras optimizer"""

    def __init__(self, backbone, num_classes, **kw):
        super().__init__(**kw)
        self.backbone = backbone
        self.dropout = keras.layers.Dropout(0.1)
        self.head = keras.layers.Dense(num_classes)

    @staticmethod
    def input_spec_shape():
        return (32, 32, 3)

    def call(self, x, training=False):
        return self.head(self.dropout(self.backbone(x, training=training), training=training))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for m in self.metrics:
            if m.name == "loss":
                m.update_state(loss)
            else:
                m.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        for m in self.metrics:
            if m.name == "loss":
                m.update_state(loss)
            else:
                m.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}
