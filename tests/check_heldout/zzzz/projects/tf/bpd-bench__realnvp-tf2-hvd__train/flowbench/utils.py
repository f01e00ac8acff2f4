import os
import json
import tensorflow as tf
import horovod.tensorflow as hvd


class Mean:
    """running sum/count that can be reduced over workers"""

    def __init__(self):
        self.s, self.n = 0.0, 0

    def update(self, values):
        self.s += float(tf.reduce_sum(values)); self.n += int(tf.size(values))

    def result(self):
        tot = hvd.allreduce(tf.constant([self.s, float(self.n)], tf.float64), op=hvd.Sum).numpy()
        return tot[0] / tot[1]


def save(model, workdir, step, metrics):
    if hvd.rank() != 0:
        return
    os.makedirs(workdir, exist_ok=True)
    tf.train.Checkpoint(model=model).write(os.path.join(workdir, "ckpt-%d" % step))
    with open(os.path.join(workdir, "metrics.jsonl"), "a") as f:
        f.write(json.dumps(dict(step=step, **metrics)) + "\n")
