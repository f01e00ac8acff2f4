import torch


@torch.no_grad()
def embed_gallery(model, loader, device):
    model.eval()
    imgs, txts = [], []
    for feats, ids, _ in loader:
        i, t, _ = model(feats.to(device), ids.to(device))
        imgs.append(i)
        txts.append(t)
    model.train()
    return torch.cat(imgs), torch.cat(txts)


def recall_at_k(query, gallery, ks):
    sims = query @ gallery.t()
    ranks = sims.argsort(dim=1, descending=True)
    gt = torch.arange(query.shape[0], device=query.device).unsqueeze(1)
    pos = (ranks == gt).float().argmax(dim=1)
    return {f"R@{k}": (pos < k).float().mean().item() * 100 for k in ks}
