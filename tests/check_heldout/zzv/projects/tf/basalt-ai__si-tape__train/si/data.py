import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def split_tasks(npz_path, n_tasks):
    d = np.load(npz_path)
    classes = np.unique(d["y_train"])
    groups = np.array_split(classes, n_tasks)
    out = []
    for g in groups:
        tr, te = np.isin(d["y_train"], g), np.isin(d["y_test"], g)
        remap = np.vectorize({int(c): i for i, c in enumerate(g)}.get)
        out.append(((d["x_train"][tr] / 255.0).astype("float32"), remap(d["y_train"][tr]).astype("int32"),
                    (d["x_test"][te] / 255.0).astype("float32"), remap(d["y_test"][te]).astype("int32")))
    return out


def worker_dataset(x, y, batch_size, seed):
    """This worker's share of a task's training data, as fixed-length epochs."""
    n = len(x) // hvd.size()
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(hvd.local_size(), hvd.local_rank())
    ds = ds.shuffle(8192, seed=seed).repeat()
    return ds.batch(batch_size, drop_remainder=True), n // batch_size
