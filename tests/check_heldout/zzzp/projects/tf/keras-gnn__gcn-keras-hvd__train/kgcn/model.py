import keras

from .layers import GraphConv


def build_gcn(n_feat, n_cls, a_hat, channels=16, dropout=0.5, l2=5e-4):
    x_in = keras.Input(shape=(n_feat,), name="x")
    h = keras.layers.Dropout(dropout)(x_in)
    h = GraphConv(channels, a_hat, activation="relu", l2=l2)(h)
    h = keras.layers.Dropout(dropout)(h)
    out = GraphConv(n_cls, a_hat, activation="softmax")(h)
    return keras.Model(x_in, out)
