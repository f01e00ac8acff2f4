"""Steps 1-6 and 8 for TensorFlow 2 / Keras 3.

hvdkit's own layer, on purpose (docs/horovod-patch.md, "Why hvdkit keeps its own Keras 3 layer"): it works
on any Horovod 0.28.1, including a cluster's unpatched one, whose TF helpers predate Keras 3 and call
`.ref()` on what they are given, which a Keras 3 Variable lacks (horovod issue 4290). Everything here
hands Horovod the tf.Variable under each Keras variable (`v.value`), which is the same storage, so
updates and broadcasts land in the model; only Horovod's collectives and its tape on tf.Variables are used.
"""
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from hvdkit.common import errors as _errors
from hvdkit.common import log as _log
from hvdkit.common import metrics as _metrics
from hvdkit.common import schedule as _schedule
from hvdkit.common.context import Context, cpu_horovod_defaults, threads_per_rank
from hvdkit.common.options import horovod_args
from hvdkit.scale import job as _job
from hvdkit.scale import meter as _meter
from hvdkit.tensorflow._consistency import check_consistent


def tf_variables(variables):
    """The tf.Variables behind Keras 3 variables (tf.Variables pass through)."""
    return [v.value if isinstance(v, keras.Variable) else v for v in variables]


def init(seed=None, threads=None, fail_fast=True):
    """Steps 1 and 2: start Horovod, pin one GPU per local rank (or split the CPU cores), seed.

    Call it before building models: TF fixes its thread pools and visible devices on first use.
    fail_fast=True: an uncaught exception ends this rank at once (os._exit) with one line naming it,
    so the job ends instead of hanging in the other ranks' next collective; atexit handlers do not run
    then. fail_fast=False keeps Python's own exception handling (and your atexit handlers).
    """
    _errors.default_stall_shutdown()  # a rank that skips a collective ends the job instead of hanging it
    gpus = tf.config.list_physical_devices("GPU")
    cpu_horovod_defaults(gpu=bool(gpus))  # an allreduce that takes less CPU from the step
    hvd.init()
    if fail_fast:
        _errors.install(hvd.rank(), hvd.size())  # a failing rank ends the job now, naming itself
    local_rank, local_size = hvd.local_rank(), hvd.local_size()
    for gpu in gpus:
        # Without memory growth the first rank's TF grabs every GPU's memory on the node.
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank % len(gpus)], "GPU")
        device = "/GPU:0"
    else:
        device = "/CPU:0"
    n_threads = threads_per_rank(local_size, threads)
    try:
        tf.config.threading.set_intra_op_parallelism_threads(n_threads)
        tf.config.threading.set_inter_op_parallelism_threads(min(2, n_threads))
    except RuntimeError:
        n_threads = tf.config.threading.get_intra_op_parallelism_threads() or n_threads
    if seed is not None:
        # Keras's own generators (initializers, dropout) differ per rank; weights still start equal via
        # broadcast_state. TF's global seed stays equal, so tf.data shuffles follow (seed, epoch) alone.
        keras.utils.set_random_seed(int(seed) + hvd.rank())
        tf.random.set_seed(int(seed))
    ctx = Context(hvd.rank(), hvd.size(), local_rank, local_size, device, n_threads)
    _job.attach(ctx, hvd, "tensorflow")  # what hvdkit's tools measure from outside (hvdkit.scale.job)
    return ctx


def scale_lr(base_lr, rule="linear"):
    """Step 4: the learning rate for hvd.size() workers (linear: base_lr * size)."""
    return _schedule.scaled_lr(base_lr, hvd.size(), rule)


@keras.saving.register_keras_serializable(package="hvdkit")
class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """Per-step linear warmup from `base_lr` to `target_lr` over `warmup_steps`, then `after` (or flat)."""

    def __init__(self, base_lr, target_lr, warmup_steps, after=None):
        self.base_lr, self.target_lr = float(base_lr), float(target_lr)
        self.warmup_steps, self.after = int(warmup_steps), after

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        lr = _schedule.warmup_lr(step, self.base_lr, self.target_lr, self.warmup_steps, minimum=keras.ops.minimum)
        if self.after is None:
            return lr
        return keras.ops.where(step < self.warmup_steps, lr, self.after(step - self.warmup_steps))

    def get_config(self):
        return {"base_lr": self.base_lr, "target_lr": self.target_lr, "warmup_steps": self.warmup_steps,
                "after": keras.saving.serialize_keras_object(self.after) if self.after is not None else None}

    @classmethod
    def from_config(cls, config):
        after = config.get("after")
        config = dict(config, after=keras.saving.deserialize_keras_object(after) if after else None)
        return cls(**config)


