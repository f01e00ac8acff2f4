import keras
from keras import layers


def build(input_dim=40, n_speakers=100, n_emotions=6, width=256, dropout=0.2):
    """Shared frame encoder, mean-pooled, with a speaker head and an emotion head."""
    inp = keras.Input((None, input_dim), name="feats")
    h = layers.Conv1D(width, 5, padding="same", activation="relu")(inp)
    h = layers.Conv1D(width, 3, padding="same", activation="relu")(h)
    h = layers.GlobalAveragePooling1D()(h)
    h = layers.Dropout(dropout)(h)
    spk = layers.Dense(n_speakers, name="speaker")(layers.Dense(width, activation="relu")(h))
    emo = layers.Dense(n_emotions, name="emotion")(layers.Dense(width // 2, activation="relu")(h))
    return keras.Model(inp, {"speaker": spk, "emotion": emo}, name="mtl_encoder")


LOSSES = {
    "speaker": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    "emotion": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
}
LOSS_WEIGHTS = {"speaker": 1.0, "emotion": 0.5}
METRICS = {"speaker": ["accuracy"], "emotion": ["accuracy"]}
