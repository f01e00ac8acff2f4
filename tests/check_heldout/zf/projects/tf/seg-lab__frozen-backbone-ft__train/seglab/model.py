import keras
from keras import layers

from .metrics import stage_metrics


def build(hp):
    """MobileNetV2 encoder + light decoder; returns (model, backbone)."""
    backbone = keras.applications.MobileNetV2(input_shape=(hp.image_size, hp.image_size, 3),
                                              include_top=False, weights=hp.backbone_weights)
    x = backbone.output
    for filters in (256, 128, 64, 32, 16):
        x = layers.Conv2DTranspose(filters, 3, strides=2, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    out = layers.Conv2D(hp.num_classes, 1, name="logits")(x)
    return keras.Model(backbone.input, out, name="mnv2_seg"), backbone


def compile_stage(model, optimizer, num_classes=21):
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=stage_metrics(num_classes))
