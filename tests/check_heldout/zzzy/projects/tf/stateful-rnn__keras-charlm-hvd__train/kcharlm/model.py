import numpy as np
import keras
from keras import layers


def build_model(vocab_size, batch_size, seq_len, units, cell='lstm', emb=64):
    rnn = layers.LSTM if cell == 'lstm' else layers.GRU
    inp = keras.Input(batch_shape=(batch_size, seq_len), dtype='int32')
    h = layers.Embedding(vocab_size, emb)(inp)
    h = rnn(units, return_sequences=True, stateful=True)(h)
    h = layers.Dropout(0.2)(h)
    h = rnn(units, return_sequences=True, stateful=True)(h)
    out = layers.Dense(vocab_size)(h)
    return keras.Model(inp, out)


def sample_text(model, vocab, units, cell, start='\n', n=400, temperature=0.8):
    # batch-1 copy of the trained weights for generation
    gen = build_model(len(vocab), 1, 1, units, cell)
    gen.set_weights(model.get_weights())
    idx = {c: i for i, c in enumerate(vocab)}
    cur = np.array([[idx.get(start, 0)]], dtype=np.int32)
    out = []
    for _ in range(n):
        logits = gen.predict_on_batch(cur)[0, -1] / temperature
        p = np.exp(logits - logits.max())
        p /= p.sum()
        nxt = np.random.choice(len(vocab), p=p)
        out.append(vocab[nxt])
        cur = np.array([[nxt]], dtype=np.int32)
    return ''.join(out)
