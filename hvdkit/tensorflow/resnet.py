"""ResNet34 for Keras 3 (He et al. 2016), layer for layer the same network as hvdkit.torch.resnet.

BasicBlocks [3, 4, 6, 3], a 7x7 stem, 1x1 projection shortcuts where the shape changes, channels-last
(NHWC) inputs of any size >= 32 pixels. With 1000 classes it has 21,797,672 trainable weights, the
standard count that torch calls parameters. Keras also counts batch norm's moving mean and variance
as (non-trainable) weights, 17,024 of them, which torch keeps as buffers outside its parameter count:
`model.count_params()` is therefore 21,814,696. Compare like with like (`count()` below).

Padding is explicit (ZeroPadding2D, then a "valid" convolution), as in torch: Keras's "same" padding
pads strided convolutions on the bottom/right only, which shifts every feature map by a pixel.
Batch norm uses torch's defaults (momentum 0.1 there = 0.9 here, epsilon 1e-5).

    from hvdkit.tensorflow.resnet import resnet34
    model = resnet34(num_classes=1000, input_shape=(224, 224, 3))
"""
import math

import keras
from keras import layers

LAYERS = {"resnet18": (2, 2, 2, 2), "resnet34": (3, 4, 6, 3)}


def _conv(x, filters, kernel, stride, pad, name):
    if pad:
        x = layers.ZeroPadding2D(pad, name=name + "_pad")(x)
    # torchvision's kaiming_normal_(mode="fan_out", nonlinearity="relu").
    init = keras.initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="untruncated_normal")
    return layers.Conv2D(filters, kernel, strides=stride, use_bias=False, kernel_initializer=init, name=name)(x)


def _bn(x, name, gamma="ones"):
    return layers.BatchNormalization(momentum=0.9, epsilon=1e-5, gamma_initializer=gamma, name=name)(x)


def _basic_block(x, filters, stride, name, zero_init_residual):
    shortcut = x
    if stride != 1 or x.shape[-1] != filters:
        shortcut = _bn(_conv(x, filters, 1, stride, 0, name + "_downsample_conv"), name + "_downsample_bn")
    out = layers.ReLU(name=name + "_relu1")(_bn(_conv(x, filters, 3, stride, 1, name + "_conv1"), name + "_bn1"))
    out = _bn(_conv(out, filters, 3, 1, 1, name + "_conv2"), name + "_bn2", "zeros" if zero_init_residual else "ones")
    return layers.ReLU(name=name + "_relu2")(layers.Add(name=name + "_add")([out, shortcut]))


def resnet(blocks, num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False, name="resnet"):
    inputs = keras.Input(shape=input_shape, name="images")
    x = layers.ReLU(name="stem_relu")(_bn(_conv(inputs, 64, 7, 2, 3, "stem_conv"), "stem_bn"))
    # Zero padding equals torch's -inf padding here: the inputs are ReLU outputs, never negative.
    x = layers.MaxPooling2D(3, strides=2, name="stem_pool")(layers.ZeroPadding2D(1, name="stem_pool_pad")(x))
    for i, n in enumerate(blocks):
        for j in range(n):
            x = _basic_block(x, 64 * 2 ** i, 2 if (j == 0 and i > 0) else 1, f"layer{i + 1}_{j}", zero_init_residual)
    x = layers.GlobalAveragePooling2D(name="avgpool")(x)
    outputs = layers.Dense(num_classes, name="fc")(x)
    return keras.Model(inputs, outputs, name=name)


def resnet34(num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False):
    """Logits (no softmax): use a loss with from_logits=True."""
    return resnet(LAYERS["resnet34"], num_classes, input_shape, zero_init_residual, "resnet34")


def resnet18(num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False):
    return resnet(LAYERS["resnet18"], num_classes, input_shape, zero_init_residual, "resnet18")


def count(model):
    """(trainable weights, non-trainable weights): torch's (parameters, batch-norm running statistics)."""
    def size(variables):
        return sum(math.prod(v.shape) for v in variables)
    return size(model.trainable_weights), size(model.non_trainable_weights)
