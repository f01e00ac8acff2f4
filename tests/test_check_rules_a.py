"""`hvdkit check`, static pass, steps 2 (pin), 3 (shard) and 4 (LR) on code shaped like real projects: a
Trainer class, options with declared defaults, a configuration dict, helper functions. Each class of
mistake of issue 39 has a broken script flagged on its step and a correct twin flagged on none (both
written here, from scratch); the test of each pair fails with its rule taken back."""
import textwrap

import pytest

from hvdkit.check import FLAGGED, OK, WRONG
from hvdkit.check.static import analyze

# A PyTorch trainer as a project writes it. Markers (#NAME#) are replaced per test; the defaults below make
# a correct conversion in all eight steps.
TORCH_TRAINER = '''
"""Train a small classifier with Horovod.

    horovodrun -np 4 python train.py --epochs 2
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CONFIG = {"lr": 0.01, "momentum": 0.9, "batch_size": 32, "dp": False, "gpu_id": 0#CONFIG#}


def get_args():
    parser = argparse.ArgumentParser(description="classifier")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default="checkpoints")
    parser.add_argument("--base-lr", type=float, default=CONFIG["lr"])
#ARGS#
    return parser.parse_args()


def build_data(n=512):
    x = torch.randn(n, 16)
    return TensorDataset(x, (x.sum(1) > 0).long())


def pin(args):
#PIN#


class Trainer:
    def __init__(self, args):
        self.args = args
#DEVICE#
        self.model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2)).to(self.device)
#WRAP#
#OPTIMIZER#
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def loader(self, data):
#SAMPLER#
        return DataLoader(data, batch_size=CONFIG["batch_size"], sampler=sampler), sampler

    def train(self, data):
        loader, sampler = self.loader(data)
        for epoch in range(self.args.epochs):
            sampler.set_epoch(epoch)
#SCHEDULE#
            losses = [self.step(x.to(self.device), y.to(self.device)) for x, y in loader]
            mean = hvd.allreduce(torch.tensor(sum(losses) / max(len(losses), 1)), name="train_loss")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: loss {mean.item():.4f}")
                torch.save(self.model.state_dict(), os.path.join(self.args.out, f"model-{epoch}.pt"))

    def step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    args = get_args()
    hvd.init()
    pin(args)
    Trainer(args).train(build_data())


if __name__ == "__main__":
    main()
'''
DEFAULTS = {
    "CONFIG": "",
    "ARGS": "",
    "PIN": "    if torch.cuda.is_available():\n        torch.cuda.set_device(hvd.local_rank())",
    "DEVICE": '        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
    "WRAP": "",
    "OPTIMIZER": "        opt = torch.optim.SGD(self.model.parameters(), lr=args.base_lr * hvd.size(),\n"
                 '                              momentum=CONFIG["momentum"])',
    "SAMPLER": "        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())",
    "SCHEDULE": "",
}


def torch_trainer(**parts):
    src = TORCH_TRAINER
    for key, default in DEFAULTS.items():
        src = src.replace(f"#{key}#", parts.get(key, default))
    return src


