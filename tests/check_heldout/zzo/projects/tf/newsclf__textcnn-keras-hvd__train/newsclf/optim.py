import keras
import horovod.tensorflow.keras as hvd

from newsclf import settings


def build_optimizer():
    opt = keras.optimizers.Adam(learning_rate=settings.LEARNING_RATE)
    return hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
