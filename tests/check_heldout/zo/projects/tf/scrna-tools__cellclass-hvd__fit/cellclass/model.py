import keras
from keras import layers, regularizers


def build_mlp(n_genes, n_classes, hidden=(512, 256, 128), dropout=0.2, l2=1e-5):
    inp = keras.Input((n_genes,), name="expression")
    x = layers.GaussianNoise(0.1)(inp)
    for h in hidden:
        x = layers.Dense(h, kernel_regularizer=regularizers.l2(l2))(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("gelu")(x)
        x = layers.Dropout(dropout)(x)
    out = layers.Dense(n_classes, activation="softmax", name="cell_type")(x)
    return keras.Model(inp, out)
