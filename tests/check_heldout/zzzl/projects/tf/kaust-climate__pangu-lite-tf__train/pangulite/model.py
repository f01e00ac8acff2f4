import keras
from keras import layers, ops


def build_model(sfc_shape, upr_shape, embed=96):
    lat, lon, cs = sfc_shape
    lev, _, _, cu = upr_shape
    s_in = keras.Input(sfc_shape, name="surface")
    u_in = keras.Input(upr_shape, name="upper")
    s = layers.Conv2D(embed, 4, strides=4, padding="same")(s_in)                       # lat/4, lon/4
    u = layers.Conv3D(embed, (2, 4, 4), strides=(2, 4, 4), padding="same")(u_in)        # lev/2, lat/4, lon/4
    h = layers.Concatenate(axis=1)([layers.Reshape((1,) + tuple(s.shape[1:]))(s), u])
    for _ in range(4):
        r = layers.Conv3D(embed, 3, padding="same", activation="gelu")(h)
        h = layers.LayerNormalization()(layers.Add()([h, r]))
    s_out = layers.Conv2DTranspose(cs, 4, strides=4, padding="same")(h[:, 0])
    s_out = layers.Cropping2D(((0, s_out.shape[1] - lat), (0, s_out.shape[2] - lon)))(s_out)
    u_out = layers.Conv3DTranspose(cu, (2, 4, 4), strides=(2, 4, 4), padding="same")(h[:, 1:])
    u_out = layers.Cropping3D(((0, u_out.shape[1] - lev), (0, u_out.shape[2] - lat), (0, u_out.shape[3] - lon)))(u_out)
    return keras.Model([s_in, u_in], [layers.Add()([s_in, s_out]), layers.Add()([u_in, u_out])])
