import tensorflow as tf
import horovod.tensorflow.keras as hvd

MODELS = {}


def register_model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def _block(x, filters, stride):
    shortcut = x
    y = tf.keras.layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)(x)
    y = tf.keras.layers.ReLU()(tf.keras.layers.BatchNormalization()(y))
    y = tf.keras.layers.Conv2D(filters, 3, 1, padding="same", use_bias=False)(y)
    y = tf.keras.layers.BatchNormalization()(y)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = tf.keras.layers.Conv2D(filters, 1, stride, use_bias=False)(shortcut)
    return tf.keras.layers.ReLU()(y + shortcut)


@register_model("ResNetV1")
def resnet_v1(input_shape, num_classes, depth=20, width=16):
    n = (depth - 2) // 6
    inputs = tf.keras.Input(shape=input_shape)
    x = tf.keras.layers.Conv2D(width, 3, padding="same", use_bias=False)(inputs)
    x = tf.keras.layers.ReLU()(tf.keras.layers.BatchNormalization()(x))
    for stage, filters in enumerate([width, width * 2, width * 4]):
        for i in range(n):
            x = _block(x, filters, 2 if (stage > 0 and i == 0) else 1)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(num_classes)(x))


def build_model(cfg, input_shape, num_classes):
    cfg = dict(cfg)
    return MODELS[cfg.pop("type")](input_shape, num_classes, **cfg)


def build_optimizer(cfg, world_size=1):
    """Optimizer from config, lr scaled linearly with the number of workers, wrapped for Horovod."""
    cfg = dict(cfg)
    opt_cls = getattr(tf.keras.optimizers, cfg.pop("type"))
    cfg["learning_rate"] = cfg["learning_rate"] * world_size
    return hvd.DistributedOptimizer(opt_cls(**cfg))
