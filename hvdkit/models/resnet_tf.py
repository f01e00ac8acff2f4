"""ResNet34 for Keras 3 (He et al. 2016), layer for layer the same network as hvdkit.models.resnet_torch.

BasicBlocks [3, 4, 6, 3], a 7x7 stem, 1x1 projection shortcuts where the shape changes, channels-last
(NHWC) inputs of any size >= 32 pixels. With 1000 classes it has 21,797,672 trainable weights, the
standard count that torch calls parameters. Keras also counts batch norm's moving mean and variance
as (non-trainable) weights, 17,024 of them, which torch keeps as buffers outside its parameter count:
`model.count_params()` is therefore 21,814,696. Compare like with like (`count()` below).

Padding is torch's, symmetric: stride-1 convolutions use "same" (for an odd kernel that is the same
symmetric padding), strided ones an explicit ZeroPadding2D before a "valid" convolution, because Keras's
"same" pads strided convolutions on the bottom/right only, which would shift every feature map by a pixel.
Batch norm uses torch's defaults (momentum 0.1 there = 0.9 here, epsilon 1e-5) and torch's running
variance (the unbiased batch variance, where Keras's own layer averages the biased one).

Speed (docs/performance.md): on TensorFlow, batch norm is FusedBatchNormalization below, TF's fused
kernel, which oneDNN runs on a CPU; Keras 3's BatchNormalization computes it from separate moments and
arithmetic ops. Together with "same" padding (no Pad op and its gradient per convolution) that made a
training step on the 2-core machine of the record faster at both image sizes measured. Convolutions whose
output has at most 4 pixels per image (the last stage at 64 px and below) run as one matrix product, Conv2D below
(hvdkit/models/im2col.py).

    from hvdkit.models.resnet_tf import resnet34
    model = resnet34(num_classes=1000, input_shape=(224, 224, 3))
"""
import math

from hvdkit.common.frameworks import import_quietly
from hvdkit.models.im2col import out_size, use_im2col

# Importing this module imports TensorFlow without its C++ start-up notices (TF_CPP_MIN_LOG_LEVEL=0 shows
# them), so a script that imports the model first prints nothing but its own lines.
tf = import_quietly("tensorflow", "hvdkit.models.resnet_tf")
keras = import_quietly("keras", "hvdkit.models.resnet_tf")
layers = keras.layers

LAYERS = {"resnet18": (2, 2, 2, 2), "resnet34": (3, 4, 6, 3)}


@keras.saving.register_keras_serializable(package="hvdkit")
class FusedBatchNormalization(layers.BatchNormalization):
    """Keras's BatchNormalization (same weights, names and options) computed by TF's fused kernel.

    For float32 NHWC images with scale and center, the defaults used here; anything else is Keras's own
    code. The running variance is updated with the unbiased batch variance, as torch does.
    """

    def _fused(self, inputs):
        return (len(inputs.shape) == 4 and self.axis in (-1, 3) and inputs.dtype == tf.float32
                and self.scale and self.center and not self.renorm and not self.synchronized)

    def call(self, inputs, training=None, mask=None):
        if mask is not None or not self._fused(inputs):
            return super().call(inputs, training=training, mask=mask)
        training = bool(training) and self.trainable
        y, mean, variance = tf.compat.v1.nn.fused_batch_norm(
            inputs, self.gamma, self.beta, mean=self.moving_mean, variance=self.moving_variance,
            epsilon=self.epsilon, data_format="NHWC", is_training=training,
            exponential_avg_factor=1.0 - self.momentum if training else 1.0)
        if training:  # the kernel returns the updated running statistics
            self.moving_mean.assign(mean)
            self.moving_variance.assign(variance)
        return y