def warmup(optimizer, steps=None, epochs=None, steps_per_epoch=None, rule="linear"):
    """Step 4: ramp the LR of optimizer step s from lr / scale to lr, lr being the optimizer's (scale_lr'd) LR.

    lr(s) = lr / scale + (lr - lr / scale) * min(s / warmup, 1), scale = hvd.size() for rule="linear".
    Installs the ramp as the optimizer's learning-rate schedule, read at optimizer.iterations (so a
    restored optimizer resumes mid-ramp), and returns it. An optimizer that already has a schedule
    ramps to that schedule's first value and then follows it. Call before broadcast_state() and before
    or after distributed_optimizer(), either works. Give the length as `steps`, or `epochs` with `steps_per_epoch`.
    """
    if not isinstance(optimizer, keras.optimizers.Optimizer):
        raise TypeError(f"warmup() takes the Keras optimizer, not {type(optimizer).__name__}: "
                        "opt = keras.optimizers.Adam(hk.scale_lr(lr)); hk.warmup(opt, steps=...)")
    n = _schedule.warmup_steps(steps, epochs, steps_per_epoch)
    current = getattr(optimizer, "_learning_rate", None)
    if isinstance(current, WarmupSchedule):
        raise ValueError("this optimizer is already warmed up: call warmup() once per optimizer")
    after = current if isinstance(current, keras.optimizers.schedules.LearningRateSchedule) else None
    target = float(after(0)) if after is not None else float(optimizer.learning_rate)
    schedule = WarmupSchedule(target / _schedule.scale_factor(hvd.size(), rule), target, n, after)
    optimizer.learning_rate = schedule
    return schedule


class DistributedGradientTape:
    """Step 5: wraps a tf.GradientTape so gradient() returns gradients averaged over ranks.

    Works with Keras 3 variables on any Horovod; an unpatched Horovod's own hvd.DistributedGradientTape
    raises "'Variable' object has no attribute 'ref'" on them (hvdkit's patched build accepts them).
    """

    def __init__(self, tape, compression="none", op="average", sparse_as_dense=False, **kwargs):
        comp, reduce_op = horovod_args(hvd, compression, op)
        # The average as a sum of gradients already divided by the ranks: backpropagating from 1/size instead
        # of 1 divides every gradient for the price of one scalar product, where Horovod's Average passes
        # over all the gradient bytes once more after the allreduce (its postscale), on the cores that
        # compute when there is no GPU (docs/performance.md). Exact when the size is a power of 2.
        self._process_set = kwargs.get("process_set", hvd.global_process_set)
        self._divide = reduce_op == hvd.Average
        self._tape = hvd.DistributedGradientTape(
            tape, compression=comp, op=hvd.Sum if self._divide else reduce_op, sparse_as_dense=sparse_as_dense,
            **kwargs)

    # Horovod's gradient code is plain graph-building Python: autograph transpiling it (and each of its
    # per-gradient tf.cond branches) adds seconds to every trace of a train step, ~10 s for a ResNet34.
    @tf.autograph.experimental.do_not_convert
    def gradient(self, target, sources, output_gradients=None, use_generic_names=True):
        # Horovod pairs collectives across ranks by name. Default names come from graph tensor names,
        # which follow Keras's per-process layer counters: a rank that built one extra model (say,
        # for evaluation) names its gradients differently and the job stalls. Position-based names don't.
        single = not isinstance(sources, (list, tuple))
        if self._divide:
            output_gradients = divided_seed(target, output_gradients, self._process_set)
        grads = self._tape.gradient(target, tf_variables([sources] if single else sources), output_gradients,
                                    use_generic_names=use_generic_names)
        return grads[0] if single else grads

    def __getattr__(self, name):
        return getattr(self._tape, name)


