import keras
from keras import layers

from .physics import cl_from_cp, smoothness_penalty


class CpSurrogate(keras.Model):
    """MLP for the Cp distribution; Cl is computed from Cp (physics-consistent head)."""

    def __init__(self, n_stations, x_station, width=256, depth=5, w_smooth=1e-2, **kw):
        super().__init__(**kw)
        self.body = [layers.Dense(width, activation="gelu") for _ in range(depth)]
        self.cp_head = layers.Dense(n_stations)
        self.integrate = cl_from_cp(x_station)
        self.w_smooth = w_smooth

    def call(self, x, training=False):
        h = x
        for lyr in self.body:
            h = lyr(h)
        cp = self.cp_head(h)
        if training:
            self.add_loss(self.w_smooth * smoothness_penalty(cp))
        return {"cp": cp, "cl": self.integrate(cp)}
