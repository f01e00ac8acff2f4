# Customer churn classifier on the telco CSV, Keras preprocessing layers + horovod.
# usage: horovodrun -np 4 -H localhost:4 python 05_tabular_churn.py --csv churn.csv
import argparse
import logging

import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd

NUMERIC = ["tenure", "monthly_charges", "total_charges", "num_tickets"]
CATEGORICAL = ["contract", "payment_method", "internet_service", "gender"]
TARGET = "churn"


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--model-path", default="churn_model.keras")
    return ap.parse_args()


def df_to_ds(df):
    labels = df[TARGET].astype("float32").values
    feats = {c: df[c].values.reshape(-1, 1) for c in NUMERIC + CATEGORICAL}
    return tf.data.Dataset.from_tensor_slices((feats, labels))


def build_model(train_df):
    inputs, encoded = {}, []
    for col in NUMERIC:
        inp = tf.keras.Input(shape=(1,), name=col, dtype="float32")
        norm = tf.keras.layers.Normalization()
        norm.adapt(train_df[col].values.reshape(-1, 1).astype("float32"))
        inputs[col] = inp
        encoded.append(norm(inp))
    for col in CATEGORICAL:
        inp = tf.keras.Input(shape=(1,), name=col, dtype="string")
        lookup = tf.keras.layers.StringLookup(output_mode="one_hot")
        lookup.adapt(train_df[col].values.reshape(-1, 1))
        inputs[col] = inp
        encoded.append(lookup(inp))
    x = tf.keras.layers.concatenate(encoded)
    x = tf.keras.layers.Dense(128, activation="relu")(x)
    x = tf.keras.layers.Dropout(0.2)(x)
    x = tf.keras.layers.Dense(64, activation="relu")(x)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(x)
    return tf.keras.Model(inputs, out)


def main():
    args = parse()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    df = pd.read_csv(args.csv)
    df[CATEGORICAL] = df[CATEGORICAL].astype(str)
    df["total_charges"] = pd.to_numeric(df["total_charges"], errors="coerce").fillna(0.0)
    # identical split everywhere: fixed random_state
    test_df = df.sample(frac=0.15, random_state=7)
    train_df = df.drop(test_df.index)
    logging.info("train %d rows, test %d rows", len(train_df), len(test_df))

    train_ds = (df_to_ds(train_df)
                .shard(num_shards=hvd.size(), index=hvd.rank())
                .shuffle(20000)
                .batch(args.batch_size)
                .prefetch(tf.data.AUTOTUNE))
    test_ds = df_to_ds(test_df).batch(2048)

    model = build_model(train_df)
    scaled_lr = args.lr * hvd.size()
    opt = tf.keras.optimizers.Adam(learning_rate=scaled_lr)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr,
                                                 warmup_epochs=args.warmup, verbose=0),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
    ]
    if hvd.rank() == 0:
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(args.model_path, monitor="val_auc",
                                                            mode="max", save_best_only=True))
        callbacks.append(tf.keras.callbacks.CSVLogger("churn_history.csv"))

    model.fit(train_ds, validation_data=test_ds, epochs=args.epochs,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    results = model.evaluate(test_ds, verbose=0, return_dict=True)
    if hvd.rank() == 0:
        logging.info("held-out: %s", {k: round(float(v), 4) for k, v in results.items()})
        probs = model.predict(test_ds, verbose=0).ravel()
        top = np.argsort(-probs)[:20]
        logging.info("top-20 churn risk ids: %s", test_df.index.values[top].tolist())


if __name__ == "__main__":
    main()
