import tensorflow as tf


class ModelEMA:
    """Shadow copy of the model weights, updated after every optimizer step."""

    def __init__(self, model, decay=0.9999):
        self.model, self.decay = model, decay
        self.shadow = [tf.Variable(v, trainable=False, name=f"ema/{i}") for i, v in enumerate(model.weights)]
        self._backup = None

    def checkpointable(self):
        return tf.train.Checkpoint(shadow=self.shadow)

    def update(self):
        for s, v in zip(self.shadow, self.model.weights):
            s.assign(self.decay * s + (1.0 - self.decay) * v)

    def swap_in(self):
        self._backup = [tf.identity(v) for v in self.model.weights]
        for v, s in zip(self.model.weights, self.shadow):
            v.assign(s)

    def swap_out(self):
        for v, b in zip(self.model.weights, self._backup):
            v.assign(b)
        self._backup = None
