"""Transfer learning (EfficientNet-B0) on a product-image catalogue, run on Spark with Horovod.

Submitted from the data platform:
    spark-submit --num-executors 8 train_spark.py --train-glob '/dbfs/catalog/train-*.tfrecord'
"""
import argparse
import glob
import os


def train_fn(cfg):
    import horovod.tensorflow.keras as hvd
    import keras
    import tensorflow as tf

    from effnet.data import records
    from effnet.evaluate import top_k_report
    from effnet.model import build

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_files = sorted(glob.glob(cfg["train_glob"]))
    my_files = train_files[hvd.rank()::hvd.size()]
    train_ds = records(my_files, cfg["batch_size"], training=True)
    val_ds = records(sorted(glob.glob(cfg["val_glob"])), cfg["batch_size"], training=False)
    steps = cfg["num_train_images"] // (cfg["batch_size"] * hvd.size())

    model, base = build(cfg["num_classes"], cfg["imagenet_weights"])
    scaled_lr = cfg["lr"] * hvd.size()

    def compile_and_fit(lr, epochs, initial_epoch, warmup):
        opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=lr, momentum=0.9))
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if warmup:
            cbs.append(hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=warmup,
                                                                steps_per_epoch=steps))
        if hvd.rank() == 0:
            cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "ckpt-{epoch:02d}.keras")))
        return model.fit(train_ds, steps_per_epoch=steps, epochs=epochs, initial_epoch=initial_epoch,
                         validation_data=val_ds, callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)

    # phase 1: new head only
    base.trainable = False
    compile_and_fit(scaled_lr, cfg["head_epochs"], 0, warmup=2)
    # phase 2: fine-tune the whole network with a 10x smaller step
    base.trainable = True
    hist = compile_and_fit(scaled_lr * 0.1, cfg["head_epochs"] + cfg["ft_epochs"], cfg["head_epochs"], warmup=0)

    if hvd.rank() == 0:
        model.save(os.path.join(cfg["out_dir"], "final.keras"))
        print("final evaluation:", top_k_report(model, val_ds))
    return hist.history["val_accuracy"][-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-glob", default="/dbfs/catalog/train-*.tfrecord")
    ap.add_argument("--val-glob", default="/dbfs/catalog/val-*.tfrecord")
    ap.add_argument("--num-train-images", type=int, default=1_200_000)
    ap.add_argument("--num-classes", type=int, default=1200)
    ap.add_argument("--imagenet-weights", default="/dbfs/models/efficientnetb0_notop.h5")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--head-epochs", type=int, default=3)
    ap.add_argument("--ft-epochs", type=int, default=12)
    ap.add_argument("--out-dir", default="/dbfs/runs/effnet")
    ap.add_argument("--num-proc", type=int, default=8)
    args = ap.parse_args()

    import horovod.spark
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("effnet-transfer").getOrCreate()
    os.makedirs(args.out_dir, exist_ok=True)
    cfg = {k: v for k, v in vars(args).items() if k != "num_proc"}
    accuracies = horovod.spark.run(train_fn, args=(cfg,), num_proc=args.num_proc)
    print("final val accuracy:", accuracies[0])
    spark.stop()


if __name__ == "__main__":
    main()
