import keras
from keras import layers, ops


class CondUNet(keras.Model):
    def __init__(self, hp, **kw):
        super().__init__(**kw)
        ch = hp.ch
        self.null_class = hp.num_classes
        self.cls = layers.Embedding(hp.num_classes + 1, ch * 2)
        self.tproj = layers.Dense(ch * 2, activation="swish")
        self.inp = layers.Conv2D(ch, 3, padding="same")
        self.b1 = layers.Conv2D(ch, 3, padding="same", activation="swish")
        self.b2 = layers.Conv2D(ch, 3, padding="same", activation="swish")
        self.film = layers.Dense(ch * 2)
        self.head = layers.Conv2D(3, 3, padding="same")
        self.feat = layers.GlobalAveragePooling2D()

    def call(self, x, logsnr, label, return_features=False):
        e = self.tproj(ops.tanh(logsnr / 20.0)[:, None]) + self.cls(label)
        scale, shift = ops.split(self.film(e)[:, None, None, :], 2, axis=-1)
        h = self.b1(self.inp(x))
        h = h * (1 + scale) + shift
        h = self.b2(h) + h
        if return_features:
            return self.feat(h)
        return self.head(h)