def check(tmp_path, src, name="train.py"):
    """({step: Finding} flagged, {step: Finding}, notes) for the script `src`."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, notes, _ = analyze(str(path))
    return {n: f for n, f in findings.items() if f.verdict in FLAGGED}, findings, notes


def test_the_trainer_base_is_right_in_every_step(tmp_path):
    flagged, _, _ = check(tmp_path, torch_trainer())
    assert flagged == {}, flagged


# --- class 4: a guard on an option takes the option's declared default --------------------------------------
GPU_RANK_PIN = ("    if args.gpu_rank{test}:\n"
                "        torch.cuda.set_device(args.gpu_rank)\n"
                "    elif torch.cuda.is_available():\n"
                "        torch.cuda.set_device(hvd.local_rank())")


def test_gpu_given_by_an_option_that_is_unset_by_default_is_not_a_constant_pin(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--gpu_rank", type=int, default=None)',
                        PIN=GPU_RANK_PIN.format(test=""))
    flagged, findings, notes = check(tmp_path, src)
    assert flagged == {}, flagged
    assert findings[2].verdict == OK and any("--gpu_rank" in n for n in notes), notes


def test_gpu_given_by_an_option_set_by_default_is_every_rank_on_one_gpu(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--gpu_rank", type=int, default=0)',
                        PIN=GPU_RANK_PIN.format(test=" is not None"))
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [2] and flagged[2].verdict == WRONG, flagged
    assert "same GPU" in flagged[2].evidence


DATA_PARALLEL = "        if {test}:\n            self.model = nn.DataParallel(self.model)"


def test_data_parallel_behind_an_option_off_by_default_is_the_users_layout(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--dp", action="store_true", help="one rank per node")',
                        WRAP=DATA_PARALLEL.format(test="args.dp"))
    flagged, _, notes = check(tmp_path, src)
    assert flagged == {}, flagged
    assert any("with --dp" in n and "DataParallel" in n for n in notes), notes


def test_data_parallel_behind_a_config_entry_off_by_default_is_the_users_layout(tmp_path):
    flagged, _, notes = check(tmp_path, torch_trainer(WRAP=DATA_PARALLEL.format(test='CONFIG["dp"]')))
    assert flagged == {}, flagged
    assert any("with CONFIG['dp']" in n for n in notes), notes


def test_data_parallel_on_by_default_spreads_each_rank_over_every_gpu(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--no-dp", dest="dp", action="store_false")',
                        WRAP=DATA_PARALLEL.format(test="args.dp"))
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [2] and "DataParallel" in flagged[2].evidence, flagged


def test_data_parallel_in_a_config_on_by_default(tmp_path):
    src = torch_trainer(CONFIG=', "multi_gpu": True', WRAP=DATA_PARALLEL.format(test='CONFIG.get("multi_gpu", False)'))
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [2] and "DataParallel" in flagged[2].evidence, flagged


# --- step 2: a GPU index that every rank shares, whatever its spelling ---------------------------------------
def test_device_index_from_the_configuration_is_the_same_gpu_on_every_rank(tmp_path):
    device = ('        self.device = torch.device("cuda:" + str(CONFIG["gpu_id"]) '
              'if torch.cuda.is_available() else "cpu")')
    flagged, _, _ = check(tmp_path, torch_trainer(DEVICE=device))
    assert list(flagged) == [2] and "fixed GPU" in flagged[2].evidence, flagged


def test_device_index_from_the_local_rank_or_the_pinned_device_is_right(tmp_path):
    for device in ('        self.device = torch.device(f"cuda:{hvd.local_rank()}")',
                   '        self.device = torch.device("cuda:{}".format(torch.cuda.current_device()))'):
        flagged, _, _ = check(tmp_path, torch_trainer(DEVICE=device))
        assert flagged == {}, (device, flagged)


def test_device_from_an_option_without_default_raises_and_names_one_gpu(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--gpu", type=int, default=None, help="GPU id to use")',
                        DEVICE="        self.device = torch.device(args.gpu)")
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [2] and "--gpu" in flagged[2].evidence, flagged


@pytest.mark.parametrize("default,flags", [('"cuda:0"', True), ('"cuda"', False)])
def test_device_from_an_option_whose_default_names_one_gpu(tmp_path, default, flags):
    """`torch.device(args.device)` after set_device(local_rank): with `--device cuda:0` by default every rank
    puts its model on GPU 0; `cuda` alone is the pinned GPU."""
    src = torch_trainer(ARGS=f'    parser.add_argument("--device", default={default})',
                        DEVICE="        self.device = torch.device(args.device)")
    flagged, _, _ = check(tmp_path, src)
    if flags:
        assert list(flagged) == [2] and "'cuda:0' by default" in flagged[2].evidence, flagged
    else:
        assert flagged == {}, flagged


def test_every_gpu_made_visible_by_a_joined_list_is_not_a_pin(tmp_path):
    pin = ('    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(torch.cuda.device_count()))\n'
           "    if torch.cuda.is_available():\n"
           "        torch.cuda.set_device(hvd.local_rank())")
    flagged, _, _ = check(tmp_path, torch_trainer(PIN=pin))
    assert flagged == {}, flagged


# --- class 3: an optimizer is what the training steps with, whatever its class is called ---------------------
def test_an_optimizer_of_the_projects_own_library_is_found_by_what_the_training_wraps(tmp_path):
    made = ("        from optim.shampoo import Shampoo\n"
            "        opt = Shampoo(self.model.parameters(), lr=args.base_lr{scale}, epsilon=1e-4)")
    flagged, findings, _ = check(tmp_path, torch_trainer(OPTIMIZER=made.format(scale="")))
    assert list(flagged) == [4] and "Shampoo" in flagged[4].evidence, flagged
    flagged, findings, _ = check(tmp_path, torch_trainer(OPTIMIZER=made.format(scale=" * hvd.size()")))
    assert flagged == {} and "Shampoo" in findings[4].evidence, findings[4]


def test_an_optimizer_from_a_factory_call_is_found_by_what_the_training_steps_with(tmp_path):
    made = ("        from optim import registry\n"
            '        opt = registry.lookup(CONFIG.get("optimizer", "sgd"))(self.model.parameters(), lr={lr})')
    flagged, _, _ = check(tmp_path, torch_trainer(OPTIMIZER=made.format(lr="args.base_lr")))
    assert list(flagged) == [4], flagged
    flagged, _, _ = check(tmp_path, torch_trainer(OPTIMIZER=made.format(lr="args.base_lr * hvd.size()")))
    assert flagged == {}, flagged


def test_a_class_named_like_an_optimizer_that_the_training_does_not_use_is_not_one(tmp_path):
    # an LR finder built beside the real optimizer: named like an optimizer, never stepped, wrapped or compiled
    made = ("        opt = torch.optim.SGD(self.model.parameters(), lr=args.base_lr * hvd.size())\n"
            "        self.finder = LRFinderOptimizer(lr=1e-7, end_lr=10.0, steps=100)")
    flagged, _, _ = check(tmp_path, torch_trainer(OPTIMIZER=made))
    assert flagged == {}, flagged


# --- class 4: an unscaled LR that makes the sequential update -------------------------------------------------
UNSCALED_SGD = "        opt = torch.optim.SGD(self.model.parameters(), lr=args.base_lr, momentum=0.9)"
def test_a_fixed_global_batch_keeps_the_lr(tmp_path):
    src = torch_trainer(ARGS='    parser.add_argument("--global-batch", type=int, default=256)',
                        OPTIMIZER=UNSCALED_SGD)
    fixed = src.replace('batch_size=CONFIG["batch_size"]', "batch_size=self.args.global_batch // hvd.size()")
    flagged, findings, _ = check(tmp_path, fixed)
    assert flagged == {} and "global batch is fixed" in findings[4].evidence, findings[4]
    flagged, _, _ = check(tmp_path, src)  # the per-rank batch is the configured one: the global batch grows
    assert list(flagged) == [4], flagged


def test_gradients_summed_with_an_unscaled_lr_are_the_scaled_update(tmp_path):
    src = torch_trainer(OPTIMIZER=UNSCALED_SGD)
    summed = src.replace("named_parameters=self.model.named_parameters())",
                         "named_parameters=self.model.named_parameters(), op=hvd.Sum)")
    _, findings, _ = check(tmp_path, summed)
    assert findings[4].verdict == OK and "op=hvd.Sum" in findings[4].evidence, findings[4]
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [4], flagged


# --- class 6: the LR set again after the optimizer is built -----------------------------------------------------
STEP_DECAY = ("            for group in self.optimizer.param_groups:\n"
              "                group[\"lr\"] = {base} * (0.1 ** (epoch // 30))")


def test_a_hand_written_schedule_from_the_unscaled_base_overwrites_the_scaled_lr(tmp_path):
    flagged, _, _ = check(tmp_path, torch_trainer(SCHEDULE=STEP_DECAY.format(base="self.args.base_lr")))
    assert list(flagged) == [4] and flagged[4].verdict == WRONG and "overwrites" in flagged[4].evidence, flagged


def test_a_hand_written_schedule_from_the_scaled_base_is_right(tmp_path):
    flagged, _, _ = check(tmp_path, torch_trainer(SCHEDULE=STEP_DECAY.format(base="self.args.base_lr * hvd.size()")))
    assert flagged == {}, flagged


def test_a_schedule_behind_an_option_off_by_default_is_named_in_the_evidence(tmp_path):
    schedule = ("            if self.args.step_decay:\n"
                "                for group in self.optimizer.param_groups:\n"
                "                    group[\"lr\"] = self.args.base_lr * (0.1 ** (epoch // 30))")
    src = torch_trainer(ARGS='    parser.add_argument("--step-decay", action="store_true")', SCHEDULE=schedule)
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [4] and flagged[4].evidence.startswith("with --step-decay:"), flagged


ELASTIC = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=3)
    return parser.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.set_num_threads(1)
    x = torch.randn(512, 16)
    data = TensorDataset(x, (x.sum(1) > 0).long())
    sampler = hvd.elastic.ElasticSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = nn.Linear(16, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    def on_state_reset():
        # the number of ranks changed: the LR follows it
        for group in optimizer.param_groups:
            group["lr"] = #RESET#

    @hvd.elastic.run
    def train(state):
        for state.epoch in range(state.epoch, args.epochs):
            losses = []
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                state.sampler.record_batch(0, 32)
            mean = hvd.allreduce(torch.tensor(sum(losses) / len(losses)), name="loss")
            if hvd.rank() == 0:
                print(f"epoch {state.epoch}: loss {mean.item():.4f}")
                torch.save(model.state_dict(), f"model-{state.epoch}.pt")
            state.commit()

    state = hvd.elastic.TorchState(model=model, optimizer=optimizer, sampler=sampler, epoch=0)
    state.register_reset_callbacks([on_state_reset])
    train(state)


if __name__ == "__main__":
    main()
'''


def test_an_elastic_reset_that_multiplies_the_scaled_lr_again_compounds(tmp_path):
    flagged, _, _ = check(tmp_path, ELASTIC.replace("#RESET#", 'group["lr"] * hvd.size()'))
    assert 4 in flagged and flagged[4].verdict == WRONG and "again" in flagged[4].evidence, flagged


def test_an_elastic_reset_that_scales_the_base_lr_for_the_new_size_is_right(tmp_path):
    flagged, findings, _ = check(tmp_path, ELASTIC.replace("#RESET#", "args.lr * hvd.size()"))
    assert 4 not in flagged and findings[4].verdict == OK, findings[4]


TF_LOOP = '''
import argparse

import tensorflow as tf
import horovod.tensorflow as hvd


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--global-batch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=1000)
    return parser.parse_args()


def make_dataset(per_rank_batch):
    (x, y), _ = tf.keras.datasets.mnist.load_data()
    ds = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank())
    return ds.shuffle(10000).batch(per_rank_batch).repeat()


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        self.opt = tf.keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9)
        self.ckpt = tf.train.Checkpoint(model=self.model, optimizer=self.opt)

    @tf.function
    def step(self, x, y, first):
        with tf.GradientTape() as tape:
            per_example = tf.keras.losses.sparse_categorical_crossentropy(y, self.model(x), from_logits=True)
            loss = #LOSS#
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def fit(self, ds):
        for i, (x, y) in enumerate(ds.take(self.args.steps)):
            loss = self.step(x, y, i == 0)
            if i % 100 == 0:
                mean = hvd.allreduce(loss)
                if hvd.rank() == 0:
                    print(f"step {i}: loss {float(mean):.4f}")
                    self.ckpt.save("checkpoints/ckpt")


def pin_gpu():
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    local = tf.config.list_physical_devices("GPU")[hvd.local_rank():][:1]
    tf.config.set_visible_devices(local, "GPU")


def main():
    hvd.init()
    pin_gpu()
    args = get_args()
    Trainer(args).fit(make_dataset(args.global_batch // hvd.size()))


if __name__ == "__main__":
    main()
'''


def test_a_fixed_global_batch_with_each_ranks_mean_loss_keeps_the_lr(tmp_path):
    flagged, findings, _ = check(tmp_path, TF_LOOP.replace("#LOSS#", "tf.reduce_mean(per_example)"))
    assert flagged == {} and "global batch is fixed" in findings[4].evidence, findings[4]


def test_a_loss_divided_by_the_global_batch_needs_the_lr_scaled_even_with_a_fixed_global_batch(tmp_path):
    loss = "tf.nn.compute_average_loss(per_example, global_batch_size=self.args.global_batch)"
    flagged, _, _ = check(tmp_path, TF_LOOP.replace("#LOSS#", loss))
    assert list(flagged) == [4], flagged


# --- step 3: what the data flow says, not the names --------------------------------------------------------------
SPLIT_SAMPLERS = ("        samplers = {split: DistributedSampler(part, num_replicas=hvd.size(), rank=hvd.rank())\n"
                  "                    for split, part in {\"train\": data}.items()}\n"
                  "        sampler = #PICK#")


def test_samplers_built_in_a_dict_comprehension_and_picked_by_key_are_used(tmp_path):
    flagged, findings, _ = check(tmp_path, torch_trainer(SAMPLER=SPLIT_SAMPLERS.replace("#PICK#", 'samplers["train"]')))
    assert flagged == {} and findings[3].verdict == OK, findings[3]


def test_samplers_built_and_never_given_to_the_loader_are_not_used(tmp_path):
    sampler = SPLIT_SAMPLERS.replace("#PICK#", "None") + "\n        data = data"
    src = torch_trainer(SAMPLER=sampler).replace("sampler.set_epoch(epoch)", "pass")
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [3] and "not used" in flagged[3].evidence, flagged


def test_a_sampler_given_to_the_loader_as_its_data_set(tmp_path):
    src = torch_trainer().replace('DataLoader(data, batch_size=CONFIG["batch_size"], sampler=sampler)',
                                  'DataLoader(sampler, batch_size=CONFIG["batch_size"])')
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [3] and "as its data set" in flagged[3].evidence, flagged


def test_an_evaluation_partition_is_known_by_where_it_goes_not_by_its_name(tmp_path):
    # the training data is the one named like evaluation data, the held-out one is called `holdout`
    trainer = torch_trainer().replace("Trainer(args).train(build_data())", "Trainer(args).train(build_data())\n"
                                      "    holdout = build_data(128)\n"
                                      "    Trainer(args).score(holdout)")
    score = ("    def score(self, data):\n"
             "        part = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())\n"
             "        with torch.no_grad():\n"
             "            hits = sum(int((self.model(x).argmax(1) == y).sum())\n"
             "                       for x, y in DataLoader(data, sampler=part))\n"
             "        acc = hvd.allreduce(torch.tensor(hits / len(part)), name=\"holdout_acc\")\n"
             "        if hvd.rank() == 0:\n"
             "            print(f\"holdout accuracy {acc.item():.3f}\")\n\n"
             "    def step(self, x, y):\n")
    src = trainer.replace("    def step(self, x, y):\n", score, 1)
    flagged, findings, _ = check(tmp_path, src.replace("sampler = DistributedSampler(", "val_sampler = sampler = "
                                                       "DistributedSampler("))
    assert flagged == {}, flagged
    # without the training sampler the held-out partition does not make the training data sharded
    flagged, _, _ = check(tmp_path, src.replace(
        "sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())",
        "sampler = torch.utils.data.RandomSampler(data)"))
    assert 3 in flagged, flagged


def test_a_part_picked_by_the_local_rank_repeats_on_every_node(tmp_path):
    sampler = "        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.local_rank())"
    flagged, _, _ = check(tmp_path, torch_trainer(SAMPLER=sampler))
    assert list(flagged) == [3] and "ranks 0 and 4" in flagged[3].evidence, flagged


def test_a_slice_picked_by_the_local_rank_repeats_on_every_node(tmp_path):
    src = torch_trainer(SAMPLER="        sampler = torch.utils.data.RandomSampler(data)").replace(
        "    Trainer(args).train(build_data())",
        "    x, y = build_data().tensors\n"
        "    mine = TensorDataset(x[hvd.RANK()::hvd.size()], y[hvd.RANK()::hvd.size()])\n"
        "    Trainer(args).train(mine)").replace("sampler.set_epoch(epoch)", "pass")
    flagged, _, _ = check(tmp_path, src.replace("RANK", "local_rank"))
    assert list(flagged) == [3] and "local_rank" in flagged[3].evidence, flagged
    flagged, _, _ = check(tmp_path, src.replace("RANK", "rank"))
    assert flagged == {}, flagged


def test_a_partition_made_only_with_an_option_off_by_default(tmp_path):
    sampler = ("        sampler = torch.utils.data.RandomSampler(data) if self.args.local_rank == -1 else \\\n"
               "            DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())")
    src = torch_trainer(ARGS='    parser.add_argument("--local_rank", type=int, default=-1)', SAMPLER=sampler)
    flagged, _, _ = check(tmp_path, src.replace("sampler.set_epoch(epoch)", "pass"))
    assert list(flagged) == [3] and "--local_rank" in flagged[3].evidence, flagged
    src = torch_trainer(ARGS='    parser.add_argument("--local_rank", type=int, default=0)', SAMPLER=sampler)
    flagged, _, _ = check(tmp_path, src.replace("sampler.set_epoch(epoch)", "pass"))
    assert flagged == {}, flagged


# --- class 6: a partition of data each rank shuffled its own way ------------------------------------------------
SHUFFLED_SUBSET = ("        order = list(range(len(data)))\n"
                   "        #SHUFFLE#\n"
                   "        data = torch.utils.data.Subset(data, order)\n"
                   "        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())")


def test_a_partition_of_data_shuffled_without_a_common_seed_overlaps(tmp_path):
    src = torch_trainer(SAMPLER=SHUFFLED_SUBSET.replace("#SHUFFLE#", "random.shuffle(order)"))
    flagged, _, _ = check(tmp_path, src.replace("import argparse\n", "import argparse\nimport random\n"))
    assert list(flagged) == [3] and "without a common seed" in flagged[3].evidence, flagged


def test_a_partition_of_data_shuffled_with_a_common_seed_is_right(tmp_path):
    src = torch_trainer(SAMPLER=SHUFFLED_SUBSET.replace("#SHUFFLE#", "random.Random(1234).shuffle(order)"))
    flagged, _, _ = check(tmp_path, src.replace("import argparse\n", "import argparse\nimport random\n"))
    assert flagged == {}, flagged


def test_a_partition_of_data_shuffled_with_a_seed_per_rank_overlaps(tmp_path):
    per_rank = "random.Random(1234 + hvd.rank()).shuffle(order)"
    src = torch_trainer(SAMPLER=SHUFFLED_SUBSET.replace("#SHUFFLE#", per_rank))
    flagged, _, _ = check(tmp_path, src.replace("import argparse\n", "import argparse\nimport random\n"))
    assert list(flagged) == [3], flagged


def test_a_tf_data_shuffle_before_the_shard_over_arrays_a_seeded_generator_drew_overlaps(tmp_path):
    """The data was drawn by a seeded generator; the tf.data shuffle of it is not: its own order per rank."""
    made = ("    rng = np.random.default_rng(7)\n"
            "    x, y = rng.random((512, 28, 28)), rng.integers(0, 10, 512)\n"
            "    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512#SEED#).shard(hvd.size(), hvd.rank())")
    src = TF_LOOP.replace("#LOSS#", "tf.reduce_mean(per_example)").replace(
        "    (x, y), _ = tf.keras.datasets.mnist.load_data()\n"
        "    ds = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank())", made)
    src = src.replace("import tensorflow as tf\n", "import numpy as np\nimport tensorflow as tf\n", 1)
    flagged, _, _ = check(tmp_path, src.replace("#SEED#", ""))
    assert list(flagged) == [3] and "without a common seed" in flagged[3].evidence, flagged
    flagged, _, _ = check(tmp_path, src.replace("#SEED#", ", seed=7"))
    assert flagged == {}, flagged


def test_tfrecord_files_listed_in_a_random_order_then_sharded_overlap(tmp_path):
    files = 'tf.data.Dataset.list_files("data/train-*.tfrecord"#SHUFFLE#)'
    src = TF_LOOP.replace("#LOSS#", "tf.reduce_mean(per_example)").replace(
        "ds = tf.data.Dataset.from_tensor_slices((x / 255.0, y)).shard(hvd.size(), hvd.rank())",
        f"ds = {files}.shard(hvd.size(), hvd.rank()).interleave(tf.data.TFRecordDataset).map(parse)").replace(
        "    (x, y), _ = tf.keras.datasets.mnist.load_data()\n", "")
    parse = "def parse(record):\n    return tf.io.parse_tensor(record, tf.float32), 0\n\n\n"
    src = src.replace("def make_dataset(", parse + "def make_dataset(")
    flagged, _, _ = check(tmp_path, src.replace("#SHUFFLE#", ""))
    assert list(flagged) == [3] and "list_files" in flagged[3].evidence, flagged
    flagged, _, _ = check(tmp_path, src.replace("#SHUFFLE#", ", shuffle=False"))
    assert flagged == {}, flagged


# --- class 3: a count divided by hvd.size() is known by what it bounds, not by its name --------------------------
def _unsharded(rounds, sampler="None", shuffle="shuffle=True"):
    """The trainer without a partition (every rank shuffles the whole data), its epoch loop bounded by `rounds`."""
    src = torch_trainer(SAMPLER=f"        sampler = {sampler}")
    src = src.replace('DataLoader(data, batch_size=CONFIG["batch_size"], sampler=sampler)',
                      f'DataLoader(data, batch_size=CONFIG["batch_size"], sampler=sampler, {shuffle})'
                      if sampler == "None" else 'DataLoader(data, batch_size=CONFIG["batch_size"], sampler=sampler)')
    src = src.replace("            sampler.set_epoch(epoch)\n", "")
    return src.replace("        for epoch in range(self.args.epochs):", rounds)


ROUNDS = ("        n_rounds = math.ceil(self.args.epochs / hvd.size())  # the same samples as one worker\n"
          "        for epoch in range(n_rounds):")


def test_epochs_divided_by_size_over_a_per_rank_shuffle_whatever_their_name(tmp_path):
    flagged, findings, _ = check(tmp_path, _unsharded(ROUNDS).replace("import os\n", "import math\nimport os\n"))
    assert flagged == {} and "idiom" in findings[3].evidence, findings[3]


def test_epochs_divided_by_size_on_top_of_a_partition(tmp_path):
    sampler = "DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())"
    src = _unsharded(ROUNDS, sampler=sampler).replace("import os\n", "import math\nimport os\n")
    flagged, _, _ = check(tmp_path, src)
    assert list(flagged) == [3] and "epochs are divided" in flagged[3].evidence, flagged


def test_a_division_by_size_named_like_steps_that_bounds_nothing_is_not_the_idiom(tmp_path):
    rounds = ("        log_steps = max(1, 100 // hvd.size())\n"
              "        for epoch in range(self.args.epochs):\n"
              "            if epoch % log_steps == 0:\n"
              "                print(f\"epoch {epoch}\")")
    flagged, _, _ = check(tmp_path, _unsharded(rounds))
    assert list(flagged) == [3] and flagged[3].verdict == "missing", flagged


def _main_data(lines):
    """The trainer, without a sampler, training on the data that `lines` (in main) leave in `mine`."""
    src = torch_trainer(SAMPLER="        sampler = torch.utils.data.RandomSampler(data)")
    src = src.replace("            sampler.set_epoch(epoch)\n", "")
    return src.replace("    Trainer(args).train(build_data())", lines + "\n    Trainer(args).train(mine)")


def test_data_picked_by_hand_in_branches_on_the_rank_whatever_its_names(tmp_path):
    lines = ("    table = build_data(512)\n"
             "    if hvd.rank() == 0:\n"
             "        mine = rows(table, 0, 256)\n"
             "    elif hvd.rank() == 1:\n"
             "        mine = rows(table, 256, 512)")
    src = _main_data(lines).replace("def pin(args):", "def rows(table, lo, hi):\n"
                                    "    return torch.utils.data.Subset(table, range(lo, hi))\n\n\ndef pin(args):")
    flagged, findings, _ = check(tmp_path, src)
    assert flagged == {} and findings[3].verdict == OK, findings[3]


def test_a_file_per_rank_is_data_by_where_its_content_goes_whatever_reads_it(tmp_path):
    lines = ("    store = h5py.File(f\"shards/part-{hvd.rank()}.h5\", \"r\")\n"
             "    mine = TensorDataset(torch.tensor(store[\"x\"][:]), torch.tensor(store[\"y\"][:]))")
    src = _main_data(lines).replace("import os\n", "import os\n\nimport h5py\n")
    flagged, findings, _ = check(tmp_path, src)
    assert flagged == {} and "h5py" in findings[3].evidence, findings[3]
    # the same file read by every rank: no partition
    flagged, _, _ = check(tmp_path, src.replace('f"shards/part-{hvd.rank()}.h5"', '"shards/all.h5"'))
    assert list(flagged) == [3], flagged


def test_a_shuffle_before_the_partition_behind_an_option_is_wrong_with_the_option_named(tmp_path):
    shuffle = "if self.args.shuffle_first:\n            random.shuffle(order)"
    src = torch_trainer(ARGS='    parser.add_argument("--shuffle-first", action="store_true")',
                        SAMPLER=SHUFFLED_SUBSET.replace("#SHUFFLE#", shuffle))
    flagged, _, _ = check(tmp_path, src.replace("import argparse\n", "import argparse\nimport random\n"))
    assert list(flagged) == [3] and flagged[3].evidence.startswith("with --shuffle-first:"), flagged


def test_a_device_index_from_a_helper_the_source_does_not_show_is_no_evidence(tmp_path):
    device = "        self.device = torch.device(f\"cuda:{gpu_for(hvd)}\")"
    src = torch_trainer(DEVICE=device).replace("import os\n", "import os\n\nfrom cluster import gpu_for\n")
    flagged, _, _ = check(tmp_path, src)
    assert 2 not in flagged, flagged


def test_a_schedule_value_from_code_not_shown_is_no_evidence(tmp_path):
    schedule = ("            for group in self.optimizer.param_groups:\n"
                "                group[\"lr\"] = warmup_cosine(epoch, self.args.epochs)")
    src = torch_trainer(SCHEDULE=schedule).replace("import os\n", "import os\n\nfrom schedules import warmup_cosine\n")
    flagged, _, _ = check(tmp_path, src)
    assert 4 not in flagged, flagged


ABSL_CLICK = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
#IMPORTS#
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

#DECLARE#
def main(#PARAMS#):
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    model = nn.Linear(16, 2).cuda()
    if #DP#:
        model = nn.DataParallel(model)
    x = torch.randn(256, 16)
    data = TensorDataset(x, (x.sum(1) > 0).long())
    sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for xb, yb in DataLoader(data, batch_size=32, sampler=sampler):
            opt.zero_grad()
            F.cross_entropy(model(xb.cuda()), yb.cuda()).backward()
            opt.step()


#RUN#
'''
ABSL = {"IMPORTS": "from absl import app, flags", "PARAMS": "argv",
        "DECLARE": 'FLAGS = flags.FLAGS\nflags.DEFINE_bool("dp", {default}, "one rank per node over its GPUs")\n\n',
        "DP": "FLAGS.dp", "RUN": 'if __name__ == "__main__":\n    app.run(main)'}
CLICK = {"IMPORTS": "import click", "PARAMS": "dp",
         "DECLARE": '@click.command()\n@click.option("--dp", is_flag=True, default={default})', "DP": "dp",
         "RUN": 'if __name__ == "__main__":\n    main()'}


def _declared(parts, default):
    src = ABSL_CLICK
    for key, text in parts.items():
        src = src.replace(f"#{key}#", text.replace("{default}", default))
    return src


def test_absl_and_click_flags_take_their_declared_defaults(tmp_path):
    for parts in (ABSL, CLICK):
        flagged, _, notes = check(tmp_path, _declared(parts, "False"))
        assert 2 not in flagged and any("--dp" in n for n in notes), (parts["IMPORTS"], flagged, notes)
        flagged, _, _ = check(tmp_path, _declared(parts, "True"))
        assert 2 in flagged and "DataParallel" in flagged[2].evidence, (parts["IMPORTS"], flagged)


def test_a_projects_own_random_split_is_judged_by_its_code_not_its_name(tmp_path):
    """`tr, va = random_split(n, frac, seed)` of the script itself, seeding a generator alike on every rank:
    the split is the same everywhere and the sampler partitions it; a library's random_split would be drawn
    per rank without a seed keyword."""
    helper = ("def random_split(n, frac, seed):\n"
              "    order = np.random.default_rng(seed).permutation(n)\n"
              "    return order[int(n * frac):], order[:int(n * frac)]\n\n\n")
    split = ("        tr, _ = random_split(len(data), 0.1, 1234)\n"
             "        data = torch.utils.data.Subset(data, tr.tolist())\n"
             "        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())")
    src = torch_trainer(SAMPLER=split).replace("import argparse\n", "import argparse\n\nimport numpy as np\n", 1)
    src = src.replace("class Trainer", helper + "class Trainer", 1)
    flagged, _, _ = check(tmp_path, src)
    assert flagged == {}, flagged
