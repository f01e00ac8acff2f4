import numpy as np
import torch
import horovod.torch as hvd


def train_one_epoch(model, loader, optimizer, loss_fn, device):
    model.train()
    total, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
        n += len(xb)
    return total / max(n, 1)


@torch.no_grad()
def predict_rows(model, X, rows, device, batch_size=4096):
    """Predict X[rows] on this rank only."""
    model.eval()
    out = []
    for s in range(0, len(rows), batch_size):
        xb = torch.from_numpy(X[rows[s:s + batch_size]]).to(device)
        out.append(model(xb).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def gather_predictions(X, rows, model, device):
    """Every rank predicts a strided slice of `rows`; the slices are all-gathered
    and put back in row order, so each rank ends up with predictions for all rows."""
    mine = rows[hvd.rank()::hvd.size()]
    pieces = hvd.allgather_object((mine, predict_rows(model, X, mine, device)))
    pos = {r: i for i, r in enumerate(rows)}
    full = np.zeros(len(rows), dtype=np.float32)
    for idx, pred in pieces:
        full[[pos[r] for r in idx]] = pred
    return full
