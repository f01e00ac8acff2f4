import json
import os

import horovod.tensorflow as hvd


def save(model, ema_vars, out_dir, tag, meta=None):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    model.save_weights(os.path.join(out_dir, f"{tag}.weights.h5"))
    if ema_vars is not None:
        backup = [v.numpy() for v in model.trainable_variables]
        for v, e in zip(model.trainable_variables, ema_vars):
            v.assign(e)
        model.save_weights(os.path.join(out_dir, f"{tag}_ema.weights.h5"))
        for v, b in zip(model.trainable_variables, backup):
            v.assign(b)
    if meta:
        with open(os.path.join(out_dir, f"{tag}.json"), "w") as f:
            json.dump(meta, f)
