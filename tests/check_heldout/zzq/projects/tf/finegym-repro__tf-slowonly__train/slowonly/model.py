import tensorflow as tf

L = tf.keras.layers


class SlowOnly(tf.keras.Model):
    """SlowOnly-style backbone with an element head and an auxiliary event head (FineGym)."""

    def __init__(self, num_elements, num_events, width=16):
        super().__init__()
        self.stem = L.Conv3D(width, (1, 5, 5), strides=(1, 2, 2), padding="same", activation="relu")
        self.res = L.Conv3D(width * 2, (3, 3, 3), strides=(1, 2, 2), padding="same")
        self.bn = L.BatchNormalization()
        self.pool = L.GlobalAveragePooling3D()
        self.element_head = L.Dense(num_elements)
        self.event_head = L.Dense(num_events)

    def call(self, x, training=False):
        h = self.pool(tf.nn.relu(self.bn(self.res(self.stem(x)), training=training)))
        return self.element_head(h), self.event_head(h)

    @property
    def main_variables(self):
        aux = {id(v) for v in self.event_head.trainable_variables}
        return [v for v in self.trainable_variables if id(v) not in aux]
