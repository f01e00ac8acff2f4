import tensorflow as tf


class ProfileLSTM(tf.keras.Model):
    def __init__(self, n_out=4, units=128, layers=2):
        super().__init__()
        self.enc = tf.keras.layers.Dense(units, activation="gelu")
        self.rnn = [tf.keras.layers.LSTM(units, return_sequences=True) for _ in range(layers)]
        self.out = tf.keras.layers.Dense(n_out)

    def call(self, x, training=False):
        h = self.enc(x)
        for r in self.rnn:
            h = r(h, training=training)
        return self.out(h)


class UncertaintyWeights(tf.Module):
    """Learned homoscedastic weights (Kendall et al.) for the data and physics terms."""

    def __init__(self, n_terms=2):
        super().__init__()
        self.log_vars = tf.Variable(tf.zeros(n_terms), name="log_vars")

    def __call__(self, losses):
        total = 0.0
        for i, l in enumerate(losses):
            total += tf.exp(-self.log_vars[i]) * l + self.log_vars[i]
        return total
