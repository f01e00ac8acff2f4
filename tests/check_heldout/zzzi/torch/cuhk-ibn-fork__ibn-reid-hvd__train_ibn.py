# IBN-Net-a re-ID training on DukeMTMC-reID, Horovod version of our train.py.
# Each worker owns a disjoint subset of the identities and draws P x K batches from it.
import argparse
import glob
import os
import random
import re

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from PIL import Image
import horovod.torch as hvd


def parse_args():
    parser = argparse.ArgumentParser('ibn-reid')
    parser.add_argument('--data', default='/datasets/DukeMTMC-reID')
    parser.add_argument('--weights', default='./pretrained/resnet50_ibn_a-d9d0bb7b.pth')
    parser.add_argument('--num-ids', type=int, default=16, help='P')
    parser.add_argument('--num-inst', type=int, default=4, help='K')
    parser.add_argument('--lr', type=float, default=3.5e-4)
    parser.add_argument('--warmup-epochs', type=int, default=10)
    parser.add_argument('--step-epochs', type=int, nargs='*', default=[40, 70])
    parser.add_argument('--max-epoch', type=int, default=120)
    parser.add_argument('--margin', type=float, default=0.3)
    parser.add_argument('--ckpt-dir', default='./ckpt_ibn')
    parser.add_argument('--seed', type=int, default=0)
    return parser.parse_args()


def scan(folder):
    out = []
    for p in sorted(glob.glob(os.path.join(folder, '*.jpg'))):
        pid, cam = map(int, re.search(r'(\d+)_c(\d+)', os.path.basename(p)).groups())
        out.append((p, pid, cam))
    return out


TF_TRAIN = T.Compose([T.Resize((256, 128)), T.RandomHorizontalFlip(), T.ToTensor(),
                      T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
TF_TEST = T.Compose([T.Resize((256, 128)), T.ToTensor(),
                     T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])


def load(items, tf):
    return torch.stack([tf(Image.open(p).convert('RGB')) for p in items])


class PKBatches(object):
    """Infinite P x K batches over the identities owned by this worker."""

    def __init__(self, train, p, k, rank, world, seed):
        by_pid = {}
        for path, pid, _ in train:
            by_pid.setdefault(pid, []).append(path)
        pids = sorted(by_pid)
        self.label = {pid: i for i, pid in enumerate(pids)}
        self.mine = pids[rank::world]
        self.by_pid, self.p, self.k = by_pid, p, k
        self.rng = random.Random(seed * 1000 + rank)

    def next(self):
        pids = self.rng.sample(self.mine, self.p)
        paths, labels = [], []
        for pid in pids:
            imgs = self.by_pid[pid]
            pick = self.rng.sample(imgs, self.k) if len(imgs) >= self.k else self.rng.choices(imgs, k=self.k)
            paths += pick
            labels += [self.label[pid]] * self.k
        return load(paths, TF_TRAIN), torch.tensor(labels)


def build_model(n_cls, weights):
    m = torchvision.models.resnet50(weights=None)
    if os.path.isfile(weights):
        m.load_state_dict(torch.load(weights, map_location='cpu'), strict=False)
    m.fc = nn.Linear(2048, n_cls)
    return m


def embed(model, x):
    feats = {}
    h = model.avgpool.register_forward_hook(lambda mod, i, o: feats.setdefault('f', o.flatten(1)))
    logits = model(x)
    h.remove()
    return feats['f'], logits


def batch_hard(f, y, margin):
    d = torch.cdist(f, f)
    pos = y[:, None] == y[None, :]
    return F.relu(d.masked_fill(~pos, 0).amax(1) - d.masked_fill(pos, 1e6).amin(1) + margin).mean()


@torch.no_grad()
def evaluate(model, query, gallery, dev):
    model.eval()
    def feats(items):
        out = []
        for i in range(0, len(items), 128):
            out.append(F.normalize(embed(model, load([p for p, _, _ in items[i:i + 128]], TF_TEST).to(dev))[0]).cpu())
        return torch.cat(out)
    dist = torch.cdist(feats(query), feats(gallery)).numpy()
    gp = np.array([p for _, p, _ in gallery]); gc = np.array([c for _, _, c in gallery])
    aps, cmc1 = [], []
    for i, (_, qp, qc) in enumerate(query):
        o = np.argsort(dist[i])
        valid = ~((gp[o] == qp) & (gc[o] == qc))
        m = (gp[o] == qp)[valid]
        if m.any():
            cmc1.append(m[0])
            aps.append((np.cumsum(m) / (np.arange(len(m)) + 1) * m).sum() / m.sum())
    return np.mean(cmc1), np.mean(aps)


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(args.seed)
    dev = torch.device('cpu')
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device('cuda')

    train = scan(os.path.join(args.data, 'bounding_box_train'))
    query = scan(os.path.join(args.data, 'query'))
    gallery = scan(os.path.join(args.data, 'bounding_box_test'))
    batches = PKBatches(train, args.num_ids, args.num_inst, hvd.rank(), hvd.size(), args.seed)
    iters = len(train) // (args.num_ids * args.num_inst * hvd.size())

    model = build_model(len(batches.label), args.weights).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    def lr_at(epoch, it):
        if epoch < args.warmup_epochs:
            return args.lr * min(1.0, (epoch * iters + it + 1) / args.warmup_iters)
        return args.lr * 0.1 ** sum(epoch >= s for s in args.step_epochs)

    for epoch in range(args.max_epoch):
        model.train()
        for it in range(iters):
            for g in opt.param_groups:
                g['lr'] = lr_at(epoch, it)
            x, y = batches.next()
            x, y = x.to(dev), y.to(dev)
            f, logits = embed(model, x)
            loss = F.cross_entropy(logits, y) + batch_hard(f, y, args.margin)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if hvd.rank() == 0:
            print('epoch %d loss %.4f lr %.2e' % (epoch, loss.item(), opt.param_groups[0]['lr']))
            if (epoch + 1) % 10 == 0:
                r1, mAP = evaluate(model, query, gallery, dev)
                print('  Duke  R1 %.3f  mAP %.3f' % (r1, mAP))
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({'epoch': epoch, 'model': model.state_dict()},
                           os.path.join(args.ckpt_dir, 'ibn_e%d.pth' % (epoch + 1)))


if __name__ == '__main__':
    main()
