"""Step 5 as one compiled training step: forward and backward by XLA where that is faster, Horovod outside it.

Horovod's collectives cannot be compiled by XLA, so a step with DistributedGradientTape inside
tf.function(jit_compile=True) fails at more than one rank. train_step splits the step at the allreduce: the
forward and backward pass in one function XLA may compile, then the gradients' allreduce (one grouped
collective named by position, as DistributedGradientTape's) and the optimizer's update in a plain tf.function.

Whether XLA pays depends on the CPU, the model and the image size (docs/performance.md: 1.7 times as fast for
ResNet34 at 64 px on an AVX2 EPYC, a tenth as fast on an AVX-512 one, where oneDNN's kernels are the fast
ones), so jit_compile="auto" times both ways on the run's first steps and keeps the faster on every rank.
"""
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from hvdkit.common.fastest import Trial
from hvdkit.common.options import horovod_args
from hvdkit.scale import job as _job
from hvdkit.tensorflow._core import allreduce_gradients, divided_seed

WAYS = (True, False)  # jit_compile of the forward and backward pass, XLA's first


def _label(jit):
    return "XLA" if jit else "no XLA"


class TrainStep:
    """step(x, y) -> the loss of this rank's batch; the model's trainable variables updated with the gradients
    averaged over ranks (op="average", or summed: op="sum"). Build it after the model and the optimizer.

    jit_compile: True or False compile the forward and backward pass with XLA or not; "auto" runs each way
    once to compile it, then `trial_steps` timed steps each, alternated, and keeps the faster (the same choice
    on every rank; all of these are real training steps). `choice` is None until then; `report()` says
    what was measured. The loss is loss_fn(y, model(x, training=True)) plus the model's own losses
    (regularizers), if any.
    """

    def __init__(self, model, loss_fn, optimizer, compression="none", op="average", jit_compile="auto",
                 trial_steps=2):
        if jit_compile not in (True, False, "auto"):
            raise ValueError(f"jit_compile must be True, False or 'auto', got {jit_compile!r}")
        self._model, self._loss_fn, self._optimizer = model, loss_fn, optimizer
        _, reduce_op = horovod_args(hvd, compression, op)  # checked now: a bad name fails before step 1
        self._compression = compression
        # hvdkit's average: the backward pass starts from 1/size, the allreduce sums (as DistributedGradientTape).
        self._divide = reduce_op == hvd.Average
        self._op = "sum" if self._divide else op
        self._steps = {}
        self._trial = Trial(WAYS, trial_steps) if jit_compile == "auto" else None
        self.choice = None if jit_compile == "auto" else jit_compile

    @staticmethod
    def trial_length(jit_compile="auto", trial_steps=2):
        """How many steps the trial of jit_compile takes (0 unless "auto"): count them as untimed."""
        return Trial.length(trial_steps) if jit_compile == "auto" else 0

    def _build(self, jit):
        model, loss_fn, optimizer = self._model, self._loss_fn, self._optimizer

        @tf.function(jit_compile=jit)
        def forward_backward(x, y, seed):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
                if model.losses:
                    loss += tf.add_n(model.losses)
            return loss, tape.gradient(loss, model.trainable_variables, output_gradients=seed)

        # Horovod's gradient code is plain Python building a graph: autograph would only slow the trace.
        @tf.function(autograph=False)
        def step(x, y):
            one = tf.constant(1.0)
            seed = divided_seed(one, None, hvd.global_process_set) if self._divide else one
            loss, grads = forward_backward(x, y, seed)
            grads = allreduce_gradients(grads, self._compression, self._op)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return step

    def _step(self, jit):
        if jit not in self._steps:
            self._steps[jit] = self._build(jit)
        return self._steps[jit]

    def __call__(self, x, y):
        if self.choice is not None:
            return self._step(self.choice)(x, y)
        way, _ = self._trial.next()
        start = time.perf_counter()
        try:
            loss = self._step(way)(x, y)
            loss.numpy()  # wait for the step: its time is the trial's measure
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as exc:  # what XLA refuses
            if not way:
                raise
            self._trial.record(error=exc)
            return self(x, y)  # the same batch the other way, in the same step of the plan on every rank
        self._trial.record(time.perf_counter() - start)
        if self._trial.next() is None:
            self.choice = self._trial.decide(_agree)
            if _job.current():  # for the meter's report and run record
                _job.current().notes["forward and backward pass"] = self.report()
        return loss

    def report(self):
        """'XLA 345 ms, no XLA 560 ms per step: XLA', or the fixed choice; None while the trial runs."""
        if self._trial is None:
            return f"{_label(self.choice)} (chosen by the caller)"
        return self._trial.report(_label) if self.choice is not None else None


def _agree(means):
    """The ranks' average of each way's mean step time (inf stays inf: a way that failed anywhere loses)."""
    if hvd.size() == 1:
        return means
    return hvd.allreduce(tf.constant(means, tf.float64), op=hvd.Average, name="hvdkit_step_trial").numpy().tolist()


def train_step(model, loss_fn, optimizer, compression="none", op="average", jit_compile="auto", trial_steps=2):
    """Step 5 in one call: a TrainStep, step(x, y) -> loss, gradients averaged over ranks (see TrainStep)."""
    return TrainStep(model, loss_fn, optimizer, compression, op, jit_compile, trial_steps)
