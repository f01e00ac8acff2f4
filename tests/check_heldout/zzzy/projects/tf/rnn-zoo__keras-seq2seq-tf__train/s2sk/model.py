import tensorflow as tf


class Encoder(tf.keras.Model):
    def __init__(self, vocab, emb, units):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(vocab, emb)
        self.gru = tf.keras.layers.GRU(units, return_sequences=True, return_state=True,
                                       recurrent_initializer='glorot_uniform')

    def call(self, x):
        return self.gru(self.embedding(x))


class BahdanauAttention(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.W1 = tf.keras.layers.Dense(units)
        self.W2 = tf.keras.layers.Dense(units)
        self.V = tf.keras.layers.Dense(1)

    def call(self, query, values):
        score = self.V(tf.nn.tanh(self.W1(tf.expand_dims(query, 1)) + self.W2(values)))
        weights = tf.nn.softmax(score, axis=1)
        return tf.reduce_sum(weights * values, axis=1), weights


class Decoder(tf.keras.Model):
    def __init__(self, vocab, emb, units):
        super().__init__()
        self.embedding = tf.keras.layers.Embedding(vocab, emb)
        self.gru = tf.keras.layers.GRU(units, return_sequences=True, return_state=True,
                                       recurrent_initializer='glorot_uniform')
        self.fc = tf.keras.layers.Dense(vocab)
        self.attention = BahdanauAttention(units)

    def call(self, x, hidden, enc_output):
        ctx, w = self.attention(hidden, enc_output)
        x = tf.concat([tf.expand_dims(ctx, 1), self.embedding(x)], axis=-1)
        output, state = self.gru(x, initial_state=hidden)
        return self.fc(tf.reshape(output, (-1, output.shape[2]))), state, w
