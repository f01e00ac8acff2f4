"""`hvdkit check`, static pass, steps 2 (pin), 3 (shard) and 4 (LR) on code shaped like real projects: a
Trainer class, options with declared defaults, a configuration dict, helper functions. Each class of
mistake of issue 39 has a broken script flagged on its step and a correct twin flagged on none (both
written here, from scratch); the test of each pair fails with its rule taken back."""
import textwrap

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
    device = '        self.device = torch.device("cuda:" + str(CONFIG["gpu_id"]) if torch.cuda.is_available() else "cpu")'
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


def test_every_gpu_made_visible_by_a_joined_list_is_not_a_pin(tmp_path):
    pin = ('    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(torch.cuda.device_count()))\n'
           "    if torch.cuda.is_available():\n"
           "        torch.cuda.set_device(hvd.local_rank())")
    flagged, _, _ = check(tmp_path, torch_trainer(PIN=pin))
    assert flagged == {}, flagged
