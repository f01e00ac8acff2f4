import tensorflow as tf
from tensorflow import keras


class TNet(keras.layers.Layer):
    """Predicts a k x k alignment matrix (initialised to identity)."""

    def __init__(self, k, **kwargs):
        super().__init__(**kwargs)
        self.k = k
        self.convs = [keras.layers.Conv1D(c, 1, activation="relu") for c in (64, 128, 1024)]
        self.bns = [keras.layers.BatchNormalization() for _ in range(3)]
        self.fcs = [keras.layers.Dense(c, activation="relu") for c in (512, 256)]
        self.out = keras.layers.Dense(k * k, kernel_initializer="zeros",
                                      bias_initializer=keras.initializers.Constant(tf.reshape(tf.eye(k), [-1]).numpy()))

    def call(self, x, training=False):
        h = x
        for conv, bn in zip(self.convs, self.bns):
            h = bn(conv(h), training=training)
        h = tf.reduce_max(h, axis=1)
        for fc in self.fcs:
            h = fc(h)
        m = tf.reshape(self.out(h), (-1, self.k, self.k))
        return tf.matmul(x, m), m


class PointNet(keras.Model):
    def __init__(self, num_classes=40, dropout=0.3, **kwargs):
        super().__init__(**kwargs)
        self.input_tnet = TNet(3)
        self.conv1 = keras.layers.Conv1D(64, 1, activation="relu")
        self.feat_tnet = TNet(64)
        self.convs = [keras.layers.Conv1D(c, 1, activation="relu") for c in (128, 1024)]
        self.bns = [keras.layers.BatchNormalization() for _ in range(3)]
        self.head = keras.Sequential([
            keras.layers.Dense(512, activation="relu"), keras.layers.Dropout(dropout),
            keras.layers.Dense(256, activation="relu"), keras.layers.Dropout(dropout),
            keras.layers.Dense(num_classes),
        ])

    def call(self, points, training=False):
        x, _ = self.input_tnet(points, training=training)
        x = self.bns[0](self.conv1(x), training=training)
        x, feat_m = self.feat_tnet(x, training=training)
        for conv, bn in zip(self.convs, self.bns[1:]):
            x = bn(conv(x), training=training)
        x = tf.reduce_max(x, axis=1)
        # orthogonality regulariser on the 64x64 feature transform
        eye = tf.eye(64, batch_shape=[tf.shape(feat_m)[0]])
        self.add_loss(1e-3 * tf.reduce_mean(tf.norm(eye - tf.matmul(feat_m, feat_m, transpose_b=True), axis=(1, 2))))
        return self.head(x, training=training)
