"""Step 7: a checkpoint saver kept in a name that only rank 0 fills (timm's train.py idiom):

    saver = None
    if hvd.rank() == 0:
        saver = CheckpointSaver(model, optimizer, out)
    ...
    if saver is not None:
        saver.save_checkpoint(epoch)

`saver is not None` holds on rank 0 alone: rank 0 writes (ok). Filled on each node's first rank, or on
every rank, the same test lets several ranks write (flagged).

Written from scratch for these tests: a torch training script with its saver class."""
import pytest

from hvdkit.check import FLAGGED

from crash_scripts import Source, check

SCRIPT = Source('''
    """Image classifier.  horovodrun -np 4 python train.py"""
    import os

    import torch
    import horovod.torch as hvd


    class CheckpointSaver:
        def __init__(self, model, optimizer, out):
            self.model, self.optimizer, self.out = model, optimizer, out
            os.makedirs(out, exist_ok=True)

        def save_checkpoint(self, epoch):
            state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(), "epoch": epoch}
            torch.save(state, os.path.join(self.out, f"checkpoint-{epoch}.pth.tar"))


    def main():
        hvd.init()
        torch.set_num_threads(1)
        x = torch.randn(4096, 16)[hvd.rank()::hvd.size()]
        y = (x[:, 0] > 0).long()
        model = torch.nn.Linear(16, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05 * hvd.size())
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        saver = None
        {made}
        for epoch in range(5):
            for i in range(0, len(x), 64):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x[i:i + 64]), y[i:i + 64])
                loss.backward()
                optimizer.step()
            avg = hvd.allreduce(loss.detach(), name="loss")
            if saver is not None:
                print(f"epoch {epoch} loss {avg.item():.4f}")
                saver.save_checkpoint(epoch)


    if __name__ == "__main__":
        main()
''')

MADE = 'saver = CheckpointSaver(model, optimizer, "runs")'


def flagged(tmp_path, made):
    return check(tmp_path, SCRIPT.replace("{made}", made))[1]


def test_a_saver_only_rank0_makes_writes_on_rank0_alone(tmp_path):
    assert flagged(tmp_path, f"if hvd.rank() == 0:\n            {MADE}") == {}


@pytest.mark.parametrize("made", [f"if hvd.local_rank() == 0:\n            {MADE}", MADE],
                         ids=["each node's first rank", "every rank"])
def test_a_saver_other_ranks_make_too_lets_them_write(tmp_path, made):
    assert flagged(tmp_path, made).get(7) in FLAGGED
