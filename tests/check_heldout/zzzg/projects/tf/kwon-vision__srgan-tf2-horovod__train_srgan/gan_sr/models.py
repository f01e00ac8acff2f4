import keras
import tensorflow as tf
from keras import layers


def generator(nf=32, nb=4):
    inp = keras.Input((None, None, 3))
    x = skip = layers.PReLU(shared_axes=[1, 2])(layers.Conv2D(nf, 9, padding="same")(inp))
    for _ in range(nb):
        y = layers.PReLU(shared_axes=[1, 2])(layers.Conv2D(nf, 3, padding="same")(x))
        x = layers.Add()([x, layers.Conv2D(nf, 3, padding="same")(y)])
    x = layers.Add()([skip, x])
    for _ in range(2):
        x = layers.Conv2D(nf * 4, 3, padding="same")(x)
        x = layers.Lambda(lambda t: tf.nn.depth_to_space(t, 2))(x)
        x = layers.PReLU(shared_axes=[1, 2])(x)
    return keras.Model(inp, layers.Conv2D(3, 9, padding="same")(x), name="srresnet")


def discriminator(hr_size, nf=32):
    inp = keras.Input((hr_size, hr_size, 3))
    x = layers.LeakyReLU(0.2)(layers.Conv2D(nf, 3, padding="same")(inp))
    for mult, stride in [(1, 2), (2, 1), (2, 2), (4, 1), (4, 2)]:
        x = layers.LeakyReLU(0.2)(layers.BatchNormalization()(layers.Conv2D(nf * mult, 3, stride, "same")(x)))
    x = layers.Dense(256)(layers.GlobalAveragePooling2D()(x))
    return keras.Model(inp, layers.Dense(1)(layers.LeakyReLU(0.2)(x)), name="disc")


def vgg_features(weights_path, layer="block5_conv4"):
    vgg = keras.applications.VGG19(include_top=False, weights=None, input_shape=(None, None, 3))
    vgg.load_weights(weights_path)
    vgg.trainable = False
    return keras.Model(vgg.input, vgg.get_layer(layer).output)
