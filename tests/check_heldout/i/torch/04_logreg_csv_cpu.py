# Logistic regression on a tabular CSV (credit default), CPU nodes only.
#   srun -n 32 python 04_logreg_csv_cpu.py
import os
import sys
import numpy as np
import pandas as pd
import torch
import horovod.torch as hvd

CSV = os.environ.get("DATA_CSV", "/project/tabular/credit_default.csv")
TARGET = "default"
EPOCHS = 25
BATCH = 256
BASE_LR = 0.05
OUT = "logreg_model.pt"

hvd.init()
torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
torch.manual_seed(0)

df = pd.read_csv(CSV)
df = df.sample(frac=1.0, random_state=42).reset_index(drop=True)   # same order on every rank
n_test = int(0.2 * len(df))
test_df, train_df = df.iloc[:n_test], df.iloc[n_test:]

features = [c for c in df.columns if c != TARGET]
mu = train_df[features].mean()
sd = train_df[features].std().replace(0, 1.0)

# every rank keeps rows rank, rank+size, ... of the training part
my_train = train_df.iloc[hvd.rank()::hvd.size()]
X = torch.tensor(((my_train[features] - mu) / sd).values, dtype=torch.float32)
y = torch.tensor(my_train[TARGET].values, dtype=torch.float32)
X_test = torch.tensor(((test_df[features] - mu) / sd).values, dtype=torch.float32)
y_test = torch.tensor(test_df[TARGET].values, dtype=torch.float32)

if hvd.rank() == 0:
    print(f"{len(train_df)} train rows over {hvd.size()} ranks, {len(test_df)} test rows, "
          f"{len(features)} features", flush=True)

model = torch.nn.Linear(len(features), 1)
loss_fn = torch.nn.BCEWithLogitsLoss()
opt = torch.optim.SGD(model.parameters(), lr=BASE_LR * hvd.size(), momentum=0.9)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)

gen = torch.Generator().manual_seed(1000 + hvd.rank())
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X), generator=gen)
    loss_sum = torch.zeros(1)
    seen = torch.zeros(1)
    for start in range(0, len(X), BATCH):
        idx = perm[start:start + BATCH]
        xb, yb = X[idx], y[idx]
        opt.zero_grad()
        loss = loss_fn(model(xb).squeeze(1), yb)
        loss.backward()
        opt.step()
        loss_sum += loss.detach() * len(idx)
        seen += len(idx)
    # shards differ by one row, so a rank may have one batch fewer: wait for the others
    hvd.join()

    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="loss_sum")
    seen = hvd.allreduce(seen, op=hvd.Sum, name="seen")
    train_loss = (loss_sum / seen).item()

    # test split is the same on every rank, and so are the weights
    model.eval()
    with torch.no_grad():
        logits = model(X_test).squeeze(1)
        test_loss = loss_fn(logits, y_test).item()
        acc = ((logits > 0).float() == y_test).float().mean().item()

    if hvd.rank() == 0:
        print(f"epoch {epoch + 1:2d}/{EPOCHS} train_loss {train_loss:.4f} "
              f"test_loss {test_loss:.4f} test_acc {acc:.4f}", flush=True)

if hvd.rank() == 0:
    torch.save({"state_dict": model.state_dict(), "mu": mu.values, "sd": sd.values,
                "features": features}, OUT)
    print("saved", OUT)
