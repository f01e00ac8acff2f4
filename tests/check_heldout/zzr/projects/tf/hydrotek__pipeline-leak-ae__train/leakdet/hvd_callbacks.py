import keras
import horovod.tensorflow.keras as hvd

from . import settings


def horovod_callbacks(scaled_lr):
    """Callbacks every worker needs."""
    return [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr,
                                                 warmup_epochs=settings.WARMUP_EPOCHS),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=8),
    ]
