"""
R-GCN entity classification (AIFB / MUTAG / BGS / AM) with basis decomposition.
Multi-worker with horovod: the whole graph is on every worker, labelled entities are split.

python main.py -d aifb --n-bases 0 --hidden 16
horovodrun -np 2 python main.py -d am --n-bases 40
"""
import argparse, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

p = argparse.ArgumentParser(description='RGCN')
p.add_argument("-d", "--dataset", type=str, default="aifb")
p.add_argument("--data-root", type=str, default="./data")
p.add_argument("--hidden", type=int, default=16)
p.add_argument("--n-bases", type=int, default=-1, help="-1: no decomposition")
p.add_argument("--n-layers", type=int, default=2)
p.add_argument("--dropout", type=float, default=0.0)
p.add_argument("--edge-drop", type=float, default=0.2)
p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--l2norm", type=float, default=5e-4)
p.add_argument("--n-epochs", type=int, default=50)
p.add_argument("--xavier", type=int, default=1, help="re-init weights with xavier (paper setting)")
p.add_argument("--seed", type=int, default=7)
p.add_argument("--save", type=str, default="rgcn_{}.pth")
args = p.parse_args()

hvd.init()
# different edge dropout per worker
torch.manual_seed(args.seed + hvd.rank())
np.random.seed(args.seed)
device = torch.device("cpu")
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

# ---------------- data ----------------
def load_entity_graph(name):
    f = os.path.join(args.data_root, name + ".npz")
    if os.path.exists(f):
        z = np.load(f)
        return (z["src"], z["dst"], z["rel"], int(z["num_nodes"]), int(z["num_rels"]),
                z["train_idx"], z["test_idx"], z["labels"], int(z["num_classes"]))
    rs = np.random.RandomState(0)
    N, R, E = 8285, 90, 29043
    src, dst, rel = rs.randint(0, N, E), rs.randint(0, N, E), rs.randint(0, R, E)
    labelled = rs.choice(N, 176, replace=False)
    labels = np.zeros(N, dtype=np.int64); labels[labelled] = rs.randint(0, 4, len(labelled))
    return src, dst, rel, N, R, labelled[:140], labelled[140:], labels, 4

src, dst, rel, num_nodes, num_rels, train_idx, test_idx, labels, num_classes = load_entity_graph(args.dataset)
# add inverse relations
src, dst, rel = (np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([rel, rel + num_rels]))
num_rels *= 2
# normaliser 1/c_{i,r}
key = dst * num_rels + rel
_, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
norm = torch.from_numpy(1.0 / cnt[inv]).float().unsqueeze(1)
src_t, dst_t, rel_t = torch.from_numpy(src).long(), torch.from_numpy(dst).long(), torch.from_numpy(rel).long()
labels_t = torch.from_numpy(labels).long()

# val = first 20% of train
n_val = len(train_idx) // 5
val_idx, train_idx = train_idx[:n_val], train_idx[n_val:]
my_train = torch.from_numpy(np.array_split(train_idx, hvd.size())[hvd.rank()]).long()
val_idx = torch.from_numpy(val_idx).long()
test_idx = torch.from_numpy(test_idx).long()

# ---------------- model ----------------
class RelGraphConv(nn.Module):
    def __init__(self, in_feat, out_feat, num_rels, num_bases, activation=None, self_loop=True, featureless=False):
        super().__init__()
        self.num_rels, self.in_feat, self.out_feat = num_rels, in_feat, out_feat
        self.num_bases = num_rels if num_bases <= 0 or num_bases > num_rels else num_bases
        self.featureless = featureless
        self.weight = nn.Parameter(torch.Tensor(self.num_bases, in_feat, out_feat))
        if self.num_bases < num_rels:
            self.w_comp = nn.Parameter(torch.Tensor(num_rels, self.num_bases))
        self.loop_weight = nn.Parameter(torch.Tensor(in_feat, out_feat)) if self_loop else None
        self.activation = activation
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight, gain=nn.init.calculate_gain('relu'))
        if self.num_bases < self.num_rels:
            nn.init.xavier_uniform_(self.w_comp, gain=nn.init.calculate_gain('relu'))
        if self.loop_weight is not None:
            nn.init.xavier_uniform_(self.loop_weight, gain=nn.init.calculate_gain('relu'))

    def forward(self, h, src, dst, etype, norm, n):
        if self.num_bases < self.num_rels:
            W = torch.matmul(self.w_comp, self.weight.view(self.num_bases, -1)).view(self.num_rels, self.in_feat, self.out_feat)
        else:
            W = self.weight
        if self.featureless:
            # one-hot input: h is None, message = row src of W[etype]
            msg = W[etype, src]
        else:
            msg = torch.bmm(h[src].unsqueeze(1), W[etype]).squeeze(1)
        out = torch.zeros(n, self.out_feat, device=msg.device).index_add_(0, dst, msg * norm)
        if self.loop_weight is not None:
            out = out + (self.loop_weight if self.featureless else h @ self.loop_weight)
        return self.activation(out) if self.activation else out

class EntityClassify(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        self.layers.append(RelGraphConv(num_nodes, args.hidden, num_rels, args.n_bases, F.relu, featureless=True))
        for _ in range(args.n_layers - 2):
            self.layers.append(RelGraphConv(args.hidden, args.hidden, num_rels, args.n_bases, F.relu))
        self.layers.append(RelGraphConv(args.hidden, num_classes, num_rels, args.n_bases))
        self.drop = nn.Dropout(args.dropout)

    def forward(self, src, dst, etype, norm):
        h = None
        for i, layer in enumerate(self.layers):
            h = layer(h, src, dst, etype, norm, num_nodes)
            if i < len(self.layers) - 1:
                h = self.drop(h)
        return h

model = EntityClassify().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.l2norm)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

def xavier(m):
    if isinstance(m, RelGraphConv):
        m.reset_parameters()

if args.xavier:
    model.apply(xavier)

src_d, dst_d, rel_d, norm_d, labels_d = src_t.to(device), dst_t.to(device), rel_t.to(device), norm.to(device), labels_t.to(device)

def evaluate(idx):
    model.eval()
    with torch.no_grad():
        logits = model(src_d, dst_d, rel_d, norm_d)
        loss = F.cross_entropy(logits[idx], labels_d[idx]).item()
        acc = (logits[idx].argmax(1) == labels_d[idx]).float().mean().item()
    return loss, acc

print("rank %d: %d training entities" % (hvd.rank(), len(my_train)))
for epoch in range(args.n_epochs):
    model.train()
    t0 = time.time()
    keep = torch.rand(len(src_t), device=device) >= args.edge_drop
    logits = model(src_d[keep], dst_d[keep], rel_d[keep], norm_d[keep])
    loss = F.cross_entropy(logits[my_train], labels_d[my_train])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if hvd.rank() == 0:
        # every worker holds the full graph, so rank 0 can score the full validation set itself
        vl, va = evaluate(val_idx)
        print("Epoch {:05d} | Train loss {:.4f} | Val loss {:.4f} | Val acc {:.4f} | {:.3f}s".format(
            epoch, loss.item(), vl, va, time.time() - t0))

if hvd.rank() == 0:
    tl, ta = evaluate(test_idx)
    print("Test acc: {:.4f}".format(ta))
    torch.save(model.state_dict(), args.save.format(args.dataset))
