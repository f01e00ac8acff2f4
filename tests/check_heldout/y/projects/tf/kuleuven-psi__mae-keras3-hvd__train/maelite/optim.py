import keras
import horovod.tensorflow.keras as hvd


def make_optimizer(lr, weight_decay=0.05):
    """AdamW as in the MAE paper, gradients averaged by Horovod (fp16 on the wire)."""
    opt = keras.optimizers.AdamW(learning_rate=lr, weight_decay=weight_decay, beta_2=0.95)
    return hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16)
