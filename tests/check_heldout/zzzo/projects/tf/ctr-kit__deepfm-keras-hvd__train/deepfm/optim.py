import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(opts):
    lr = opts.lr
    if opts.scale_lr:
        # linear scaling rule: one replica per GPU
        lr = lr * hvd.local_size()
    opt = keras.optimizers.Adam(learning_rate=lr, epsilon=1e-7)
    return hvd.DistributedOptimizer(opt), lr
