import keras


class StepDecay(keras.callbacks.Callback):
    """Multiply the lr by gamma at each milestone epoch (after warmup)."""

    def __init__(self, milestones, gamma=0.1):
        super().__init__()
        self.milestones, self.gamma = set(milestones), gamma

    def on_epoch_begin(self, epoch, logs=None):
        if epoch in self.milestones:
            lr = float(self.model.optimizer.learning_rate)
            self.model.optimizer.learning_rate = lr * self.gamma
