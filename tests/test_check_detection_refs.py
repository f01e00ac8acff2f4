"""PyTorch detection code in the style of torchvision's references, where the checker told it wrong.

- Step 3: the DistributedSampler grouped by a BatchSampler (`DataLoader(ds, batch_sampler=
  BatchSampler(train_sampler, b, drop_last=True))`) is used; a sampler made and grouped by nothing is not.
- Step 3: steps per epoch counted over the whole data by the global batch (`len(x) // cfg.global_batch`) while
  the project's data function is handed `cfg.global_batch // hvd.size()` per rank: one pass over a rank's
  shard. Counted by a batch no rank count divides, every rank makes a whole epoch of steps.
- Step 8: one evaluation function run by rank 0 on the whole validation set twice (under --test-only, then
  every epoch): both reports are the job's. A training log of rank 0's shard beside it is not.
- Step 5: `opt = hvd.DistributedOptimizer(optimizer)`, then the project's `train_one_epoch(model, opt, ...)`
  whose parameter is called `optimizer`: it steps the wrapper, whatever its parameter is called; handed the
  plain `optimizer`, it steps unaveraged.

Written from scratch for these tests, shaped as detection repositories with `engine` and `utils` modules."""
from hvdkit.check import FLAGGED, OK, WRONG

from crash_scripts import check_project

TRAIN = '''
    """Mask R-CNN on a small data set.  horovodrun -np 4 python train.py --epochs 2"""
    import argparse

    import torch
    import horovod.torch as hvd

    from detection.engine import train_one_epoch, evaluate


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=2)
        parser.add_argument("--batch-size", type=int, default=2)
        parser.add_argument("--test-only", action="store_true")
        parser.add_argument("--aspect-ratio-group-factor", type=int, default=3)
        args = parser.parse_args()
        hvd.init()
        torch.set_num_threads(1)
        dataset = torch.utils.data.TensorDataset(torch.randn(256, 8), torch.randint(0, 3, (256,)))
        dataset_val = torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
        train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(),
                                                                        rank=hvd.rank(), shuffle=True)
        {loader}
        val_loader = torch.utils.data.DataLoader(dataset_val, batch_size=8)
        model = torch.nn.Linear(8, 3)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.02 * hvd.size(), momentum=0.9)
        opt = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        if args.test_only:
            if hvd.rank() == 0:
                print("val acc", evaluate(model, val_loader))
            return
        for epoch in range(args.epochs):
            train_sampler.set_epoch(epoch)
            train_one_epoch(model, {stepped}, data_loader, epoch)
            if hvd.rank() == 0:
                print("epoch", epoch, "val acc", evaluate(model, val_loader))
                torch.save(model.state_dict(), f"model_{epoch}.pth")


    if __name__ == "__main__":
        main()
'''

ENGINE = '''
    import torch


    def train_one_epoch(model, optimizer, data_loader, epoch):
        model.train()
        for x, y in data_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


    @torch.no_grad()
    def evaluate(model, data_loader):
        model.eval()
        correct = seen = 0
        for x, y in data_loader:
            correct += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
        return correct / seen
'''

GROUPED = ("train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, args.batch_size, drop_last=True)\n"
           "        data_loader = torch.utils.data.DataLoader(dataset, batch_sampler=train_batch_sampler)")


def detection(tmp_path, loader=GROUPED, stepped="opt"):
    files = {"train.py": TRAIN.replace("{loader}", loader).replace("{stepped}", stepped),
             "detection/__init__.py": "", "detection/engine.py": ENGINE}
    return check_project(tmp_path, files, script="train.py")[2]


def test_a_sampler_grouped_by_a_batch_sampler_is_used(tmp_path):
    f = detection(tmp_path)[3]
    assert f.verdict == OK and "disjoint" in f.evidence, f


def test_a_sampler_grouped_by_nothing_is_made_and_not_used(tmp_path):
    f = detection(tmp_path, loader="data_loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, "
                                   "shuffle=True)")[3]
    assert f.verdict == WRONG and "not used" in f.evidence, f


def test_one_evaluation_run_by_rank_0_twice_on_the_whole_set_is_the_jobs(tmp_path):
    f = detection(tmp_path)[8]
    assert f.verdict == OK and "rank 0 evaluates the whole" in f.evidence, f


def test_the_wrapper_handed_to_the_engine_is_used_whatever_its_parameter_is_called(tmp_path):
    f = detection(tmp_path)[5]
    assert f.verdict == OK, f


def test_the_plain_optimizer_handed_to_the_engine_steps_unaveraged(tmp_path):
    f = detection(tmp_path, stepped="optimizer")[5]
    assert f.verdict in FLAGGED, f