def divided_seed(target, output_gradients, process_set):
    """output_gradients for tape.gradient that divide the gradients by the ranks: the caller's divided, or
    1/size in the shape of each target. Elastic jobs read the size when the step runs, as Horovod does."""
    ranks = (hvd.size_op(process_set_id=process_set.process_set_id)
             if int(os.environ.get("HOROVOD_ELASTIC", 0)) else process_set.size())

    def divide(t, seed):
        seed = tf.ones_like(t) if seed is None else tf.convert_to_tensor(seed, dtype=t.dtype)
        return seed / tf.cast(ranks, t.dtype)
    if output_gradients is None:
        return tf.nest.map_structure(lambda t: divide(t, None), target)
    return tf.nest.map_structure(divide, target, output_gradients)


def allreduce_gradients(grads, compression="none", op="average"):
    """Average a list of gradients over ranks in one grouped collective, named by position."""
    comp, reduce_op = horovod_args(hvd, compression, op)
    present = [i for i, g in enumerate(grads) if g is not None]
    if hvd.size() == 1 or not present:
        return list(grads)
    dense = [tf.convert_to_tensor(grads[i]) for i in present]  # IndexedSlices would take another path
    reduced = hvd.grouped_allreduce(dense, compression=comp, op=reduce_op, name="hvdkit_grads",
                                    ignore_name_scope=True)
    out = list(grads)
    for i, r in zip(present, reduced):
        out[i] = r
    return out


def distributed_optimizer(optimizer, compression="none", op="average"):
    """Step 5: a Keras 3 optimizer that averages gradients over ranks in apply_gradients (model.fit too).

    Unpatched Horovod 0.28.1's hvd.DistributedOptimizer targets Keras 2 and fails on Keras 3 optimizers
    (hvdkit's patched build makes it work; this one works on either). Returns a new optimizer of the same
    class and configuration (learning-rate schedule included), as Horovod's does; build, step or compile
    with the returned one. In a GradientTape loop, DistributedGradientTape is the alternative: use one of
    the two (both would average twice, the same values for twice the traffic).
    """
    base = type(optimizer)

    def apply(self, grads, trainable_variables=None):
        return base.apply(self, allreduce_gradients(list(grads), compression, op), trainable_variables)

    cls = type(base.__name__, (base,), {"apply": apply, "__module__": __name__})
    return cls.from_config(optimizer.get_config())


def build_optimizer(optimizer, variables):
    """Create the optimizer's slot variables now, so a broadcast before step 1 covers them."""
    if not optimizer.built:
        optimizer.build(variables)


def broadcast_state(model, optimizer=None, root_rank=0):
    """Step 6: the model's variables (batch-norm statistics too) and the optimizer's, from root_rank.

    The optimizer is built first, so this runs before training instead of "after the first step". Ranks
    whose models differ in shape (or that run other versions) stop here with one ConsistencyError line.
    """
    if not model.built or not model.variables:
        raise ValueError("broadcast_state needs a built model: call model.build(input_shape) "
                         "or run one forward pass before it")
    check_consistent(model)
    variables = list(model.variables)
    if optimizer is not None:
        build_optimizer(optimizer, model.trainable_variables)
        variables += list(optimizer.variables)
    # Horovod's broadcast_variables names each collective after its variable, and Keras names follow
    # per-process counters: a rank that built an extra layer would wait forever. Name by position.
    for i, v in enumerate(tf_variables(variables)):
        v.assign(hvd.broadcast(v, root_rank, name=f"hvdkit_broadcast_{i}"))


def average_metrics(metrics):
    """Step 8: {name: (sum, count)} on each rank -> {name: sum of sums / sum of counts} on every rank."""
    names, flat = _metrics.pack(metrics, lambda x: float(x.numpy()) if hasattr(x, "numpy") else float(x))
    reduced = hvd.allreduce(tf.constant(flat, tf.float64), op=hvd.Sum, name="hvdkit.average_metrics")
    return _metrics.unpack(names, reduced.numpy().tolist())


def print0(*args, **kwargs):
    """print() on rank 0 only, flushed."""
    _log.print0(hvd.rank(), *args, **kwargs)


def progress(iterable=None, batch_size=None, **kwargs):
    """A tqdm bar on rank 0 and, around an iterable, hvdkit's step meter (hvdkit.scale.meter.metered_bar)."""
    return _meter.metered_bar(hvd.rank(), iterable, batch_size, **kwargs)
