"""Keras 3 callbacks for the model.fit path, on any Horovod.

An unpatched Horovod 0.28.1's own callbacks assume Keras 2 and fail on Keras 3; hvdkit's patched build fixes
them (docs/horovod-patch.md), and these work on either.
"""
import keras
import horovod.tensorflow as hvd

from hvdkit.common import schedule as _schedule
from hvdkit.tensorflow._core import average_metrics, broadcast_state


class BroadcastCallback(keras.callbacks.Callback):
    """Step 6 for fit(): model and optimizer variables from root_rank before the first batch."""

    def __init__(self, root_rank=0):
        super().__init__()
        self.root_rank = root_rank

    def on_train_begin(self, logs=None):
        broadcast_state(self.model, self.model.optimizer, self.root_rank)


def _mean_metrics(metrics, out):
    """Leaf metrics that keep (total, count) state, found through Keras 3's CompileMetrics container."""
    for m in metrics:
        if hasattr(m, "total") and hasattr(m, "count"):
            out.append(m)
        elif getattr(m, "metrics", None):
            _mean_metrics(m.metrics, out)
    return out


class MetricAverageCallback(keras.callbacks.Callback):
    """Step 8 for fit(): epoch logs become means over every sample of every rank.

    Keras's running means keep (total, count); those are allreduced, so uneven shards weigh right.
    Training state is read when validation starts (Keras resets the same metric objects for it).
    Metrics without (total, count) state are averaged over ranks as values.
    """

    def on_epoch_begin(self, epoch, logs=None):
        self._train = None

    def on_test_begin(self, logs=None):
        self._train = self._state()

    def _state(self):
        # Values now: the variables themselves are reset and reused for validation.
        return {m.name: (float(m.total), float(m.count)) for m in _mean_metrics(self.model.metrics, [])}

    def on_epoch_end(self, epoch, logs=None):
        if logs is None:
            return
        train = self._train if self._train is not None else self._state()
        val = self._state() if self._train is not None else {}
        pairs = dict(train)
        pairs.update({"val_" + name: pair for name, pair in val.items()})
        pairs = {k: v for k, v in pairs.items() if k in logs}
        # Anything else in the logs: an unweighted mean over ranks, the best available without counts.
        pairs.update({k: (float(v), 1.0) for k, v in logs.items() if k not in pairs and _is_number(v)})
        if pairs:
            logs.update(average_metrics(pairs))


def _is_number(v):
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


class WarmupCallback(keras.callbacks.Callback):
    """Step 4 for fit() with a plain-float learning rate: per-step linear warmup to the optimizer's LR.

    Compile with lr = scale_lr(base_lr); the first `steps` (or epochs * steps_per_epoch) optimizer
    steps ramp from lr / scale to lr. Uses optimizer.iterations, so a restored run resumes mid-ramp
    (pass target_lr then).
    """

    def __init__(self, steps=None, epochs=None, steps_per_epoch=None, rule="linear", target_lr=None, verbose=0):
        super().__init__()
        self.steps = _schedule.warmup_steps(steps, epochs, steps_per_epoch)
        self.rule, self.verbose, self.target = rule, verbose, target_lr

    def on_train_begin(self, logs=None):
        # Give target_lr when resuming: a restored optimizer may hold a mid-warmup rate.
        if self.target is None:
            self.target = float(self.model.optimizer.learning_rate)
        self.start = self.target / _schedule.scale_factor(hvd.size(), self.rule)

    def on_train_batch_begin(self, batch, logs=None):
        step = int(self.model.optimizer.iterations)
        if step <= self.steps:
            self.model.optimizer.learning_rate = _schedule.warmup_lr(step, self.start, self.target, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(self.model.optimizer.learning_rate)
        if self.verbose and hvd.rank() == 0:
            print(f"epoch {epoch}: lr {float(self.model.optimizer.learning_rate):.6g}", flush=True)
