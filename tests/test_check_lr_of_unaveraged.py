"""`hvdkit check`, steps 4, 5 and 6, on a multi-task trainer with two optimizers: the network's, wrapped in
hvd.DistributedOptimizer with its LR scaled by hvd.size(), and a second, plain one for the learned loss
weights. The second steps with each rank's own gradients: that is step 5's fault, reported once there.
Whether its LR is scaled is no question of step 4 (an LR scaled for an averaged gradient); step 4 judges
the optimizer whose gradients are averaged. The loss weights start at zeros on every rank: they need no
broadcast (step 6), where weights drawn at random would.

Written from scratch for these tests: a plasma-disruption predictor with two losses."""
import textwrap

from hvdkit.check.findings import MISSING, OK, WRONG
from hvdkit.check.static import analyze

SCRIPT = textwrap.dedent("""
    import horovod.torch as hvd
    import torch


    class LossWeights(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.log_vars = torch.nn.Parameter(torch.zeros(n))

        def forward(self, losses):
            return sum(torch.exp(-lv) * l + lv for lv, l in zip(self.log_vars, losses))


    def main():
        hvd.init()
        torch.set_num_threads(1)
        x, y_class, y_time = torch.randn(4096, 16, 8), torch.randint(0, 2, (4096,)), torch.rand(4096)
        data = torch.utils.data.TensorDataset(x, y_class, y_time)
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=64, sampler=sampler)
        net = torch.nn.LSTM(8, 32, batch_first=True)
        head = torch.nn.Linear(32, 3)
        weights = LossWeights(2)
        params = list(net.parameters()) + list(head.parameters())
        opt = torch.optim.Adam(params, lr=NET_LR)
        opt = hvd.DistributedOptimizer(opt, named_parameters=[*net.named_parameters(), *head.named_parameters()])
        opt_w = torch.optim.Adam(weights.parameters(), lr=1e-2)
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_parameters(head.state_dict(), root_rank=0)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for xb, yc, yt in loader:
                out = head(net(xb)[0][:, -1])
                losses = [torch.nn.functional.cross_entropy(out[:, :2], yc),
                          torch.nn.functional.mse_loss(out[:, 2], yt)]
                loss = weights(losses)
                opt.zero_grad()
                opt_w.zero_grad()
                loss.backward()
                opt.step()
                opt_w.step()
            mean = hvd.allreduce(loss.detach())
            if hvd.rank() == 0:
                print(epoch, mean.item())
                torch.save(net.state_dict(), "net.pt")


    if __name__ == "__main__":
        main()
""").lstrip()


def _findings(tmp_path, net_lr):
    (tmp_path / "train.py").write_text(SCRIPT.replace("NET_LR", net_lr))
    return analyze(str(tmp_path / "train.py"))[0]


def test_the_plain_second_optimizer_is_step_5s_fault_alone(tmp_path):
    findings = _findings(tmp_path, "1e-3 * hvd.size()")
    assert findings[5].verdict == WRONG and "not wrapped" in findings[5].evidence
    assert findings[4].verdict == OK


def test_the_averaged_optimizers_lr_left_unscaled_is_still_missing(tmp_path):
    findings = _findings(tmp_path, "1e-3")
    assert findings[4].verdict == MISSING and "lr=1e-3)" in findings[4].evidence


def test_loss_weights_made_of_zeros_start_alike_on_every_rank_without_a_broadcast(tmp_path):
    # step 6: `weights` is trained and never broadcast, but its only parameter is torch.zeros(n) everywhere
    assert _findings(tmp_path, "1e-3 * hvd.size()")[6].verdict == OK


def test_loss_weights_drawn_at_random_differ_between_ranks_without_a_broadcast(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT.replace("NET_LR", "1e-3 * hvd.size()").replace(
        "torch.nn.Parameter(torch.zeros(n))", "torch.nn.Parameter(torch.randn(n))"))
    f = analyze(str(tmp_path / "train.py"))[0][6]
    assert f.verdict == WRONG and "`weights` is trained" in f.evidence
