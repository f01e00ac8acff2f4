import keras


def build_classifier(cfg):
    backbone = keras.applications.EfficientNetB0(
        include_top=False, weights=None,
        input_shape=(cfg.image_size, cfg.image_size, 3), pooling="avg")
    x = keras.layers.Dropout(0.3)(backbone.output)
    out = keras.layers.Dense(len(cfg.class_names), name="logits")(x)
    return keras.Model(backbone.input, out, name="ct_effnet")
