import os

import tensorflow as tf


class ReIDNet(tf.keras.Model):
    def __init__(self, num_ids, weights, size):
        super().__init__()
        self.backbone = tf.keras.applications.EfficientNetB0(include_top=False, weights=None,
                                                             input_shape=size + (3,), pooling='avg')
        if os.path.exists(weights):
            self.backbone.load_weights(weights)
        self.neck = tf.keras.layers.Dense(512, use_bias=False)
        self.bn = tf.keras.layers.BatchNormalization()
        self.cls = tf.keras.layers.Dense(num_ids, use_bias=False)

    def call(self, x, training=False):
        f = self.bn(self.neck(self.backbone(x, training=training)), training=training)
        return f, self.cls(f)
