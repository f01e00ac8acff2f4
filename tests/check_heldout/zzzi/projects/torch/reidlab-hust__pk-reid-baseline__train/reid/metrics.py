import numpy as np
import torch
import horovod.torch as hvd


@torch.no_grad()
def extract(model, loader, device):
    model.eval()
    feats, pids, cams = [], [], []
    for imgs, pid, cam in loader:
        f = model(imgs.to(device))
        feats.append(torch.nn.functional.normalize(f, dim=1).cpu())
        pids.append(pid)
        cams.append(cam)
    return torch.cat(feats), torch.cat(pids), torch.cat(cams)


def gather_all(feats, pids, cams, tag):
    """Every rank extracted a slice; stitch the full set back together."""
    return (hvd.allgather(feats, name=tag + '.f'),
            hvd.allgather(pids, name=tag + '.p'),
            hvd.allgather(cams, name=tag + '.c'))


def cmc_map(qf, qp, qc, gf, gp, gc, max_rank=10):
    dist = torch.cdist(qf, gf).numpy()
    qp, qc, gp, gc = qp.numpy(), qc.numpy(), gp.numpy(), gc.numpy()
    cmc_sum, aps, valid = np.zeros(max_rank), [], 0
    for i in range(len(qp)):
        order = np.argsort(dist[i])
        keep = ~((gp[order] == qp[i]) & (gc[order] == qc[i]))
        matches = (gp[order] == qp[i])[keep].astype(np.int32)
        if not matches.any():
            continue
        cmc = matches.cumsum()
        cmc[cmc > 1] = 1
        cmc_sum += cmc[:max_rank] if len(cmc) >= max_rank else np.pad(cmc, (0, max_rank - len(cmc)), 'edge')
        hits = matches.cumsum() / (np.arange(len(matches)) + 1.0)
        aps.append((hits * matches).sum() / matches.sum())
        valid += 1
    return cmc_sum / max(valid, 1), float(np.mean(aps)) if aps else 0.0
