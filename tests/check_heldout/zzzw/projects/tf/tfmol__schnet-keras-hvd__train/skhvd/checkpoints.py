import os
import horovod.tensorflow as hvd


def save_weights(model, ckpt_dir, name):
    """only the first worker touches the file system"""
    if hvd.rank() != 0:
        return
    os.makedirs(ckpt_dir, exist_ok=True)
    model.save_weights(os.path.join(ckpt_dir, f"{name}.weights.h5"))