STEPS = '''
    """Sea-ice segmentation.  horovodrun -np 4 python train.py"""
    import numpy as np
    import keras
    import horovod.tensorflow.keras as hvd

    from seaice.data import train_dataset

    GLOBAL_BATCH = 64


    def main():
        hvd.init()
        per_worker = GLOBAL_BATCH // hvd.size()
        x = np.random.rand(4096, 8).astype("float32")
        y = (x.sum(1) > 4).astype("int64")
        train_ds = train_dataset(x, y, per_worker, hvd.size(), hvd.rank())
        steps_per_epoch = len(x) // {divisor}
        model = keras.Sequential([keras.layers.Dense(2)])
        model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3)),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=3,
                  callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
                  verbose=1 if hvd.rank() == 0 else 0)
        if hvd.rank() == 0:
            model.save("seaice.keras")


    if __name__ == "__main__":
        main()
'''

DATA = '''
    import tensorflow as tf


    def train_dataset(x, y, per_worker_batch, num_shards, index):
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
        return ds.shuffle(1024).repeat().batch(per_worker_batch)
'''


def steps(tmp_path, divisor):
    files = {"train.py": STEPS.replace("{divisor}", divisor), "seaice/__init__.py": "", "seaice/data.py": DATA}
    return check_project(tmp_path, files, script="train.py")[2][3]


def test_steps_counted_by_the_global_batch_cover_a_ranks_shard(tmp_path):
    f = steps(tmp_path, "GLOBAL_BATCH")
    assert f.verdict == OK, f


def test_steps_counted_by_a_fixed_batch_make_a_whole_epoch_on_every_rank(tmp_path):
    f = steps(tmp_path, "32")
    assert f.verdict == WRONG and "whole data set" in f.evidence, f


# torchvision's `--aspect-ratio-group-factor` (3 by default): the grouped batch sampler wraps a new
# RandomSampler, and the DistributedSampler is grouped only when the factor is negative.
GROUPED_BY_ASPECT = (
    "if args.aspect_ratio_group_factor >= 0:\n"
    "            train_batch_sampler = torch.utils.data.BatchSampler(torch.utils.data.RandomSampler(dataset), "
    "args.batch_size, drop_last=True)\n"
    "        else:\n"
    "            train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, args.batch_size, drop_last=True)\n"
    "        data_loader = torch.utils.data.DataLoader(dataset, batch_sampler=train_batch_sampler)")


def test_a_sampler_grouped_only_off_the_default_run_is_not_used(tmp_path):
    f = detection(tmp_path, loader=GROUPED_BY_ASPECT)[3]
    assert f.verdict in FLAGGED, f


# Step 3: the count of samples taken before the data set is sharded (`num_train = int(ds.cardinality())`,
# then `ds = ds.shard(...)`) is the whole set's: dividing it by the global batch is one pass over a shard.
# Taken after the shard, it is the shard's own, and dividing it by hvd.size() again shortens the epoch.
CARDINALITY = '''
    """Leaf disease classifier.  horovodrun -np 4 python train_keras.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    hvd.init()
    x = np.random.rand(4096, 8).astype("float32")
    y = keras.utils.to_categorical((x.sum(1) > 4).astype("int64"), 2)
    train_ds = tf.data.Dataset.from_tensor_slices((x, y))
    {before}
    train_ds = train_ds.shard(hvd.size(), hvd.rank()).shuffle(1024).batch(32, drop_remainder=True).repeat()
    {after}
    model = keras.Sequential([keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(1e-3 * hvd.size())),
                  loss="categorical_crossentropy")
    model.fit(train_ds, steps_per_epoch=num_train // (32 * hvd.size()), epochs=3,
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)], verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save("leafnet.keras")
'''


def cardinality(tmp_path, before="", after=""):
    text = CARDINALITY.replace("{before}", before or "pass").replace("{after}", after or "pass")
    return check_project(tmp_path, {"train_keras.py": text}, script="train_keras.py")[2][3]


def test_a_count_taken_before_the_shard_divided_by_the_global_batch_is_one_pass(tmp_path):
    f = cardinality(tmp_path, before="num_train = int(train_ds.cardinality())")
    assert f.verdict == OK, f


def test_a_count_taken_after_the_shard_divided_by_the_size_again_is_wrong(tmp_path):
    f = cardinality(tmp_path, after="num_train = int(train_ds.unbatch().take(4096).reduce(0, lambda n, _: n + 1))")
    assert f.verdict == WRONG and "divided twice" in f.evidence, f
