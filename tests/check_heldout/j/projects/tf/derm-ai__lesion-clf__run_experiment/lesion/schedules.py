def step_decay(base_lr, every, factor=0.5):
    """Epoch -> lr for keras.callbacks.LearningRateScheduler."""
    def schedule(epoch, lr=None):
        return base_lr * factor ** (epoch // every)
    return schedule
