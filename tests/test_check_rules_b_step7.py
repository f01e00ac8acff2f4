"""`hvdkit check`, static pass, step 7 (checkpoints written by rank 0 only) judged by what the code computes
(issue 39, classes 3 and 4): who writes is decided by whether a condition's value tells the ranks apart (by
its value on rank 0 and rank 1, or by data flow from hvd.rank() / hvd.local_rank()), never by a flag's name
(`is_master`, `rank`, `chief`); a condition read from code the pass cannot read gives "cannot tell"; a save
behind a switch that is off is still every rank's write, with the switch named; a file is a checkpoint by
what is saved in it; a copy of the checkpoint file is a write of it. Scripts written from scratch in the
shape of real trainers; each broken one is flagged on step 7, its correct twin is not. No framework is
imported."""
from hvdkit.check import OK, UNKNOWN, WRONG
from rules_b_scripts import finding


def _step7(tmp_path, src):
    return finding(tmp_path, src, 7)


TRAINER = '''
    import os
    import shutil
    from types import SimpleNamespace

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    {imports}

    SAVE_CHECKPOINTS = {switch}


    def setup():
        hvd.init()
        torch.set_num_threads(1)
        return SimpleNamespace(rank=hvd.rank(), size=hvd.size(), local_rank=hvd.local_rank())


    def save_checkpoint(model, opt, epoch, path):
    {helper_guard}
        torch.save({{"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}}, path)
        return path


    class Trainer:
        def __init__(self, dist, model, out_dir="runs"):
            self.dist, self.model, self.out_dir = dist, model, out_dir
            {master}
            opt = torch.optim.SGD(model.parameters(), lr=0.01 * dist.size)
            self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
            hvd.broadcast_parameters(model.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        def fit(self, loader, sampler, epochs=3):
            for epoch in range(epochs):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                avg = hvd.allreduce(loss.detach(), name="loss")
    {save}


    def main():
        dist = setup()
        data = TensorDataset(torch.randn(512, 10), torch.randint(0, 3, (512,)))
        sampler = DistributedSampler(data, num_replicas=dist.size, rank=dist.rank)
        model = nn.Linear(10, 3)
        Trainer(dist, model).fit(DataLoader(data, batch_size=32, sampler=sampler), sampler)


    if __name__ == "__main__":
        main()
'''
GUARDED = '''            if {guard}:
                    print(f"epoch {{epoch}} loss {{avg.item():.4f}}")
                    torch.save(self.model.state_dict(), os.path.join(self.out_dir, "model.pt"))'''


def _trainer(guard="self.dist.rank == 0", master="", save=None, imports="", switch="True", helper_guard=""):
    save = save if save is not None else GUARDED.format(guard=guard)
    return TRAINER.format(save=save, master=master, imports=imports, switch=switch, helper_guard=helper_guard)


def test_a_rank_held_in_an_object_built_from_the_rank_guards_the_save(tmp_path):
    # Before, `dist.rank == 0` counted by the words in it; now its value is followed: setup() returns
    # SimpleNamespace(rank=hvd.rank()).
    assert _step7(tmp_path, _trainer()).verdict == OK


def test_a_rank_that_is_a_constant_is_no_guard(tmp_path):
    guard = "            if rank == 0:"
    src = _trainer(guard="rank == 0").replace(guard, "            rank = 0\n" + guard)
    assert "rank = 0\n" in src
    # Before: a guard whose text says "rank" made the save rank 0's: ok.
    f = _step7(tmp_path, src)
    assert f.verdict == WRONG and "every rank" in f.evidence, f.evidence


def test_a_flag_named_master_set_from_the_local_rank_is_one_writer_per_node(tmp_path):
    src = _trainer(guard="self.is_master", master="self.is_master = hvd.local_rank() == 0")
    # Before: "master" in the guard made it rank 0's: ok.
    f = _step7(tmp_path, src)
    assert f.verdict == WRONG and "local rank 0" in f.evidence, f.evidence
    assert _step7(tmp_path, _trainer(guard="self.is_master", master="self.is_master = hvd.rank() == 0")).verdict == OK


def test_a_guard_read_from_code_that_cannot_be_read_cannot_tell(tmp_path):
    src = _trainer(guard="is_main_process()", imports="from lab_utils.dist import is_main_process")
    # Before: "main_proc" in the guard made it rank 0's: ok. Nothing the pass reads says so.
    f = _step7(tmp_path, src)
    assert f.verdict == UNKNOWN and "is_main_process()" in f.evidence, f.evidence


BEST = '''            score = validate(self.model)
                if {guard}:
                    self.best = score
                    torch.save(self.model.state_dict(), os.path.join(self.out_dir, "best.pt"))'''


