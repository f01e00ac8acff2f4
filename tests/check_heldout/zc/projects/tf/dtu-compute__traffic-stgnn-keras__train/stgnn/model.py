import keras
from keras import layers

from .layers import GraphConv


def build_stgnn(adj, history, n_sensors, hidden=32):
    inp = keras.Input((history, n_sensors, 1))
    h = GraphConv(adj, hidden)(inp)
    h = GraphConv(adj, hidden)(h)
    h = layers.Permute((2, 1, 3))(h)                      # (batch, sensors, time, hidden)
    h = layers.Reshape((n_sensors, history * hidden))(h)
    h = layers.Dense(hidden, activation="relu")(h)
    out = layers.Reshape((n_sensors,))(layers.Dense(1)(h))
    return keras.Model(inp, out, name="stgnn")