@keras.saving.register_keras_serializable(package="hvdkit")
class Conv2D(layers.Conv2D):
    """Keras's Conv2D (same kernel variable, names and options) that computes outputs of at most
    IM2COL_MAX_PIXELS pixels per image as one matrix product (hvdkit/models/im2col.py says why and what was
    measured). Other outputs, and dilated, grouped, channels-first or strided "same" convolutions, are Keras's
    own code."""

    def _padding(self):
        """Symmetric padding (rows, columns) this layer applies, or None where it is not symmetric."""
        if self.padding == "valid":
            return 0, 0
        if self.strides == (1, 1) and all(k % 2 for k in self.kernel_size):  # "same", stride 1, odd kernel
            return tuple((k - 1) // 2 for k in self.kernel_size)
        return None

    def convolution_op(self, inputs, kernel):
        pad = self._padding()
        h, w = inputs.shape[1], inputs.shape[2]
        if (pad is None or self.data_format != "channels_last" or self.dilation_rate != (1, 1) or self.groups != 1
                or h is None or w is None):
            return super().convolution_op(inputs, kernel)
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        oh, ow = out_size(h, kh, sh, pad[0]), out_size(w, kw, sw, pad[1])
        if not use_im2col(oh, ow):
            return super().convolution_op(inputs, kernel)
        x = tf.pad(inputs, [[0, 0], [pad[0]] * 2, [pad[1]] * 2, [0, 0]]) if any(pad) else inputs
        # One slice per kernel tap, concatenated on channels: columns in (row, column, channel) order, the
        # kernel's own (kh, kw, in, out) flattening order.
        taps = [x[:, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw, :] for i in range(kh) for j in range(kw)]
        cols = tf.concat(taps, axis=-1) if len(taps) > 1 else taps[0]
        depth = kh * kw * inputs.shape[-1]
        y = tf.matmul(tf.reshape(cols, [-1, depth]), tf.reshape(kernel, [depth, self.filters]))
        return tf.reshape(y, [-1, oh, ow, self.filters])


def _conv(x, filters, kernel, stride, pad, name):
    # torchvision's kaiming_normal_(mode="fan_out", nonlinearity="relu").
    init = keras.initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="untruncated_normal")
    padding = "same" if stride == 1 and 2 * pad == kernel - 1 else "valid"
    if pad and padding == "valid":
        x = layers.ZeroPadding2D(pad, name=name + "_pad")(x)
    return Conv2D(filters, kernel, strides=stride, padding=padding, use_bias=False, kernel_initializer=init,
                  name=name)(x)


BATCH_NORMS = {"fused": FusedBatchNormalization, "keras": layers.BatchNormalization}


def _basic_block(x, filters, stride, name, zero_init_residual, bn):
    shortcut = x
    if stride != 1 or x.shape[-1] != filters:
        shortcut = bn(_conv(x, filters, 1, stride, 0, name + "_downsample_conv"), name + "_downsample_bn")
    out = layers.ReLU(name=name + "_relu1")(bn(_conv(x, filters, 3, stride, 1, name + "_conv1"), name + "_bn1"))
    out = bn(_conv(out, filters, 3, 1, 1, name + "_conv2"), name + "_bn2", "zeros" if zero_init_residual else "ones")
    return layers.ReLU(name=name + "_relu2")(layers.Add(name=name + "_add")([out, shortcut]))


def resnet(blocks, num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False, name="resnet",
           batch_norm="fused"):
    """batch_norm: "fused" (FusedBatchNormalization) or "keras" (Keras's own layer: slower on TF, and its
    running variance is the biased one)."""
    if batch_norm not in BATCH_NORMS:
        raise ValueError(f"batch_norm={batch_norm!r}: use one of {', '.join(map(repr, BATCH_NORMS))}")

    def bn(x, name, gamma="ones"):
        return BATCH_NORMS[batch_norm](momentum=0.9, epsilon=1e-5, gamma_initializer=gamma, name=name)(x)

    inputs = keras.Input(shape=input_shape, name="images")
    x = layers.ReLU(name="stem_relu")(bn(_conv(inputs, 64, 7, 2, 3, "stem_conv"), "stem_bn"))
    # Zero padding equals torch's -inf padding here: the inputs are ReLU outputs, never negative.
    x = layers.MaxPooling2D(3, strides=2, name="stem_pool")(layers.ZeroPadding2D(1, name="stem_pool_pad")(x))
    for i, n in enumerate(blocks):
        for j in range(n):
            x = _basic_block(x, 64 * 2 ** i, 2 if (j == 0 and i > 0) else 1, f"layer{i + 1}_{j}", zero_init_residual,
                             bn)
    x = layers.GlobalAveragePooling2D(name="avgpool")(x)
    outputs = layers.Dense(num_classes, name="fc")(x)
    return keras.Model(inputs, outputs, name=name)


def resnet34(num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False, batch_norm="fused"):
    """Logits (no softmax): use a loss with from_logits=True."""
    return resnet(LAYERS["resnet34"], num_classes, input_shape, zero_init_residual, "resnet34", batch_norm)


def resnet18(num_classes=1000, input_shape=(224, 224, 3), zero_init_residual=False, batch_norm="fused"):
    return resnet(LAYERS["resnet18"], num_classes, input_shape, zero_init_residual, "resnet18", batch_norm)


def count(model):
    """(trainable weights, non-trainable weights): torch's (parameters, batch-norm running statistics)."""
    def size(variables):
        return sum(math.prod(v.shape) for v in variables)
    return size(model.trainable_weights), size(model.non_trainable_weights)
