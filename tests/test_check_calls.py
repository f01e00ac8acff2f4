"""`hvdkit check`, static pass: how the shared machinery resolves calls and values (script.py, facts.py,
values.py). Each rule has a broken script flagged on its step (and no other) and a correct twin flagged
on none; the scripts are short trainers written here."""
import textwrap

from hvdkit.check import FLAGGED, MISSING, WRONG
from hvdkit.check.static import analyze


def _verdicts(tmp_path, src):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(src))
    findings, notes, _ = analyze(str(path))
    return {n: f for n, f in findings.items() if f.verdict in FLAGGED}, findings, notes


# A trainer class whose own method is called `save`: `torch.save` inside it is the library's, not this method.
TORCH_TRAINER = textwrap.dedent("""
    import argparse
    import os

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    class Trainer:
        def __init__(self, out):
            self.out = out
            self.net = torch.nn.Linear(8, 2)
            opt = torch.optim.SGD(self.net.parameters(), lr=0.01 * hvd.size())
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.net.named_parameters())
            hvd.broadcast_parameters(self.net.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        def save(self, epoch):
    {save}

        def fit(self, loader, sampler):
            for epoch in range(2):
                sampler.set_epoch(epoch)
                total, seen = 0.0, 0
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = torch.nn.functional.cross_entropy(self.net(x), y)
                    loss.backward()
                    self.opt.step()
                    total, seen = total + loss.item() * len(y), seen + len(y)
                sums = hvd.allreduce(torch.tensor([total, seen]), op=hvd.Sum)
                if hvd.rank() == 0:
                    print(f"epoch {{epoch}}: loss {{sums[0] / sums[1]:.4f}}")
                self.save(epoch)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", default=".")
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        x = torch.randn(64, 8)
        data = TensorDataset(x, (x.sum(1) > 0).long())
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        Trainer(args.out).fit(DataLoader(data, batch_size=16, sampler=sampler), sampler)


    if __name__ == "__main__":
        main()
""")
RANK0_SAVE = ("        if hvd.rank() == 0:\n"
              "            torch.save(self.net.state_dict(), os.path.join(self.out, f'net-{epoch}.pt'))")
EVERY_RANK_SAVE = "        torch.save(self.net.state_dict(), os.path.join(self.out, f'net-{epoch}.pt'))"


def test_torch_save_inside_a_method_named_save_is_the_checkpoint(tmp_path):
    flagged, findings, _ = _verdicts(tmp_path, TORCH_TRAINER.format(save=RANK0_SAVE))
    assert flagged == {} and "torch.save" in findings[7].evidence


def test_torch_save_inside_a_method_named_save_on_every_rank_is_wrong(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, TORCH_TRAINER.format(save=EVERY_RANK_SAVE))
    assert list(flagged) == [7] and flagged[7].verdict == WRONG, flagged


# Ranks, size and local rank unpacked from one tuple: each name holds its own query.
UNPACKING_TRAINER = textwrap.dedent("""
import argparse
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=".")
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    hvd.init()
{unpack}
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device({device})
    x = torch.randn(64, 8)
    data = TensorDataset(x, (x.sum(1) > 0).long())
    sampler = DistributedSampler(data, num_replicas=world, rank=rank)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    net = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr * world)
    opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        total, seen = 0.0, 0
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            total, seen = total + loss.item() * len(y), seen + len(y)
        sums = hvd.allreduce(torch.tensor([total, seen]), op=hvd.Sum)
        if rank == 0:
            print(f"epoch {{epoch}}: loss {{sums[0] / sums[1]:.4f}}")
            torch.save(net.state_dict(), os.path.join(args.out, f"net-{{epoch}}.pt"))


if __name__ == "__main__":
    main()
""")
UNPACK = "    rank, world, local_rank = hvd.rank(), hvd.size(), hvd.local_rank()"


def test_tuple_unpacking_binds_each_name_to_its_own_value(tmp_path):
    flagged, _, notes = _verdicts(tmp_path, UNPACKING_TRAINER.format(unpack=UNPACK, device="local_rank"))
    assert flagged == {} and notes == []  # LR * world is not rank-dependent; `if rank == 0:` guards the print


def test_tuple_unpacked_global_rank_as_the_gpu_is_wrong(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, UNPACKING_TRAINER.format(unpack=UNPACK, device="rank"))
    assert list(flagged) == [2] and flagged[2].verdict == WRONG, flagged


