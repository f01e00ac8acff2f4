"""One side of `python -m benchmarks.step_bench --framework tf`: time N TensorFlow training steps of one
Keras 3 model on every rank.

    mpirun -n 2 python benchmarks/ranks/step_tf_rank.py --side hvdkit --model cnn
    mpirun -n 2 python benchmarks/ranks/step_tf_rank.py --side horovod --model mlp
    mpirun -n 2 python benchmarks/ranks/step_tf_rank.py --side mwms --model cnn --ports 23456,23457
    mpirun -n 2 python benchmarks/ranks/step_tf_rank.py --side interleaved --model cnn

The sides train the same model (Keras weights seeded per rank, rank 0's made everyone's) on the
same fixed synthetic batches (seeded by rank) with the same optimizer and per-rank batch, in a
tf.function train step:
  hvdkit  -- hvdkit.tensorflow: init, scale_lr, DistributedGradientTape, broadcast_state (--groups 1:
             the tape's gradients in one grouped allreduce instead of one allreduce each);
  horovod -- horovod.tensorflow by hand, as Horovod's examples/tensorflow2/tensorflow2_mnist.py does it,
             with the Keras 3 fix by hand (the tf.Variable `v.value` goes to the tape and the broadcast);
  mwms    -- tf.distribute.MultiWorkerMirroredStrategy, one worker per mpirun rank (TF_CONFIG with two
             localhost ports, task index from OMPI_COMM_WORLD_RANK), global batch = 2 x per-rank batch;
  interleaved -- hvdkit's and the hand-written step function on one model in one process, alternated in
             --blocks blocks of steps, so that machine load drifting between launches cancels out.
Each rank times --steps steps after --untimed ones (tracing included there) and prints its own
record (--json-dir DIR/rank<r>.json): its wall and CPU time per step, the
loss and a weight checksum.
"""
import argparse
import json
import os
import sys
import time

from hvdkit.common.ranks import rank_and_size

N_BATCHES = 8  # distinct fixed batches per rank, cycled


def set_threads(tf, threads):
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)


def build(args, rank):
    """The model and this rank's batches; Keras weights differ per rank until the first broadcast."""
    import keras
    import numpy as np
    import tensorflow as tf

    keras.utils.set_random_seed(1 + rank)
    L = keras.layers
    if args.model == "cnn":
        # Horovod's tensorflow2_mnist.py network without its dropout, so the sides compute the same thing.
        shape = (28, 28, 1)
        layers = [L.Conv2D(32, 3, activation="relu"), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2),
                  L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)]
    else:
        # Many small tensors: per-tensor cost dominates the step.
        shape = (32,)
        layers = [L.Dense(args.width, activation="relu") for _ in range(args.depth - 1)] + [L.Dense(10)]
    model = keras.Sequential([keras.Input(shape), *layers])
    rng = np.random.default_rng(1000 + rank)
    batches = [(tf.constant(rng.standard_normal((args.batch, *shape), dtype=np.float32)),
                tf.constant(rng.integers(0, 10, args.batch), dtype=tf.int64)) for _ in range(N_BATCHES)]
    return model, batches


def hvdkit_step(model, opt, loss_fn, groups=0):
    import tensorflow as tf
    import hvdkit.tensorflow as hk

    @tf.function
    def step(x, y, first_batch=False):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hk.DistributedGradientTape(tape, **({"groups": groups} if groups else {}))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return lambda x, y, first_batch: step(x, y)


def horovod_step(model, opt, loss_fn):
    import tensorflow as tf
    import horovod.tensorflow as hvd

    @tf.function
    def step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        # Horovod: add Horovod Distributed GradientTape.
        tape = hvd.DistributedGradientTape(tape)
        # Horovod (Keras 3): the tape needs the tf.Variables under the Keras variables.
        grads = tape.gradient(loss, [v.value for v in model.trainable_variables])
        opt.apply_gradients(zip(grads, model.trainable_variables))
        # Horovod: broadcast initial variable states from rank 0 to all other processes. This is
        # done after the first gradient step so that the optimizer's variables exist.
        if first_batch:
            hvd.broadcast_variables([v.value for v in model.variables], root_rank=0)
            hvd.broadcast_variables([v.value for v in opt.variables], root_rank=0)
        return loss

    return step


def optimizer_and_loss(lr):
    import keras

    return keras.optimizers.SGD(lr, momentum=0.5), keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def hvdkit_side(args):
    import hvdkit.tensorflow as hk

    ctx = hk.init(threads=args.threads)
    model, batches = build(args, ctx.rank)
    opt, loss_fn = optimizer_and_loss(hk.scale_lr(args.lr))
    hk.broadcast_state(model, opt)
    return ctx.rank, model, batches, hvdkit_step(model, opt, loss_fn, args.groups), _hvd_barrier(hk.hvd)


def horovod_side(args):
    import tensorflow as tf
    import horovod.tensorflow as hvd

    hvd.init()  # Horovod: initialize Horovod.
    set_threads(tf, args.threads)  # Horovod: one rank per core, so one thread per rank.
    model, batches = build(args, hvd.rank())
    # Horovod: adjust learning rate based on number of workers.
    opt, loss_fn = optimizer_and_loss(args.lr * hvd.size())
    return hvd.rank(), model, batches, horovod_step(model, opt, loss_fn), _hvd_barrier(hvd)


