import keras
from keras import layers

from .frontend import LogMelSpectrogram


def musicnn_like(n_samples, n_tags=50, n_mels=96):
    """Timbral (tall) + temporal (wide) filters on the mel front end, pooled, sigmoid tag outputs."""
    wav = keras.Input((n_samples,), name="waveform")
    x = LogMelSpectrogram(n_mels=n_mels)(wav)
    x = layers.BatchNormalization()(x)
    timbral = [layers.Conv2D(64, (7, int(0.7 * n_mels)), padding="same", activation="relu")(x),
               layers.Conv2D(32, (3, int(0.4 * n_mels)), padding="same", activation="relu")(x)]
    temporal = [layers.Conv2D(32, (k, 1), padding="same", activation="relu")(x) for k in (32, 64, 128)]
    feats = [layers.Lambda(lambda t: keras.ops.max(t, axis=2))(f) for f in timbral + temporal]
    x = layers.Concatenate()(feats)
    x = layers.Conv1D(256, 7, padding="same", activation="relu")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Concatenate()([layers.GlobalMaxPooling1D()(x), layers.GlobalAveragePooling1D()(x)])
    x = layers.Dropout(0.5)(layers.Dense(200, activation="relu")(x))
    return keras.Model(wav, layers.Dense(n_tags, activation="sigmoid", name="tags")(x))
