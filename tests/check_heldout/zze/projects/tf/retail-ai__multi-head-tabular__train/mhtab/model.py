import keras
from keras import layers
import horovod.tensorflow.keras as hvd

from . import config


def build(num_features=config.NUM_FEATURES, num_categories=config.NUM_CATEGORIES):
    inp = keras.Input((num_features,), name="features")
    h = layers.Dense(256, activation="gelu")(inp)
    h = layers.Dropout(0.2)(h)
    h = layers.Dense(128, activation="gelu")(h)
    shared = layers.LayerNormalization()(h)
    outputs = {
        "churn": layers.Dense(1, activation="sigmoid", name="churn")(shared),
        "spend": layers.Dense(1, name="spend")(layers.Dense(32, activation="relu")(shared)),
        "category": layers.Dense(num_categories, activation="softmax", name="category")(shared),
    }
    return keras.Model(inp, outputs, name="multihead_customer")


def compile_model(model):
    opt = keras.optimizers.Adam(learning_rate=config.LEARNING_RATE, clipnorm=1.0)
    model.compile(
        optimizer=hvd.DistributedOptimizer(opt),
        loss={"churn": "binary_crossentropy", "spend": keras.losses.Huber(),
              "category": "sparse_categorical_crossentropy"},
        loss_weights=config.LOSS_WEIGHTS,
        metrics={"churn": [keras.metrics.AUC(name="auc")], "spend": ["mae"],
                 "category": ["sparse_categorical_accuracy"]},
    )
    return model
