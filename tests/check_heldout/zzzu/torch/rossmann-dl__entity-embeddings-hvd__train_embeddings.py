# Entity embeddings for Rossmann store sales (Guo & Berkhahn style), horovod version
# usage: horovodrun -np 4 python train_embeddings.py --data ./data/train_joined.csv
import argparse
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', default='./data/train_joined.csv')
parser.add_argument('--epochs', type=int, default=10)
parser.add_argument('--batch-size', type=int, default=512)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--accum', type=int, default=2, help='gradient accumulation steps')
parser.add_argument('--save-dir', default='./checkpoints')
parser.add_argument('--emb-out', default='./embeddings')
args = parser.parse_args()

hvd.init()
torch.manual_seed(2015)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

CAT_VARS = ['Store', 'DayOfWeek', 'Year', 'Month', 'Day', 'StateHoliday', 'CompetitionMonthsOpen',
            'Promo2Weeks', 'StoreType', 'Assortment', 'PromoInterval', 'State', 'Week']
CONT_VARS = ['CompetitionDistance', 'Max_TemperatureC', 'Mean_Humidity', 'Mean_Wind_SpeedKm_h',
             'CloudCover', 'trend', 'AfterStateHoliday', 'BeforeStateHoliday', 'Promo', 'SchoolHoliday']

df = pd.read_csv(args.data, low_memory=False)
df = df[df.Sales > 0].reset_index(drop=True)
df = df.sort_values('Date')
n_valid = int(len(df) * 0.1)
train_df, valid_df = df.iloc[:-n_valid], df.iloc[-n_valid:]   # last ~6 weeks as validation, like kaggle

# categorical codes from the train part only, unseen -> 0
cat_maps = {}
for c in CAT_VARS:
    uniq = train_df[c].astype(str).unique()
    cat_maps[c] = {v: i + 1 for i, v in enumerate(sorted(uniq))}
cont_mean = train_df[CONT_VARS].mean()
cont_std = train_df[CONT_VARS].std().replace(0, 1)
max_log_y = np.log(train_df.Sales.max()) * 1.2


def encode(frame):
    xc = np.stack([frame[c].astype(str).map(cat_maps[c]).fillna(0).astype(np.int64).values for c in CAT_VARS], 1)
    xn = ((frame[CONT_VARS].fillna(cont_mean) - cont_mean) / cont_std).values.astype(np.float32)
    y = (np.log(frame.Sales.values) / max_log_y).astype(np.float32)
    return torch.from_numpy(xc), torch.from_numpy(xn), torch.from_numpy(y)


trn = encode(train_df)
val = encode(valid_df)

train_ds = torch.utils.data.TensorDataset(*trn)
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_ds, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler)
valid_sampler = torch.utils.data.distributed.DistributedSampler(
    torch.utils.data.TensorDataset(*val), num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
valid_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*val), batch_size=4096,
                                           sampler=valid_sampler)


class EmbNet(nn.Module):
    def __init__(self, cards, n_cont):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c + 1, min(50, (c + 2) // 2)) for c in cards])
        n_emb = sum(e.embedding_dim for e in self.embs)
        self.drop = nn.Dropout(0.04)
        self.bn = nn.BatchNorm1d(n_cont)
        self.mlp = nn.Sequential(nn.Linear(n_emb + n_cont, 1000), nn.ReLU(), nn.BatchNorm1d(1000), nn.Dropout(0.001),
                                 nn.Linear(1000, 500), nn.ReLU(), nn.BatchNorm1d(500), nn.Dropout(0.01),
                                 nn.Linear(500, 1))

    def forward(self, xc, xn):
        e = torch.cat([emb(xc[:, i]) for i, emb in enumerate(self.embs)], 1)
        x = torch.cat([self.drop(e), self.bn(xn)], 1)
        return torch.sigmoid(self.mlp(x).squeeze(-1))


model = EmbNet([len(cat_maps[c]) for c in CAT_VARS], len(CONT_VARS)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16, backward_passes=args.accum)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def rmspe_sums(pred, y):
    # back to sales scale
    p = torch.exp(pred * max_log_y)
    t = torch.exp(y * max_log_y)
    return (((t - p) / t) ** 2).sum(), torch.tensor(float(len(t)))


os.makedirs(args.save_dir, exist_ok=True)
best = float('inf')
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for i, (xc, xn, y) in enumerate(train_loader):
        xc, xn, y = xc.to(device), xn.to(device), y.to(device)
        loss = nn.functional.mse_loss(model(xc, xn), y) / args.accum
        loss.backward()
        if (i + 1) % args.accum == 0:
            optimizer.step()
            optimizer.zero_grad()

    model.eval()
    se, cnt = torch.tensor(0.), torch.tensor(0.)
    with torch.no_grad():
        for xc, xn, y in valid_loader:
            s, n = rmspe_sums(model(xc.to(device), xn.to(device)).cpu(), y)
            se += s
            cnt += n
    se = hvd.allreduce(se, op=hvd.Sum, name='se')
    cnt = hvd.allreduce(cnt, op=hvd.Sum, name='cnt')
    rmspe = torch.sqrt(se / cnt).item()
    if hvd.rank() == 0:
        print('epoch %d  valid RMSPE %.5f  (%.1fs)' % (epoch, rmspe, time.time() - t0))

    if rmspe < best:
        best = rmspe
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'rmspe': rmspe},
                   os.path.join(args.save_dir, 'emb_model_best.pt'))

# dump the learned store embedding for the feature-importance / t-SNE notebook
if hvd.rank() == 0:
    os.makedirs(args.emb_out, exist_ok=True)
    for c, emb in zip(CAT_VARS, model.embs):
        np.save(os.path.join(args.emb_out, f'{c}.npy'), emb.weight.detach().cpu().numpy())