# A checkpoint written by a Keras callback of the script's own: fit calls its on_epoch_end, not the script.
KERAS_CALLBACK_TRAINER = textwrap.dedent("""
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd


    class SaveState(keras.callbacks.Callback):
        def __init__(self, path):
            super().__init__()
            self.path = path

        def on_epoch_end(self, epoch, logs=None):
            self.model.save_weights(self.path)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", default=".")
        args = parser.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.threading.set_intra_op_parallelism_threads(1)
        x = np.random.default_rng(0).normal(size=(64, 8)).astype("float32")
        y = (x.sum(1) > 0).astype("int64")
        data = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(32).batch(16)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
        opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=0.01 * hvd.size()))
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    {add}
        model.fit(data, epochs=2, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
    """)
RANK0_CALLBACK = ("    if hvd.rank() == 0:\n"
                  "        callbacks.append(SaveState(os.path.join(args.out, 'model.weights.h5')))")
EVERY_RANK_CALLBACK = "    callbacks.append(SaveState(os.path.join(args.out, 'model.weights.h5')))"


def test_keras_callback_made_on_rank_0_writes_the_checkpoint_there(tmp_path):
    flagged, findings, _ = _verdicts(tmp_path, KERAS_CALLBACK_TRAINER.format(add=RANK0_CALLBACK))
    assert flagged == {} and "save_weights" in findings[7].evidence


def test_keras_callback_made_on_every_rank_writes_from_every_rank(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, KERAS_CALLBACK_TRAINER.format(add=EVERY_RANK_CALLBACK))
    assert list(flagged) == [7] and flagged[7].verdict == WRONG, flagged


# A schedule whose length is counted from this rank's own shard (np.array_split(...)[hvd.rank()]).
SHARD_SCHEDULE_TRAINER = textwrap.dedent("""
    import argparse
    import os

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", default=".")
        parser.add_argument("--lr", type=float, default=0.01)
        args = parser.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.threading.set_intra_op_parallelism_threads(1)
        x = np.random.default_rng(0).normal(size=(64, 8)).astype("float32")
        y = (x.sum(1) > 0).astype("int64")
        mine = np.array_split(np.arange(len(x)), hvd.size())[hvd.rank()]
        x, y = x[mine], y[mine]
        steps_per_epoch = len(x) // 16
        sched = keras.optimizers.schedules.CosineDecay({peak}, decay_steps=2 * steps_per_epoch)
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
        opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=sched))
        model.compile(optimizer=opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "model.weights.h5"),
                                                             save_weights_only=True))
        model.fit(x, y, batch_size=16, epochs=2, shuffle=True, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


    if __name__ == "__main__":
        main()
    """)


def test_a_schedule_counted_from_the_shard_size_is_the_same_lr_on_every_rank(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, SHARD_SCHEDULE_TRAINER.format(peak="args.lr * hvd.size()"))
    assert flagged == {}, flagged


def test_a_schedule_counted_from_the_shard_size_does_not_scale_the_lr(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, SHARD_SCHEDULE_TRAINER.format(peak="args.lr"))
    assert list(flagged) == [4] and flagged[4].verdict == MISSING, flagged


RANK0_APPEND = ("    saver = SaveState(os.path.join(args.out, 'model.weights.h5'))\n"
                "    if hvd.rank() == 0:\n"
                "        callbacks.append(saver)")
LOCAL_RANK0_APPEND = RANK0_APPEND.replace("hvd.rank()", "hvd.local_rank()")

def test_keras_callback_made_anywhere_and_handed_on_by_rank_0_writes_there(tmp_path):
    flagged, findings, _ = _verdicts(tmp_path, KERAS_CALLBACK_TRAINER.format(add=RANK0_APPEND))
    assert flagged == {} and "save_weights" in findings[7].evidence


def test_keras_callback_made_anywhere_and_handed_on_by_local_rank_0_is_wrong(tmp_path):
    flagged, _, _ = _verdicts(tmp_path, KERAS_CALLBACK_TRAINER.format(add=LOCAL_RANK0_APPEND))
    assert list(flagged) == [7] and flagged[7].verdict == WRONG and "local rank 0" in flagged[7].evidence, flagged
