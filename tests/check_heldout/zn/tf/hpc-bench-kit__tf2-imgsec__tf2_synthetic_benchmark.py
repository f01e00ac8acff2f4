#!/usr/bin/env python
# Images/sec of a keras.applications model on synthetic data, TF2 + Horovod.
# Part of our cluster acceptance tests: results are appended to a JSONL file by rank 0.
#
#   srun -n 16 python tf2_synthetic_benchmark.py --model ResNet50 --batch-size 64 --xla
import argparse
import json
import os
import time
from datetime import datetime

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def get_args():
    p = argparse.ArgumentParser(description="TF2 synthetic benchmark",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--model", default="ResNet50")
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=0.01, help="single-worker learning rate")
    p.add_argument("--num-warmup-batches", type=int, default=10)
    p.add_argument("--num-batches-per-iter", type=int, default=10)
    p.add_argument("--num-iters", type=int, default=10)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--xla", action="store_true")
    p.add_argument("--results", default="results/bench.jsonl")
    p.add_argument("--save-weights", default="", help="optionally dump final weights (rank 0)")
    return p.parse_args()


def setup_devices():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return len(gpus) > 0


def main():
    args = get_args()
    hvd.init()
    on_gpu = setup_devices()
    if args.xla:
        tf.config.optimizer.set_jit(True)

    model = getattr(keras.applications, args.model)(weights=None,
                                                   input_shape=(args.image_size, args.image_size, 3))
    opt = keras.optimizers.SGD(learning_rate=args.lr * hvd.size(), momentum=0.9)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    loss_fn = keras.losses.SparseCategoricalCrossentropy()

    # each worker draws its own random batch: synthetic data, nothing to partition
    data = tf.random.uniform([args.batch_size, args.image_size, args.image_size, 3])
    target = tf.random.uniform([args.batch_size], minval=0, maxval=999, dtype=tf.int64)

    @tf.function(jit_compile=args.xla)
    def benchmark_step(first_batch):
        with tf.GradientTape() as tape:
            probs = model(data, training=True)
            loss = loss_fn(target, probs)
        tape = hvd.DistributedGradientTape(tape, compression=compression)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    def log(msg):
        if hvd.rank() == 0:
            print(msg, flush=True)

    device = "GPU" if on_gpu else "CPU"
    log(f"Model: {args.model}, batch size {args.batch_size}, {hvd.size()} {device}(s)")

    log("Running warmup...")
    benchmark_step(first_batch=True)
    for _ in range(args.num_warmup_batches - 1):
        benchmark_step(first_batch=False)

    log("Running benchmark...")
    img_secs = []
    for it in range(args.num_iters):
        t0 = time.time()
        for _ in range(args.num_batches_per_iter):
            loss = benchmark_step(first_batch=False)
        _ = loss.numpy()  # wait for the device
        img_sec = args.batch_size * args.num_batches_per_iter / (time.time() - t0)
        log(f"Iter #{it}: {img_sec:.1f} img/sec per {device}")
        img_secs.append(img_sec)

    # gather every worker's mean so stragglers are visible, then total them
    per_rank = hvd.allgather(tf.constant([np.mean(img_secs)], dtype=tf.float64)).numpy()
    total = float(per_rank.sum())
    log(f"Img/sec per {device}: mean {per_rank.mean():.1f}, min {per_rank.min():.1f}, max {per_rank.max():.1f}")
    log(f"Total img/sec on {hvd.size()} {device}(s): {total:.1f}")

    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
        with open(args.results, "a") as f:
            f.write(json.dumps({"date": datetime.now().isoformat(timespec="seconds"), "model": args.model,
                                "batch_size": args.batch_size, "np": hvd.size(), "xla": args.xla,
                                "img_sec_total": total, "img_sec_per_rank": per_rank.tolist()}) + "\n")
        if args.save_weights:
            model.save_weights(args.save_weights)


if __name__ == "__main__":
    main()
