import keras
import tensorflow as tf
from keras import layers


def conv_bn(x, f, s=1, name=None):
    x = layers.Conv2D(f, 3, strides=s, padding="same", use_bias=False, name=None if name is None else name + "_conv")(x)
    x = layers.BatchNormalization(name=None if name is None else name + "_bn")(x)
    return layers.ReLU()(x)


def hrnet_w18_small(num_classes, input_shape=(None, None, 3)):
    """two-branch high-resolution net, enough of HRNet for the training code"""
    inp = keras.Input(input_shape)
    x = conv_bn(inp, 32, 2, "stem1")
    x = conv_bn(x, 32, 2, "stem2")                           # 1/4
    hi = conv_bn(conv_bn(x, 18, name="hi1"), 18, name="hi2")
    lo = conv_bn(conv_bn(x, 36, 2, "lo1"), 36, name="lo2")   # 1/8
    lo_up = layers.UpSampling2D(2, interpolation="bilinear")(layers.Conv2D(18, 1)(lo))
    hi_dn = layers.Conv2D(36, 3, strides=2, padding="same")(hi)
    hi, lo = layers.Add()([hi, lo_up]), layers.Add()([lo, hi_dn])
    feat = layers.Concatenate()([hi, layers.UpSampling2D(2, interpolation="bilinear")(lo)])
    feat = conv_bn(feat, 54, name="last")
    logits = layers.Conv2D(num_classes, 1, name="cls")(feat)
    out = layers.UpSampling2D(4, interpolation="bilinear")(logits)
    return keras.Model(inp, out, name="hrnet_w18_small")
