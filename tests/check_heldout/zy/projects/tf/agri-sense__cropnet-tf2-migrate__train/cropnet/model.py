"""TempCNN written with raw variables (straight port of the tf.layers-free TF1 graph)."""
import tensorflow as tf


def _glorot(shape, name):
    return tf.Variable(tf.keras.initializers.GlorotUniform()(shape), name=name)


class TempCNN(tf.Module):
    def __init__(self, bands=10, timesteps=24, num_classes=17, filters=64, hidden=256, name="tempcnn"):
        super().__init__(name=name)
        self.k1 = _glorot([5, bands, filters], "k1")
        self.k2 = _glorot([5, filters, filters], "k2")
        self.k3 = _glorot([5, filters, filters], "k3")
        self.w_fc = _glorot([timesteps * filters, hidden], "w_fc")
        self.b_fc = tf.Variable(tf.zeros([hidden]), name="b_fc")
        self.w_out = _glorot([hidden, num_classes], "w_out")
        self.b_out = tf.Variable(tf.zeros([num_classes]), name="b_out")

    def __call__(self, x, training=False):
        for k in (self.k1, self.k2, self.k3):
            x = tf.nn.relu(tf.nn.conv1d(x, k, stride=1, padding="SAME"))
            if training:
                x = tf.nn.dropout(x, rate=0.2)
        x = tf.reshape(x, [tf.shape(x)[0], -1])
        x = tf.nn.relu(tf.matmul(x, self.w_fc) + self.b_fc)
        if training:
            x = tf.nn.dropout(x, rate=0.2)
        return tf.matmul(x, self.w_out) + self.b_out
