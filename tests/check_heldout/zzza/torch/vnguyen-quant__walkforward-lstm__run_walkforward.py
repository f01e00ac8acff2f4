"""Rolling walk-forward re-training of an LSTM return forecaster.

Every period the model is re-fitted from scratch on all data before the test window.
"""
import argparse

import numpy as np
import torch
import horovod.torch as hvd

from wf.splits import walk_forward
from wf.dataset import synthetic_prices, make_loaders
from wf.trainer import LSTMForecaster, PeriodTrainer
from wf import io


def get_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--returns", help="npz with dates and rets; synthetic if omitted")
    ap.add_argument("--lookback", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--epochs-per-period", type=int, default=5)
    ap.add_argument("--periods", type=int, default=4)
    ap.add_argument("--first-test", default="2018-01-01")
    ap.add_argument("--out", default="runs/walkforward")
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())  # different dropout masks per worker
    np.random.seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.set_num_threads(2)

    if args.returns:
        blob = np.load(args.returns)
        dates, rets = blob["dates"], blob["rets"].astype(np.float32)
    else:
        dates, rets = synthetic_prices()
    periods = walk_forward(dates, first_test=args.first_test, n_periods=args.periods)

    trainer = PeriodTrainer(lr=args.lr * hvd.size(), device=device, epochs=args.epochs_per_period)
    rows = []
    for period in periods:
        train_loader, test_loader, sampler = make_loaders(rets, period, args.lookback, args.batch_size)
        trainer.reset(LSTMForecaster(rets.shape[1]))
        trainer.fit(train_loader, sampler)
        metrics = trainer.evaluate(test_loader)
        if hvd.rank() == 0:
            print(f"[{period.name}] train={len(period.train_idx)}d test={len(period.test_idx)}d "
                  f"mse={metrics['mse']:.5f} hit={metrics['hit_rate']:.3f}", flush=True)
        io.save_period(trainer.model, args.out, period.name)
        rows.append({"period": period.name, **metrics})
    io.write_report(rows, args.out)


if __name__ == "__main__":
    main()
