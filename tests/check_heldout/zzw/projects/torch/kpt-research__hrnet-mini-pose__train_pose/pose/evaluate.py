import torch
import horovod.torch as hvd


def heatmap_argmax(hm, in_size):
    b, j, h, w = hm.shape
    idx = hm.view(b, j, -1).argmax(-1)
    xy = torch.stack([idx % w, idx // w], -1).float()
    return xy * (in_size[0] / w)


@torch.no_grad()
def pckh(model, loader, cfg, device):
    """PCKh@thr over the validation split; returns (pckh, mean loss) reduced over workers."""
    model.eval()
    thr = cfg["TEST"]["PCK_THRESHOLD"]
    hit = tot = 0.0
    loss_sum, n = 0.0, 0
    for img, hm, joints, vis, head in loader:
        img, hm, joints, vis, head = [t.to(device) for t in (img, hm, joints, vis, head)]
        out = model(img)
        loss_sum += torch.mean((out - hm) ** 2).item()
        n += 1
        pred = heatmap_argmax(out, cfg["DATA"]["INPUT_SIZE"])
        d = (pred - joints).norm(dim=-1) / head[:, None]
        hit += ((d <= thr).float() * vis).sum().item()
        tot += vis.sum().item()
    local = torch.tensor([hit / max(tot, 1.0), loss_sum / max(n, 1)])
    glob = hvd.allreduce(local, op=hvd.Sum, name="val_metrics")
    return glob[0].item(), glob[1].item()
