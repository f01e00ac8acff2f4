# Sentiment classifier for product reviews: TextVectorization -> Embedding -> BiLSTM.
# Launched with mpirun on the cluster; each process sees exactly one GPU.
import os

_local = os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("SLURM_LOCALID", "0"))
os.environ["CUDA_VISIBLE_DEVICES"] = _local
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import json
import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

CFG = {
    "train_file": "reviews_train.jsonl",
    "test_file": "reviews_test.jsonl",
    "max_tokens": 30000,
    "seq_len": 200,
    "embed_dim": 128,
    "batch_size": 64,
    "epochs": 8,
    "optimizer": {"lr": 1e-3, "decay_rate": 0.9},
    "save_every": 2,
    "out": "reviews_model",
}


def read_jsonl(path):
    texts, labels = [], []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            texts.append(rec["text"])
            labels.append(1 if rec["stars"] >= 4 else 0)
    return np.array(texts, dtype=object), np.array(labels, dtype="int32")


class PeriodicSaver(tf.keras.callbacks.Callback):
    """Writes the full model every `every` epochs -- from the first worker only."""

    def __init__(self, path, every):
        super().__init__()
        self.path, self.every = path, every

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() != 0:
            return
        if (epoch + 1) % self.every == 0:
            self.model.save(f"{self.path}/epoch{epoch + 1:02d}.keras")


def build(vectorizer, cfg):
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    x = vectorizer(inp)
    x = tf.keras.layers.Embedding(cfg["max_tokens"], cfg["embed_dim"], mask_zero=True)(x)
    x = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(64))(x)
    x = tf.keras.layers.Dropout(0.3)(x)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(x)
    return tf.keras.Model(inp, out)


def main(cfg):
    hvd.init()
    rank, size = hvd.rank(), hvd.size()

    x_train, y_train = read_jsonl(cfg["train_file"])
    x_test, y_test = read_jsonl(cfg["test_file"])

    # vocabulary from the whole training set, identical on every worker
    vectorizer = tf.keras.layers.TextVectorization(max_tokens=cfg["max_tokens"],
                                                   output_sequence_length=cfg["seq_len"])
    vectorizer.adapt(tf.data.Dataset.from_tensor_slices(x_train).batch(1024))

    # each worker trains on every size-th review
    x_mine, y_mine = x_train[rank::size], y_train[rank::size]
    train_ds = (tf.data.Dataset.from_tensor_slices((x_mine[:, None], y_mine))
                .shuffle(len(x_mine), seed=rank)
                .batch(cfg["batch_size"])
                .prefetch(tf.data.AUTOTUNE))
    test_ds = tf.data.Dataset.from_tensor_slices((x_test[:, None], y_test)).batch(256)

    steps = int(np.ceil(len(x_mine) / cfg["batch_size"]))
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(
        initial_learning_rate=cfg["optimizer"]["lr"] * size,
        decay_steps=steps,
        decay_rate=cfg["optimizer"]["decay_rate"])
    model = build(vectorizer, cfg)
    model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(schedule)),
                  loss="binary_crossentropy", metrics=["accuracy"])

    if rank == 0:
        os.makedirs(cfg["out"], exist_ok=True)
        model.summary()
    saver = PeriodicSaver(cfg["out"], cfg["save_every"])
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           hvd.callbacks.MetricAverageCallback(),
           saver]
    hist = model.fit(train_ds, epochs=cfg["epochs"], validation_data=test_ds, callbacks=cbs,
                     verbose=2 if rank == 0 else 0)

    loss, acc = model.evaluate(test_ds, verbose=0)
    if rank == 0:
        print(json.dumps({"test_loss": float(loss), "test_acc": float(acc),
                          "history": {k: [float(v) for v in vs] for k, vs in hist.history.items()}}))


if __name__ == "__main__":
    main(CFG)
