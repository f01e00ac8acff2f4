import math

import keras


class ResetStatesCallback(keras.callbacks.Callback):
    """streams restart at the beginning of every epoch (and before validation)"""

    def _reset(self):
        for layer in self.model.layers:
            if getattr(layer, 'stateful', False):
                layer.reset_states()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()

    def on_test_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        self._reset()


class PerplexityLogger(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        # logs are already averaged over workers by MetricAverageCallback (it runs first)
        for k in ('loss', 'val_loss'):
            if k in logs:
                logs[k.replace('loss', 'ppl')] = math.exp(min(logs[k], 50.0))
