"""Training component of the CTR Kubeflow pipeline.

The pipeline imports this module and calls ``train(params)`` inside every MPIJob worker
(the MPIJob launcher runs ``python -m components.train_component --params '<json>'``).
Input: the feature-engineering step writes one parquet file per day partition to
``params['features_dir']/day=YYYYMMDD/part-NNNNN.parquet`` with columns f0..f{n-1} (hashed ids),
d0..d{m-1} (dense) and ``click``.
"""
import argparse
import glob
import json
import os

import numpy as np
import pandas as pd
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

DEFAULT_PARAMS = {
    "features_dir": "/mnt/pipeline/features",
    "train_days": 7,
    "n_sparse": 20,
    "n_dense": 8,
    "hash_size": 300000,
    "embed_dim": 12,
    "batch_size": 1024,
    "base_lr": 0.002,
    "epochs": 3,
    "model_dir": "/mnt/pipeline/models/ctr",
    "emb_export_shards": 8,
}


def _read(files, n_sparse, n_dense):
    if not files:
        return (np.zeros((0, n_sparse), np.int64), np.zeros((0, n_dense), np.float32), np.zeros((0,), np.float32))
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    xs = df[["f%d" % i for i in range(n_sparse)]].values.astype(np.int64)
    xd = df[["d%d" % i for i in range(n_dense)]].values.astype(np.float32)
    return xs, xd, df["click"].values.astype(np.float32)


def _build_model(p):
    sp = keras.Input((p["n_sparse"],), dtype="int64", name="sparse_ids")
    de = keras.Input((p["n_dense"],), name="dense_feats")
    emb = keras.layers.Embedding(p["hash_size"], p["embed_dim"], name="hashed_embedding")(sp)
    x = keras.layers.Concatenate()([keras.layers.Flatten()(emb), keras.layers.BatchNormalization()(de)])
    x = keras.layers.Dense(256, activation="relu")(x)
    x = keras.layers.Dense(64, activation="relu")(x)
    out = keras.layers.Dense(1, activation="sigmoid")(x)
    return keras.Model([sp, de], out)


def train(params=None):
    p = dict(DEFAULT_PARAMS, **(params or {}))
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    days = sorted(glob.glob(os.path.join(p["features_dir"], "day=*")))
    train_days, val_day = days[-p["train_days"] - 1:-1], days[-1]
    parts = [f for d in train_days for f in sorted(glob.glob(os.path.join(d, "*.parquet")))]
    my_parts = parts[hvd.rank()::hvd.size()]
    xs, xd, y = _read(my_parts, p["n_sparse"], p["n_dense"])
    xs = xs % p["hash_size"]

    # parquet parts are not the same size: cut every worker to the smallest row count so that
    # all workers run the same number of steps per epoch
    counts = hvd.allgather(np.array([len(y)], dtype=np.int64)).numpy()
    n = int(counts.min()) // p["batch_size"] * p["batch_size"]
    xs, xd, y = xs[:n], xd[:n], y[:n]

    vparts = sorted(glob.glob(os.path.join(val_day, "*.parquet")))
    vxs, vxd, vy = _read(vparts[hvd.rank()::hvd.size()], p["n_sparse"], p["n_dense"])
    vxs = vxs % p["hash_size"]

    model = _build_model(p)
    opt = keras.optimizers.Adam(learning_rate=p["base_lr"] * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy")

    model.fit([xs, xd], y, batch_size=p["batch_size"], epochs=p["epochs"], shuffle=True,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
              verbose=2 if hvd.rank() == 0 else 0)

    # validation parts are split too: sum log-loss numerators and row counts over workers
    pv = model.predict([vxs, vxd], batch_size=8192, verbose=0).ravel().astype(np.float64) if len(vy) else np.zeros(0)
    ll_sum = -np.sum(vy * np.log(np.clip(pv, 1e-7, 1)) + (1 - vy) * np.log(np.clip(1 - pv, 1e-7, 1)))
    ctr_sum = float(pv.sum())
    tot = hvd.allreduce(np.array([ll_sum, ctr_sum, vy.sum(), len(vy)], dtype=np.float64), op=hvd.Sum).numpy()
    metrics = {"val_logloss": tot[0] / tot[3], "pred_ctr": tot[1] / tot[3], "true_ctr": tot[2] / tot[3],
               "val_rows": int(tot[3])}

    if hvd.rank() == 0:
        os.makedirs(p["model_dir"], exist_ok=True)
        model.save(os.path.join(p["model_dir"], "ctr_model.keras"))
        table = model.get_layer("hashed_embedding").get_weights()[0]
        for k, chunk in enumerate(np.array_split(table, p["emb_export_shards"])):
            np.save(os.path.join(p["model_dir"], "embedding-%02d-of-%02d.npy" % (k, p["emb_export_shards"])), chunk)
        with open(os.path.join(p["model_dir"], "metrics.json"), "w") as f:
            json.dump(metrics, f)
    return metrics


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--params", default="{}", help="json dict overriding DEFAULT_PARAMS")
    print(train(json.loads(ap.parse_args().params)))