def interleaved_side(args):
    """hvdkit's step and the hand-written one on one model in one process: no launch-to-launch drift."""
    import hvdkit.tensorflow as hk

    ctx = hk.init(threads=args.threads)
    model, batches = build(args, ctx.rank)
    opt, loss_fn = optimizer_and_loss(hk.scale_lr(args.lr))
    hk.broadcast_state(model, opt)
    steps = {"hvdkit": hvdkit_step(model, opt, loss_fn), "horovod": horovod_step(model, opt, loss_fn)}
    return ctx.rank, model, batches, steps, _hvd_barrier(hk.hvd)


def _hvd_barrier(hvd):
    import tensorflow as tf

    return lambda: hvd.allreduce(tf.constant(0.0), name="bench_barrier").numpy()


def mwms_side(args):
    import keras
    import tensorflow as tf

    rank = rank_and_size()[0]  # MWMS: mpirun only starts the processes
    hosts = [f"localhost:{p}" for p in args.ports.split(",")]
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": rank}})
    set_threads(tf, args.threads)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    global_batch = args.batch * strategy.num_replicas_in_sync
    with strategy.scope():  # MWMS: variables mirrored, initial values from worker 0
        model, batches = build(args, rank)
        opt = keras.optimizers.SGD(args.lr * strategy.num_replicas_in_sync, momentum=0.5)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            # MWMS: the optimizer sums gradients over replicas, so the loss is divided by the global batch.
            loss = tf.nn.compute_average_loss(loss_fn(y, model(x, training=True)), global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def step(x, y):
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(replica_step, args=(x, y)), axis=None)

    def barrier():
        strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(0.0)), axis=None).numpy()

    return rank, model, batches, lambda x, y, first_batch: step(x, y), barrier


SIDES = {"hvdkit": hvdkit_side, "horovod": horovod_side, "mwms": mwms_side, "interleaved": interleaved_side}


def train(step, batches, n_steps, start):
    loss = None
    for i in range(start, start + n_steps):
        x, y = batches[i % len(batches)]
        loss = step(x, y, first_batch=i == 0)
    return float(loss.numpy())


def interleaved(steps, batches, args, barrier):
    """Both steps in --blocks alternating blocks (A B, B A, ...): seconds per step of each, and blocks' times.

    Returns the first step function, which main() then times as usual (as a check against the blocks).
    """
    names = list(steps)
    for name in names:  # from batch 1: the hand-written step's broadcast is for batch 0 only
        train(steps[name], batches, args.untimed, 1)
    barrier()
    per_block = max(1, args.steps // args.blocks)
    blocks = {name: [] for name in names}
    i = 1 + args.untimed
    for b in range(args.blocks):
        for name in names if b % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            train(steps[name], batches, per_block, i)
            blocks[name].append((time.perf_counter() - t0) / per_block)
            i += per_block
    total = {name: sum(t) / len(t) for name, t in blocks.items()}
    return steps[names[0]], {"interleaved": {"steps_per_block": per_block, "step_s": total, "block_step_s": blocks}}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--side", choices=SIDES, required=True)
    p.add_argument("--model", choices=("cnn", "mlp"), required=True)
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--depth", type=int, default=48, help="MLP: Dense layers")
    p.add_argument("--width", type=int, default=32, help="MLP: layer width")
    p.add_argument("--steps", type=int, default=50, help="timed steps")
    p.add_argument("--untimed", "--warmup", type=int, default=5, help="untimed steps first (the first ones trace)")
    p.add_argument("--threads", type=int, default=1, help="intra-op (and inter-op) threads per rank")
    p.add_argument("--lr", type=float, default=0.01, help="per-rank learning rate (scaled by ranks)")
    p.add_argument("--groups", type=int, default=0,
                   help="hvdkit side: Horovod's groups= for the tape (1: all gradients in one collective; 0: one each)")
    p.add_argument("--blocks", type=int, default=8, help="interleaved side: alternating blocks of steps")
    p.add_argument("--json-dir", required=True, help="write this rank's record to DIR/rank<r>.json")
    p.add_argument("--ports", default="", help="mwms: two localhost ports for TF_CONFIG, comma-separated")
    args = p.parse_args(argv)
    if args.untimed < 2:
        p.error("--untimed must be >= 2: the horovod side traces its first step twice (first_batch)")

    import tensorflow as tf

    rank, model, batches, step, barrier = SIDES[args.side](args)
    extra = {}
    if isinstance(step, dict):
        step, extra = interleaved(step, batches, args, barrier)
    t0 = time.perf_counter()
    train(step, batches, args.untimed, 0)
    untimed_s = time.perf_counter() - t0
    barrier()
    t0, cpu0 = time.perf_counter(), time.process_time()
    loss = train(step, batches, args.steps, args.untimed)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    checksum = float(sum(tf.reduce_sum(tf.cast(v.value, tf.float64)).numpy() for v in model.variables))
    record = {
        "rank": rank, "side": args.side, "model": args.model, "steps": args.steps, "untimed": args.untimed,
        "batch_per_rank": args.batch, "step_s": elapsed / args.steps, "cpu_s_per_step": cpu / args.steps,
        "untimed_s": untimed_s, "loss": loss, "weight_checksum": checksum,
        "tensors": len(model.trainable_variables), "parameters": int(model.count_params()),
        "threads": {"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
                    "inter_op": tf.config.threading.get_inter_op_parallelism_threads()},
        "horovod_env": {k: v for k, v in os.environ.items() if k.startswith("HOROVOD_")}, **extra}
    # One file per rank: two ranks' long lines on mpirun's shared stdout can interleave.
    with open(os.path.join(args.json_dir, f"rank{rank}.json"), "w") as f:
        json.dump(record, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
