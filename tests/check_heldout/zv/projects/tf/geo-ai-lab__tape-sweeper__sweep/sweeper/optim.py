import keras
import horovod.tensorflow as hvd


def build_optimizer(name, lr, weight_decay=0.0):
    # linear scaling rule: the effective batch grows with the number of workers
    lr = lr * hvd.size()
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=lr)
    if name == "adamw":
        return keras.optimizers.AdamW(learning_rate=lr, weight_decay=weight_decay)
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    raise ValueError(f"unknown optimizer {name}")
