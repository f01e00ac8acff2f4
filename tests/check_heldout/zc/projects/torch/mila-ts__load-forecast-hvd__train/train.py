"""Day-ahead load forecasting (168 h history -> 24 h horizon) with Horovod data parallelism."""
import argparse

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from forecast.io import save_checkpoint
from forecast.model import GRUForecaster
from forecast.series import Scaler, load_series, split_by_time
from forecast.windows import SlidingWindows

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default=None, help="hourly load, one column per zone")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=256, help="windows per worker")
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--history", type=int, default=168)
parser.add_argument("--horizon", type=int, default=24)
parser.add_argument("--run-dir", default="runs/load_gru")


def evaluate(model, loader, device):
    model.eval()
    sq_sum, count = torch.zeros(1), torch.zeros(1)
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device))
            sq_sum += F.mse_loss(pred, y.to(device), reduction="sum").cpu()
            count += y.numel()
    sq_sum = hvd.allreduce(sq_sum, op=hvd.Sum, name="val_sq")
    count = hvd.allreduce(count, op=hvd.Sum, name="val_n")
    return (sq_sum / count).item()


def main():
    args = parser.parse_args()
    hvd.init()
    torch.manual_seed(1234)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    series = load_series(args.csv)
    train_part, val_part, _ = split_by_time(series)
    scaler = Scaler().fit(train_part)  # every worker reads the whole series: identical statistics
    train_ds = SlidingWindows(scaler.transform(train_part), args.history, args.horizon)
    val_ds = SlidingWindows(scaler.transform(val_part), args.history, args.horizon, stride=args.horizon)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler)

    model = GRUForecaster(series.shape[1], args.horizon).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
        val_mse = evaluate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train mse (last batch, rank 0) {loss.item():.4f}  val mse {val_mse:.4f}")
        save_checkpoint(args.run_dir, epoch, model, optimizer, {"val_mse": val_mse})


if __name__ == "__main__":
    main()
