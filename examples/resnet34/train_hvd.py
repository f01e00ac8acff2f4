"""ResNet34 on Horovod with TensorFlow 2 / Keras 3: train_resnet34.py converted with hvdkit's eight steps.

    mpirun -n 8 python examples/resnet34/train_hvd.py                                    # 224 px: slow on a CPU
    mpirun -n 8 python examples/resnet34/train_hvd.py --image-size 64 --num-steps 5      # a quick run
    mpirun -n 2 python examples/resnet34/train_hvd.py --framework torch                  # train_hvd_torch.py

Every line that differs from train_resnet34.py carries a `# Horovod:` comment naming its step (of the eight
in docs/eight-steps.md); tests/test_resnet.py checks that nothing else changed. Rank 0 prints every step's
time, images/s, loss and the time left, then each rank's images/s and their sum. `--json PATH` (default
$HVDKIT_RECORD, set by `hvdkit scale`) writes the run record of docs/scale.md.
"""
import sys

import resnet_common  # first: with --framework torch it runs the PyTorch twin before TensorFlow loads

resnet_common.hand_over(__file__)

from hvdkit.common.frameworks import import_quietly  # noqa: E402

tf = import_quietly("tensorflow")  # without its C++ start-up notices (TF_CPP_MIN_LOG_LEVEL=0 shows them)
import keras  # noqa: E402

import horovod.tensorflow as hvd  # noqa: E402  Horovod: its allgather, for the final report
import hvdkit.tensorflow as hk  # noqa: E402  Horovod: the eight steps, one call each
from hvdkit.common.meter import Meter  # noqa: E402
from hvdkit.tensorflow.resnet import resnet34  # noqa: E402

import resnet_data_tf  # noqa: E402


def main():
    args = resnet_common.parse_args(horovod=True)  # Horovod: adds --lr-warmup-steps, --fp16-allreduce, --json, ...
    window = (hk.timeline_window(args.timeline, args.timeline_steps, args.timeline_mark_cycles)  # Horovod: --timeline
              if args.timeline else None)  # Horovod: created before init, it records only the chosen steps
    ctx = hk.init(seed=args.seed, threads=args.threads)  # Horovod: steps 1-2, start Horovod, a share of the cores
    batch = resnet_common.batch_per_rank(args, ctx.size)  # Horovod: --global-batch-size is split over the ranks
    samples = batch * ctx.size * args.total_steps  # Horovod: synthetic images for every rank
    data, n, classes = resnet_data_tf.load(args, samples)
    train = hk.shard(data, batch, shuffle=args.shuffle, seed=args.seed, drop_last=True,  # Horovod: step 3, this
                     num_samples=n)  # Horovod: rank's part of each epoch, as many steps as every other rank
    resnet_common.check_steps(train.steps, n, batch, ctx.size)  # Horovod: steps per epoch on each rank
    model = resnet34(classes, input_shape=(args.image_size, args.image_size, 3))
    opt = keras.optimizers.SGD(hk.scale_lr(args.lr), momentum=0.9)  # Horovod: step 4, LR x ranks
    hk.warmup(opt, steps=args.lr_warmup_steps)  # Horovod: step 4, ramped up from --lr over the first steps
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hk.DistributedGradientTape(tape, compression=args.compression)  # Horovod: step 5, averaged gradients
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    hk.broadcast_state(model, opt)  # Horovod: step 6, rank 0's weights and optimizer slots, before step 1
    ckpt = hk.Checkpointer(args.checkpoint_dir) if args.checkpoint_dir else None  # Horovod: step 7, rank 0 writes
    run = ckpt.restore(model=model, optimizer=opt) if ckpt else 0  # Horovod: step 7, every rank resumes alike
    meter = Meter(args.total_steps, args.warmup_steps, batch,
                  every=args.print_every, rank=ctx.rank)  # Horovod: only rank 0 prints
    meter.say(resnet_common.banner(args, "tensorflow", batch,
                                   ranks=ctx.size, threads=ctx.threads, ranks_per_node=ctx.local_size,  # Horovod: ranks
                                   cpu=not tf.config.list_physical_devices("GPU")))
    batches = resnet_data_tf.ready(train.repeat(), args, batch)  # Horovod: step 3, epochs shuffled by (seed, epoch)
    for step, (x, y) in enumerate(batches.take(args.total_steps)):  # Horovod: numbered for the timeline
        if window:  # Horovod: the timeline
            window.step(step)  # Horovod: start or stop the timeline
        meter.step(float(train_step(x, y)))  # float() waits for the step: the clock stops when it is done
    if window:  # Horovod: the timeline
        window.close()  # Horovod: complete on rank 0
    if ckpt:  # Horovod: step 7
        ckpt.save(run, model=model, optimizer=opt)  # Horovod: step 7, only rank 0 writes
    loss = hk.average_metrics({"loss": meter.loss_pair()})["loss"]  # Horovod: step 8, over every rank's steps
    ranks = hvd.allgather_object(meter.summary())  # Horovod: every rank's step times, for the report
    fields = resnet_common.record_fields(args, "tensorflow", classes, {"tensorflow": tf.__version__,
                                                                      "keras": keras.__version__})
    meter.finish(ranks, loss, args.json, ctx.threads, resumed_run=run,  # Horovod: every rank; the record
                 device=ctx.device, **fields)  # Horovod: its device (a GPU per rank: the ideal is linear in ranks)
    return 0


if __name__ == "__main__":
    sys.exit(resnet_common.run(main))
