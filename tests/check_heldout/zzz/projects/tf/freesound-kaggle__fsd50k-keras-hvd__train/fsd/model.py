import keras
import tensorflow as tf
from keras import layers


class MelFrontEnd(layers.Layer):
    def __init__(self, sample_rate, n_mels, n_fft=1024, hop=320, **kw):
        super().__init__(**kw)
        self.n_fft, self.hop = n_fft, hop
        self.fb = tf.signal.linear_to_mel_weight_matrix(n_mels, n_fft // 2 + 1, sample_rate, 20.0, 11025.0)

    def call(self, x):
        mag = tf.abs(tf.signal.stft(x, self.n_fft, self.hop, pad_end=True))
        return tf.math.log1p(tf.matmul(mag ** 2, self.fb))[..., None]


def vgg_like(cfg):
    inp = keras.Input((int(cfg.sample_rate * cfg.segment_seconds),))
    x = MelFrontEnd(cfg.sample_rate, cfg.n_mels)(inp)
    for width in (64, 128, 256, 256):
        x = layers.Conv2D(width, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D(2)(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(cfg.num_classes, activation="sigmoid")(x), name="fsd_vgg")
