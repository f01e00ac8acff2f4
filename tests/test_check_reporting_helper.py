"""A project's structured-logging helper (`def emit(event, **fields): log.info(json.dumps({..., **fields}))`)
reports what it is given: `emit("epoch_end", val_loss=val_loss)` is the metric's report. A validation loss
of this rank's shard given to it unaveraged is step 8's fault; averaged first, it is fine; summed over ranks
and reported as it is, it is hvd.size() times the mean (blind set zd: ledgerline, sensorgrid).

Written from scratch for these tests: a fraud-model job, `train.py` and `jobs/telemetry.py`."""
from crash_scripts import Source, check_project
from hvdkit.check import MISSING, OK, WRONG

TRAIN = Source('''
    """Fraud MLP job.  horovodrun -np 4 python train.py"""
    import torch
    import horovod.torch as hvd

    from jobs.telemetry import emit


    def main():
        hvd.init()
        torch.set_num_threads(1)
        data = torch.utils.data.TensorDataset(torch.randn(8192, 30), torch.rand(8192).round())
        val = torch.utils.data.TensorDataset(torch.randn(2048, 30), torch.rand(2048).round())
        sampler = torch.utils.data.distributed.DistributedSampler(data, num_replicas=hvd.size(), rank=hvd.rank())
        val_sampler = torch.utils.data.distributed.DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank())
        loader = torch.utils.data.DataLoader(data, batch_size=256, sampler=sampler)
        val_loader = torch.utils.data.DataLoader(val, batch_size=256, sampler=val_sampler)
        model = torch.nn.Linear(30, 1)
        opt = hvd.DistributedOptimizer(torch.optim.Adam(model.parameters(), lr=1e-3 * hvd.size()),
                                       named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        criterion = torch.nn.BCEWithLogitsLoss()
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                criterion(model(x).squeeze(1), y).backward()
                opt.step()
            val_loss, seen = 0.0, 0
            with torch.no_grad():
                for x, y in val_loader:
                    val_loss += criterion(model(x).squeeze(1), y).item() * len(y)
                    seen += len(y)
            val_loss = torch.tensor(val_loss / seen)
            AVERAGE
            if hvd.rank() == 0:
                emit("epoch_end", epoch=epoch, val_loss=round(val_loss.item(), 5))
                torch.save(model.state_dict(), "fraud.pt")


    if __name__ == "__main__":
        main()
''')

TELEMETRY = '''
    import json
    import logging

    log = logging.getLogger("jobs")


    def emit(event, **fields):
        """One JSON line per event, for the pipeline's log collector."""
        log.info(json.dumps({"event": event, **fields}))
'''


def check(tmp_path, average):
    files = {"train.py": TRAIN.replace("AVERAGE", average), "jobs/__init__.py": "", "jobs/telemetry.py": TELEMETRY}
    return check_project(tmp_path, files)[2][8]


def test_a_shard_loss_given_to_the_logging_helper_is_not_averaged(tmp_path):
    assert check(tmp_path, "pass").verdict == MISSING


def test_averaged_before_it_is_logged_it_is_fine(tmp_path):
    assert check(tmp_path, "val_loss = hvd.allreduce(val_loss)").verdict == OK


def test_summed_and_logged_as_it_is_it_is_too_large(tmp_path):
    f8 = check(tmp_path, "val_loss = hvd.allreduce(val_loss, op=hvd.Sum)")
    assert f8.verdict == WRONG and "sums" in f8.evidence, f8
