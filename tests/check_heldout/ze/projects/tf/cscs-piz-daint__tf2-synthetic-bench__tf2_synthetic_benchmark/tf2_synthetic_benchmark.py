"""TF2 synthetic benchmark (GradientTape) for the Piz Daint scaling runs.

    srun -C gpu -N $NODES --ntasks-per-node=1 python tf2_synthetic_benchmark.py --model ResNet50
"""
import numpy as np
import tensorflow as tf

import horovod.tensorflow as hvd

from harness.args import get_args
from harness.gpu import pin_gpu
from harness.models import get_model
from harness.stats import log, plot_scaling, throughput_summary
from harness.step import make_train_step

args = get_args()
hvd.init()
pin_gpu()

model = get_model(args.model, args.image_size)
opt = tf.keras.optimizers.SGD(learning_rate=0.01 * hvd.size())

data = tf.random.uniform([args.batch_size, args.image_size, args.image_size, 3])
target = tf.random.uniform([args.batch_size, 1], minval=0, maxval=999, dtype=tf.int64)

train_step = make_train_step(model, opt, compression=args.fp16_allreduce)

# first step also broadcasts the freshly built variables from rank 0
train_step(data, target, True)

log(f"Model: {args.model}  Batch size: {args.batch_size}  Number of GPUs: {hvd.size()}")
log("Running warmup...")
for _ in range(args.num_warmup_batches):
    train_step(data, target, False)

log("Running benchmark...")
img_secs = []
for x in range(args.num_iters):
    t0 = tf.timestamp()
    for _ in range(args.num_batches_per_iter):
        loss = train_step(data, target, False)
    _ = loss.numpy()
    dt = float(tf.timestamp() - t0)
    img_sec = args.batch_size * args.num_batches_per_iter / dt
    log(f"Iter #{x}: {img_sec:.1f} img/sec per GPU")
    img_secs.append(img_sec)

throughput_summary(np.array(img_secs), args)
if args.plot:
    plot_scaling(args.csv)

if args.save_weights and hvd.rank() == 0:
    model.save_weights(args.save_weights)
