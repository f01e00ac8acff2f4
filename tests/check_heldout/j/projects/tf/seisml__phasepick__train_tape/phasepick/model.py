import tensorflow as tf


class ConvBlock(tf.keras.layers.Layer):
    def __init__(self, filters, kernel=7, **kw):
        super().__init__(**kw)
        self.conv = tf.keras.layers.Conv1D(filters, kernel, padding="same", use_bias=False)
        self.bn = tf.keras.layers.BatchNormalization()

    def call(self, x, training=False):
        return tf.nn.relu(self.bn(self.conv(x), training=training))


class PhaseNet(tf.keras.Model):
    """1-D U-Net over 3-component waveforms; outputs P / S / noise probabilities per sample."""

    def __init__(self, filters=(8, 16, 32, 64), **kw):
        super().__init__(**kw)
        self.down = [ConvBlock(f) for f in filters]
        self.pools = [tf.keras.layers.MaxPool1D(4, padding="same") for _ in filters[:-1]]
        self.ups = [tf.keras.layers.UpSampling1D(4) for _ in filters[:-1]]
        self.up_blocks = [ConvBlock(f) for f in reversed(filters[:-1])]
        self.out = tf.keras.layers.Conv1D(3, 1)

    def call(self, x, training=False):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x, training=training)
            if i < len(self.pools):
                skips.append(x)
                x = self.pools[i](x)
        for up, block in zip(self.ups, self.up_blocks):
            skip = skips.pop()
            x = up(x)[:, :tf.shape(skip)[1]]
            x = block(tf.concat([x, skip], axis=-1), training=training)
        return self.out(x)
