"""Values read through the objects a project's Trainer keeps (issue 39, class 3: definitions, not spelling).

- `learner.step = hvd.broadcast_object(learner.step, 0)` after rank 0 alone restored the step: the `self.step`
  that `train()` reads afterwards is the same on every rank, so a metric allreduce every `log_every` steps runs
  on all of them (it was taken for a collective on some ranks only).
- A Keras callback that broadcasts `self.model.variables` covers the networks the fitted model holds and trains
  in its own `train_step` (`self.net`).
- A rollout loss run inside the batch loop (`for k in range(K): h = model(h)`) is training, not an evaluation on
  this rank's shard; a validation helper's batches (`for x, y in loader: x = x.to(device)`) come from the loader
  it is handed, sharded or not.

Written from scratch for these tests."""
from crash_scripts import Source, check_project

LEARNER = Source('''
    import horovod.torch as hvd
    import torch


    class Learner:
        def __init__(self, model, optimizer, loader, log_every=50):
            self.model, self.optimizer, self.loader = model, optimizer, loader
            self.log_every = log_every
            self.step = 0

        def restore(self, path):
            try:
                state = torch.load(path, map_location="cpu")
            except FileNotFoundError:
                return False
            self.model.load_state_dict(state["model"])
            self.step = state["step"]
            return True

        def train(self, max_steps):
            running = torch.zeros(2)
            for x, y in self.loader:
                if self.step >= max_steps:
                    return
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                running += torch.tensor([loss.item() * len(x), len(x)])
                if self.step % self.log_every == 0:
                    total = hvd.allreduce(running, op=hvd.Sum, name="loss_sum")
                    if hvd.rank() == 0:
                        print(self.step, float(total[0] / total[1]))
                    running.zero_()
                self.step += 1
''')

LEARNER_TRAIN = Source('''
    """Regression: horovodrun -np 4 python train.py"""
    import horovod.torch as hvd
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from regress.learner import Learner

    hvd.init()
    data = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    learner = Learner(model, opt, loader)
    if hvd.rank() == 0:
        learner.restore("ckpt.pt")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    #SYNC#
    learner.train(max_steps=1000)
    if hvd.rank() == 0:
        torch.save({"model": model.state_dict(), "step": learner.step}, "ckpt.pt")
''')


def test_a_step_counter_broadcast_after_rank_0_restored_it_keeps_the_allreduce_on_every_rank(tmp_path):
    files = {"regress/__init__.py": "", "regress/learner.py": LEARNER,
             "train.py": LEARNER_TRAIN.replace("#SYNC#", "learner.step = hvd.broadcast_object(learner.step, 0)")}
    crash, flagged, findings = check_project(tmp_path, files)
    assert crash is None and flagged == {}, findings[8].evidence


def test_a_step_counter_rank_0_alone_restored_puts_the_allreduce_on_some_ranks(tmp_path):
    files = {"regress/__init__.py": "", "regress/learner.py": LEARNER, "train.py": LEARNER_TRAIN.replace("#SYNC#", "")}
    _, flagged, findings = check_project(tmp_path, files)
    assert flagged == {8: "wrong"} and "some ranks only" in findings[8].evidence


ROLLOUT_MODEL = '''
    import horovod.tensorflow as hvd
    import keras
    import tensorflow as tf


    class Rollout(keras.Model):
        def __init__(self, net, steps):
            super().__init__()
            self.net, self.steps = net, steps
            self.tracker = keras.metrics.Mean(name="loss")

        def call(self, x, training=False):
            return self.net(x, training=training)

        @property
        def metrics(self):
            return [self.tracker]

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                h, loss = x, 0.0
                for k in range(self.steps):
                    h = self.net(h, training=True)
                    loss += tf.reduce_mean(tf.square(h - y[:, k]))
            tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, self.net.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.net.trainable_variables))
            self.tracker.update_state(loss)
            return {"loss": self.tracker.result()}
'''

CALLBACKS = Source('''
    import horovod.tensorflow as hvd
    import keras
    import tensorflow as tf


    class BroadcastOnce(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.done = False

        def on_train_batch_end(self, batch, logs=None):
            if not self.done:
                hvd.broadcast_variables(#SENT#, root_rank=0)
                hvd.broadcast_variables(self.model.optimizer.variables, root_rank=0)
                self.done = True


    class AverageLogs(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            for k in sorted(logs or {}):
                logs[k] = float(hvd.allreduce(tf.constant(float(logs[k])), op=hvd.Average, name="avg_" + k))
''')

