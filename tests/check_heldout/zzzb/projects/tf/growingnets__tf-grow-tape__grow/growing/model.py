import numpy as np
import keras
from keras import layers


def build_mlp(in_dim, widths, num_classes):
    inp = keras.Input((in_dim,))
    x = inp
    for i, w in enumerate(widths):
        x = layers.Dense(w, activation="relu", name=f"hidden_{i}")(x)
    out = layers.Dense(num_classes, name="logits")(x)
    return keras.Model(inp, out)


def widen(old, new_widths, num_classes, seed, noise=1e-3):
    """Net2WiderNet for a Dense stack: the new model computes (almost) the same function."""
    rng = np.random.RandomState(seed)
    in_dim = old.input_shape[-1]
    new = build_mlp(in_dim, new_widths, num_classes)
    prev_map = np.arange(in_dim)
    prev_scale = np.ones(in_dim)
    for i, w_new in enumerate(new_widths):
        k, b = old.get_layer(f"hidden_{i}").get_weights()
        w_old = k.shape[1]
        mapping = np.concatenate([np.arange(w_old), rng.randint(0, w_old, w_new - w_old)])
        k = k[prev_map] / prev_scale[:, None]
        k_new = k[:, mapping] + noise * rng.randn(k.shape[0], w_new) * (np.arange(w_new) >= w_old)
        new.get_layer(f"hidden_{i}").set_weights([k_new.astype("float32"), b[mapping]])
        counts = np.bincount(mapping, minlength=w_old)
        prev_map, prev_scale = mapping, counts[mapping].astype("float32")
    k, b = old.get_layer("logits").get_weights()
    new.get_layer("logits").set_weights([(k[prev_map] / prev_scale[:, None]).astype("float32"), b])
    return new
