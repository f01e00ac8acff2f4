"""An option's declared default is what it holds when the user gives none (issue 39, item 4): a
`--local-rank` option whose default is the launcher's local rank (`OMPI_COMM_WORLD_LOCAL_RANK`, read where
the parser is built) pins each rank's own GPU through `set_device(args.local_rank)`; one whose default is 0
puts every rank on GPU 0.

Written from scratch for these tests: the options come from a parse_args() helper, as in research code."""
import textwrap

from crash_scripts import Source, check

SCRIPT = Source(textwrap.dedent("""
    import argparse
    import os

    import torch
    import horovod.torch as hvd
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler


    def parse_args():
        p = argparse.ArgumentParser()
        p.add_argument("--local-rank", type=int, default=DEFAULT)
        p.add_argument("--lr", type=float, default=0.01)
        p.add_argument("--epochs", type=int, default=3)
        return p.parse_args()


    def main():
        args = parse_args()
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        data = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
        sampler = DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(data, batch_size=32, sampler=sampler)
        model = torch.nn.Linear(8, 1).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        for epoch in range(args.epochs):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
                loss.backward()
                opt.step()
            avg = hvd.allreduce(loss.detach(), name="loss")
            if hvd.rank() == 0:
                print(epoch, avg.item())
                torch.save(model.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
""").lstrip())


def test_a_local_rank_option_defaulting_to_the_launchers_local_rank_pins(tmp_path):
    env = SCRIPT.replace("DEFAULT", 'int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", 0))')
    assert check(tmp_path, env) == (None, {})


def test_a_local_rank_option_defaulting_to_zero_is_one_gpu_for_all(tmp_path):
    assert check(tmp_path, SCRIPT.replace("DEFAULT", "0")) == (None, {2: "wrong"})