KERAS_TRAIN = '''
    """Rollout emulator: horovodrun -np 4 python train.py"""
    import horovod.tensorflow as hvd
    import keras
    import numpy as np
    import tensorflow as tf

    from emu.callbacks import AverageLogs, BroadcastOnce
    from emu.model import Rollout

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    x = np.random.rand(2048, 16).astype("float32")
    y = np.random.rand(2048, 3, 16).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).batch(32)
    net = keras.Sequential([keras.layers.Dense(64, activation="gelu"), keras.layers.Dense(16)])
    model = Rollout(net, 3)
    model.compile(optimizer=keras.optimizers.Adam(1e-3 * hvd.size()))
    callbacks = [BroadcastOnce(), AverageLogs()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("emu.weights.h5", save_weights_only=True))
    model.fit(ds, epochs=5, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
'''


def keras_project(sent):
    return {"emu/__init__.py": "", "emu/model.py": ROLLOUT_MODEL, "emu/callbacks.py": CALLBACKS.replace("#SENT#", sent),
            "train.py": KERAS_TRAIN}


def test_a_callback_broadcasting_the_fitted_model_covers_the_network_its_train_step_trains(tmp_path):
    crash, flagged, findings = check_project(tmp_path, keras_project("self.model.variables"))
    assert crash is None and flagged == {}, findings[6].evidence


def test_a_callback_broadcasting_only_the_optimizer_leaves_the_network_unbroadcast(tmp_path):
    crash, flagged, _ = check_project(tmp_path, keras_project("self.model.optimizer.variables"))
    assert crash is None and flagged == {6: "wrong"}


ENGINE = '''
    import torch
    import torch.nn.functional as F


    def rollout(model, x, targets):
        h, preds = x, []
        for k in range(targets.shape[1]):
            h = model(h)
            preds.append(h)
        return torch.stack(preds, dim=1)


    @torch.no_grad()
    def validate(model, loader):
        model.eval()
        total, n = 0.0, 0
        for x, targets in loader:
            x, targets = x.to("cpu"), targets.to("cpu")
            total += F.mse_loss(rollout(model, x, targets), targets, reduction="sum").item()
            n += targets.numel()
        model.train()
        return total / max(n, 1)
'''

ENGINE_TRAIN = Source('''
    """Autoregressive emulator: horovodrun -np 4 python train.py"""
    import horovod.torch as hvd
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler

    from emu.engine import rollout, validate

    hvd.init()
    torch.set_num_threads(1)
    train_set = TensorDataset(torch.randn(2048, 16), torch.randn(2048, 3, 16))
    valid_set = TensorDataset(torch.randn(512, 16), torch.randn(512, 3, 16))
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = DataLoader(train_set, batch_size=32, sampler=sampler)
    valid_loader = #VALID#
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 16))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, targets in train_loader:
            opt.zero_grad()
            loss = F.mse_loss(rollout(model, x, targets), targets)
            loss.backward()
            opt.step()
        score = validate(model, valid_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train loss {loss.item():.4f} valid mse {score:.4f}")
            torch.save(model.state_dict(), "emu.pt")
''')

WHOLE = "DataLoader(valid_set, batch_size=64)"
SHARDED = "DataLoader(valid_set, batch_size=64, sampler=DistributedSampler(valid_set, hvd.size(), hvd.rank()))"


def test_a_rollout_in_the_batch_loop_is_training_and_the_whole_validation_set_is_the_jobs(tmp_path):
    files = {"emu/__init__.py": "", "emu/engine.py": ENGINE, "train.py": ENGINE_TRAIN.replace("#VALID#", WHOLE)}
    crash, flagged, findings = check_project(tmp_path, files)
    assert crash is None and flagged == {}, findings[8].evidence


def test_a_validation_helper_on_a_sharded_loader_reports_this_ranks_part(tmp_path):
    files = {"emu/__init__.py": "", "emu/engine.py": ENGINE, "train.py": ENGINE_TRAIN.replace("#VALID#", SHARDED)}
    crash, flagged, _ = check_project(tmp_path, files)
    assert crash is None and flagged == {8: "missing"}
