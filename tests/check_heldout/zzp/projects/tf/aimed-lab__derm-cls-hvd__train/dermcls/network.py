import keras


def build_model(s):
    backbone = keras.applications.EfficientNetB0(include_top=False, weights=None,
                                                 input_shape=(s.image_size, s.image_size, 3), pooling="avg")
    x = keras.layers.Dropout(0.3)(backbone.output)
    out = keras.layers.Dense(s.num_classes, activation="softmax")(x)
    return keras.Model(backbone.input, out, name="derm_effb0")


def make_optimizer(s, lr):
    return keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-4,
                                  use_ema=True, ema_momentum=s.ema_momentum)


def compile_model(model, s, optimizer=None):
    model.compile(optimizer=make_optimizer(s, s.lr),
                  loss="sparse_categorical_crossentropy",
                  metrics=["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")])
    return model
