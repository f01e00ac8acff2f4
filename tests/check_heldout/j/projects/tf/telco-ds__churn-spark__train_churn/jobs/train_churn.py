"""Churn model on the feature-store snapshot, trained on Spark executors with Horovod.

    spark-submit --master yarn --num-executors 8 jobs/train_churn.py --snapshot 2024-05-31
"""
import argparse
import os

FEATURE_ROOT = "/mnt/feature-store/churn"


def train_fn(params):
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from churn.features import count_rows, load_partition, to_arrays
    from churn.io_utils import export_model, read_vocab
    from churn.model import build_mlp

    hvd.init()
    # CPU executors: no GPUs, and each Horovod process gets the cores its Spark task was given
    tf.config.set_visible_devices([], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(params["cores_per_task"])
    tf.config.threading.set_inter_op_parallelism_threads(1)

    vocab = read_vocab(os.path.join(params["root"], "vocab.json"))
    train_dir, valid_dir = os.path.join(params["root"], "train"), os.path.join(params["root"], "valid")
    x_tr, y_tr = to_arrays(load_partition(train_dir, hvd.rank(), hvd.size()), vocab)
    x_va, y_va = to_arrays(load_partition(valid_dir, hvd.rank(), hvd.size()), vocab)

    bs = params["batch_size"]
    train_ds = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shuffle(100_000, seed=hvd.rank()).repeat().batch(bs)
    valid_ds = tf.data.Dataset.from_tensor_slices((x_va, y_va)).repeat().batch(bs)
    steps = count_rows(train_dir) // (bs * hvd.size())
    val_steps = max(1, count_rows(valid_dir) // (bs * hvd.size()))

    model = build_mlp(vocab)
    lr = params["lr"] * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(tf.keras.optimizers.Adam(lr)),
                  loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(name="auc"), tf.keras.metrics.BinaryAccuracy(name="acc")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=2, steps_per_epoch=steps),
        tf.keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=3, restore_best_weights=True),
    ]
    history = model.fit(train_ds, steps_per_epoch=steps, epochs=params["epochs"], validation_data=valid_ds,
                        validation_steps=val_steps, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    final = {k: float(v[-1]) for k, v in history.history.items()}
    if hvd.rank() == 0:
        export_model(model, params["model_dir"], final)
    return final


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--num-proc", type=int, default=None)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--model-dir", default="/mnt/models/churn")
    args = ap.parse_args()

    from pyspark.sql import SparkSession
    import horovod.spark

    spark = SparkSession.builder.appName("churn-horovod").getOrCreate()
    conf = spark.sparkContext.getConf()
    params = {"root": os.path.join(FEATURE_ROOT, args.snapshot), "epochs": args.epochs,
              "batch_size": args.batch_size, "lr": args.lr,
              "model_dir": os.path.join(args.model_dir, args.snapshot),
              "cores_per_task": int(conf.get("spark.task.cpus", "1"))}
    results = horovod.spark.run(train_fn, args=(params,), num_proc=args.num_proc, use_gloo=True)
    print("rank 0 final metrics:", results[0])
    spark.stop()


if __name__ == "__main__":
    main()
