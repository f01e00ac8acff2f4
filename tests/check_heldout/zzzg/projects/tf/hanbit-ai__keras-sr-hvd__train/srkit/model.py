import keras
import tensorflow as tf
from keras import layers


def build_rcan_lite(scale=4, nf=32, n_blocks=4):
    inp = keras.Input((None, None, 3))
    x = head = layers.Conv2D(nf, 3, padding="same")(inp)
    for _ in range(n_blocks):
        r = layers.Conv2D(nf, 3, padding="same", activation="relu")(x)
        r = layers.Conv2D(nf, 3, padding="same")(r)
        a = layers.GlobalAveragePooling2D(keepdims=True)(r)
        a = layers.Conv2D(nf // 4, 1, activation="relu")(a)
        a = layers.Conv2D(nf, 1, activation="sigmoid")(a)
        x = layers.Add()([x, layers.Multiply()([r, a])])
    x = layers.Add()([head, layers.Conv2D(nf, 3, padding="same")(x)])
    x = layers.Conv2D(3 * scale * scale, 3, padding="same")(x)
    out = layers.Lambda(lambda t: tf.nn.depth_to_space(t, scale))(x)
    return keras.Model(inp, out, name="rcan_lite")


def psnr(y_true, y_pred):
    return tf.image.psnr(y_true, tf.clip_by_value(y_pred, 0.0, 1.0), max_val=1.0)


def ssim(y_true, y_pred):
    return tf.image.ssim(y_true, tf.clip_by_value(y_pred, 0.0, 1.0), max_val=1.0)
