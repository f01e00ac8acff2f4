import keras
from keras import layers


def resnet_like(input_shape=(64, 64, 3), width=32, name="encoder"):
    inp = keras.Input(input_shape)
    x = layers.Conv2D(width, 3, padding="same", use_bias=False)(inp)
    for i, w in enumerate((width, 2 * width, 4 * width, 8 * width)):
        shortcut = layers.Conv2D(w, 1, strides=2 if i else 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(w, 3, strides=2 if i else 1, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(w, 3, padding="same", use_bias=False)(x)
        x = layers.Add()([x, shortcut])
    x = layers.GlobalAveragePooling2D()(layers.ReLU()(x))
    return keras.Model(inp, x, name=name)


def mlp_head(in_dim, hidden=1024, out=128, name="head"):
    inp = keras.Input((in_dim,))
    x = layers.Dense(hidden)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    return keras.Model(inp, layers.Dense(out)(x), name=name)


def build_byol(input_shape, width=32, proj_dim=128):
    """Returns (online encoder, online projector, predictor, target encoder, target projector)."""
    enc = resnet_like(input_shape, width, "online_encoder")
    proj = mlp_head(enc.output_shape[-1], out=proj_dim, name="online_projector")
    pred = mlp_head(proj_dim, out=proj_dim, name="predictor")
    t_enc = resnet_like(input_shape, width, "target_encoder")
    t_proj = mlp_head(t_enc.output_shape[-1], out=proj_dim, name="target_projector")
    t_enc.set_weights(enc.get_weights())
    t_proj.set_weights(proj.get_weights())
    return enc, proj, pred, t_enc, t_proj
