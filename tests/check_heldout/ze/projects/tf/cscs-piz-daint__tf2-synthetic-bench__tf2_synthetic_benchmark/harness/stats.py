import os

import numpy as np
import tensorflow as tf

import horovod.tensorflow as hvd


def log(s):
    if hvd.rank() == 0:
        print(s, flush=True)


def throughput_summary(img_secs, args):
    mean, conf = float(np.mean(img_secs)), float(1.96 * np.std(img_secs))
    # sum of the per-rank means = total throughput of the job
    total = hvd.allreduce(tf.constant(mean), op=hvd.Sum, name="img_sec_total").numpy()
    slowest = hvd.allreduce(tf.constant(mean), op=hvd.Min, name="img_sec_min").numpy()
    log(f"Img/sec per GPU: {mean:.1f} +-{conf:.1f} (slowest rank {slowest:.1f})")
    log(f"Total img/sec on {hvd.size()} GPU(s): {total:.1f}")
    if hvd.rank() == 0:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a") as f:
            if new:
                f.write("model,gpus,batch,img_sec_gpu,img_sec_total\n")
            f.write(f"{args.model},{hvd.size()},{args.batch_size},{mean:.2f},{total:.2f}\n")


def plot_scaling(csv_path, out_png="scaling.png"):
    """Efficiency vs number of GPUs from all rows collected so far (rank 0 only)."""
    if hvd.rank() != 0:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = np.genfromtxt(csv_path, delimiter=",", names=True, dtype=None, encoding=None)
    gpus, total = np.atleast_1d(rows["gpus"]), np.atleast_1d(rows["img_sec_total"])
    base = total[gpus == gpus.min()].mean() / gpus.min()
    plt.plot(gpus, total / (gpus * base), "o-")
    plt.xlabel("GPUs")
    plt.ylabel("scaling efficiency")
    plt.savefig(out_png, dpi=120)