def test_a_score_compared_with_its_best_so_far_picks_epochs_not_ranks(tmp_path):
    """`if score > self.best: self.best = score; save` with the score from code that cannot be read: the
    comparison picks the epochs that improved, on whichever ranks they improved; it is no rank guard."""
    unread = "from lab_utils.metrics import validate"
    f = _step7(tmp_path, _trainer(save=BEST.format(guard="score > self.best"), imports=unread))
    # Before: "its condition reads validate(self.model), whose code is not read": cannot tell.
    assert f.verdict == WRONG and "every rank writes" in f.evidence, f.evidence
    fixed = _trainer(save=BEST.format(guard="self.dist.rank == 0 and score > self.best"), imports=unread)
    assert _step7(tmp_path, fixed).verdict == OK
    # A value of that code tested for itself, not against its own past, may tell ranks apart: cannot tell.
    f = _step7(tmp_path, _trainer(save=BEST.format(guard="score > 0.5"), imports=unread))
    assert f.verdict == UNKNOWN and "validate(self.model)" in f.evidence, f.evidence


def test_a_save_behind_a_switch_that_is_off_is_still_every_ranks_write(tmp_path):
    src = _trainer(guard="SAVE_CHECKPOINTS", switch="False")
    # Before: a save that does not run with the switch as it is was no write at all: ok.
    f = _step7(tmp_path, src)
    assert f.verdict == WRONG and f.evidence.startswith("when `SAVE_CHECKPOINTS`:"), f.evidence
    assert _step7(tmp_path, _trainer(guard="SAVE_CHECKPOINTS and hvd.rank() == 0", switch="False")).verdict == OK


HELPER_SAVE = '''            path = os.path.join(self.out_dir, f"ckpt-{epoch}.pt")
                save_checkpoint(self.model, self.opt, epoch, path)'''


def test_a_helper_that_returns_early_on_other_ranks_writes_on_rank_0(tmp_path):
    early = "    if hvd.rank() != 0:\n            return None"
    assert _step7(tmp_path, _trainer(save=HELPER_SAVE, helper_guard=early)).verdict == OK
    f = _step7(tmp_path, _trainer(save=HELPER_SAVE, helper_guard="    pass"))
    assert f.verdict == WRONG and "every rank" in f.evidence, f.evidence


def test_a_file_is_a_checkpoint_by_what_is_saved_in_it(tmp_path):
    embeddings = GUARDED.format(guard="self.dist.rank == 0") + '''
                with torch.no_grad():
                    codes = self.model(torch.eye(10))
                torch.save(codes, os.path.join(self.out_dir, f"codes-{hvd.rank()}.pt"))'''
    # Before: any torch.save was the checkpoint: "every rank writes the checkpoint".
    assert _step7(tmp_path, _trainer(save=embeddings)).verdict == OK
    log = GUARDED.format(guard="self.dist.rank == 0") + '''
                checkpoint_log = open(os.path.join(self.out_dir, f"rank{hvd.rank()}.log"), "a")
                checkpoint_log.write(f"{epoch} {avg.item()}\\n")'''
    # Before: a write on an object whose name says "checkpoint" was a checkpoint.
    assert _step7(tmp_path, _trainer(save=log)).verdict == OK


def test_a_copy_of_the_checkpoint_on_every_rank_is_a_write(tmp_path):
    copy = GUARDED.format(guard="self.dist.rank == 0") + '''
                if epoch % 2 == 1:
                    shutil.copyfile(os.path.join(self.out_dir, "model.pt"), os.path.join(self.out_dir, "best.pt"))'''
    # Before: only save calls were writes: ok.
    f = _step7(tmp_path, _trainer(save=copy))
    assert f.verdict == WRONG and "copy of the checkpoint" in f.evidence, f.evidence
    guarded = copy.replace("if epoch % 2 == 1:", "if epoch % 2 == 1 and hvd.rank() == 0:")
    assert _step7(tmp_path, _trainer(save=guarded)).verdict == OK


def test_a_copy_of_a_checkpoint_named_by_a_config_module_on_every_rank_is_a_write(tmp_path):
    """The checkpoint's path is an attribute of the project's config module (`C.CKPT`): a name the path is made
    of, though its root is a module."""
    save = GUARDED.format(guard="self.dist.rank == 0").replace('os.path.join(self.out_dir, "model.pt")', "C.CKPT")
    copy = save + '''
                os.system("cp {} {}.epoch{}".format(C.CKPT, C.CKPT.split(".")[0], epoch))'''
    f = _step7(tmp_path, _trainer(save=copy, imports="import config as C"))
    assert f.verdict == WRONG and "copy of the checkpoint" in f.evidence, f.evidence
    indent = " " * 16
    guarded = copy.replace(indent + "os.system(", indent + "if hvd.rank() == 0:\n" + indent + "    os.system(")
    assert _step7(tmp_path, _trainer(save=guarded, imports="import config as C")).verdict == OK


def test_a_copy_built_with_the_same_path_functions_into_another_folder_is_no_checkpoint_write(tmp_path):
    """A per-node cache: local rank 0 copies files between two other folders with `os.path.join`, the function
    the checkpoint's path is made with; only the names a path is made of say it is the checkpoint's."""
    cache = GUARDED.format(guard="self.dist.rank == 0") + '''
                if hvd.local_rank() == 0:
                    for name in os.listdir("/shared/tiles"):
                        shutil.copy2(os.path.join("/shared/tiles", name), os.path.join("/scratch/tiles", name))'''
    # Before: `os.path.join` was read as a name of the checkpoint's path: "a copy of the checkpoint ... by local
    # rank 0".
    assert _step7(tmp_path, _trainer(save=cache)).verdict == OK
