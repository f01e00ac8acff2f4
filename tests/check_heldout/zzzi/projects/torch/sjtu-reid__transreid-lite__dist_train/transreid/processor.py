import logging
import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .env import is_main_process


def hard_triplet(f, y, margin):
    d = torch.cdist(f, f)
    same = y[:, None] == y[None, :]
    return F.relu((d * same).max(1)[0] - (d + 1e4 * same).min(1)[0] + margin).mean()


def r1_map(qf, qy, qc, gf, gy, gc):
    dist = torch.cdist(qf, gf).numpy()
    aps, r1 = [], []
    for i in range(len(qy)):
        o = np.argsort(dist[i])
        keep = ~((gy[o] == qy[i]) & (gc[o] == qc[i]))
        m = (gy[o] == qy[i])[keep]
        if m.any():
            r1.append(float(m[0]))
            aps.append(float((np.cumsum(m) / np.arange(1, len(m) + 1) * m).sum() / m.sum()))
    return np.mean(r1), np.mean(aps)


@torch.no_grad()
def inference(model, loader, device):
    model.eval()
    out = {'f': [], 'y': [], 'c': []}
    for x, y, c in loader:
        out['f'].append(F.normalize(model(x.to(device)), dim=1).cpu())
        out['y'].append(y)
        out['c'].append(c)
    return [hvd.allgather(torch.cat(out[k]), name='inf_' + k) for k in 'fyc']


def do_train(cfg, model, train_loader, query_loader, gallery_loader, optimizer, scheduler, device):
    logger = logging.getLogger('transreid')
    for epoch in range(1, cfg.SOLVER.MAX_EPOCHS + 1):
        model.train()
        train_loader.sampler.set_epoch(epoch)
        scheduler.step(epoch)
        for n_iter, (img, pid, _) in enumerate(train_loader):
            img, pid = img.to(device), pid.to(device)
            feat, score = model(img)
            loss = cfg.MODEL.ID_LOSS_WEIGHT * F.cross_entropy(score, pid, label_smoothing=0.1) \
                + cfg.MODEL.TRI_LOSS_WEIGHT * hard_triplet(feat, pid, cfg.SOLVER.MARGIN)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if n_iter % 50 == 0:
                logger.info('Epoch[%d] Iter[%d/%d] Loss: %.3f', epoch, n_iter, len(train_loader), loss.item())

        if epoch % cfg.SOLVER.CHECKPOINT_PERIOD == 0 and is_main_process():
            os.makedirs(cfg.OUTPUT_DIR, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(cfg.OUTPUT_DIR, 'transformer_%d.pth' % epoch))

        if epoch % cfg.SOLVER.EVAL_PERIOD == 0:
            qf, qy, qc = inference(model, query_loader, device)
            gf, gy, gc = inference(model, gallery_loader, device)
            if hvd.rank() == 0:
                r1, mAP = r1_map(qf, qy.numpy(), qc.numpy(), gf, gy.numpy(), gc.numpy())
                logger.info('Validation epoch %d: mAP %.1f%%  Rank-1 %.1f%%', epoch, 100 * mAP, 100 * r1)
