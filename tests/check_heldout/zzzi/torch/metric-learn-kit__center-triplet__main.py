"""Deep metric learning on CUB-200-2011: semi-hard triplet + center loss.

Multi-GPU:  horovodrun -np 4 python main.py --config configs/cub_center.json
"""
import argparse
import logging
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Subset
import horovod.torch as hvd

from mlkit.config import load_config
from mlkit.data import CUB200, shard_indices
from mlkit.losses import CenterLoss, triplet_semihard
from mlkit.optim import build_optimizer, make_distributed, lr_lambda

logger = logging.getLogger(__name__)


class Embedder(nn.Module):
    def __init__(self, dim, weights):
        super().__init__()
        net = torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)
        if os.path.isfile(weights):
            net.load_state_dict(torch.load(weights, map_location='cpu'), strict=False)
        net.fc = nn.Linear(1024, dim)
        self.net = net

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def recall_at_k(model, loader, device, ks=(1, 2, 4, 8)):
    model.eval()
    embs, labels = [], []
    for x, y in loader:
        embs.append(F.normalize(model(x.to(device)), dim=1).cpu())
        labels.append(y)
    e, y = torch.cat(embs), torch.cat(labels)
    sim = e @ e.t()
    sim.fill_diagonal_(-2)
    nn_idx = sim.topk(max(ks), dim=1).indices
    hits = y[nn_idx] == y[:, None]
    return {k: hits[:, :k].any(1).float().mean().item() for k in ks}


def run(cfg):
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device('cuda')
    else:
        device = torch.device('cpu')

    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_set = CUB200(cfg['data_root'], True, T.Compose(
        [T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    test_set = CUB200(cfg['data_root'], False, T.Compose(
        [T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm]))
    test_loader = DataLoader(test_set, batch_size=128, num_workers=4)

    model = Embedder(cfg['embedding_size'], cfg['backbone_weights']).to(device)
    center_loss = CenterLoss(100, cfg['embedding_size']).to(device)
    optimizer = build_optimizer(model, center_loss, cfg)
    optimizer = make_distributed(optimizer, model)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(cfg))

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(center_loss.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(cfg['epochs']):
        model.train()
        idx = shard_indices(len(train_set), hvd.rank(), hvd.size(), epoch)
        loader = DataLoader(Subset(train_set, idx), batch_size=cfg['batch_size'],
                            shuffle=True, num_workers=4, drop_last=True)
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            emb = model(x)
            loss = triplet_semihard(emb, y, cfg['margin']) + cfg['center_weight'] * center_loss(emb, y)
            optimizer.zero_grad()
            loss.backward()
            # center updates are not meant to be scaled by the loss weight
            for p in center_loss.parameters():
                p.grad.data *= 1.0 / cfg['center_weight']
            optimizer.step()
            if step % 20 == 0:
                logger.info('epoch %d step %d loss %.4f', epoch, step, loss.item())
        scheduler.step()

        if hvd.rank() == 0:
            rec = recall_at_k(model, test_loader, device)
            logger.info('epoch %d  R@1 %.4f  R@2 %.4f  R@4 %.4f  R@8 %.4f', epoch, *rec.values())
            os.makedirs(cfg['save_dir'], exist_ok=True)
            torch.save({'model': model.state_dict(), 'centers': center_loss.state_dict(),
                        'epoch': epoch}, os.path.join(cfg['save_dir'], 'cub_center.pth'))


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--config', default='configs/cub_center.json')
    ap.add_argument('--data-root', dest='data_root')
    ap.add_argument('--epochs', type=int)
    a = ap.parse_args()
    run(load_config(a.config, data_root=a.data_root, epochs=a.epochs))
