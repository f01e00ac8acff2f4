import keras
from keras import layers, ops


def build_model(vocab_size, d=256):
    src = keras.Input((None,), dtype="int64", name="src")
    tgt = keras.Input((None,), dtype="int64", name="tgt_in")
    emb = layers.Embedding(vocab_size, d, mask_zero=True)
    enc_out, enc_state = layers.GRU(d, return_sequences=True, return_state=True)(emb(src))
    dec_out = layers.GRU(d, return_sequences=True)(emb(tgt), initial_state=enc_state)
    ctx = layers.Attention()([dec_out, enc_out])
    logits = layers.Dense(vocab_size)(layers.Concatenate()([dec_out, ctx]))
    return keras.Model([src, tgt], logits)


def smoothed_loss(vocab_size, eps):
    cce = keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=eps, reduction=None)

    def loss(y_true, y_pred):
        y_true = ops.cast(y_true, "int32")
        mask = ops.cast(ops.not_equal(y_true, 0), "float32")
        per_tok = cce(ops.one_hot(y_true, vocab_size), y_pred)
        return ops.sum(per_tok * mask) / ops.maximum(ops.sum(mask), 1.0)
    return loss
