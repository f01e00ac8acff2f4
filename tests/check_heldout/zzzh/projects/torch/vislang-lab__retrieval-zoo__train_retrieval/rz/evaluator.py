import torch
import horovod.torch as hvd


class RetrievalEvaluator:
    """Text->image recall@K. The image gallery is embedded once per call; queries are split
    across workers so that evaluation time does not grow with the gallery."""

    def __init__(self, loader, ks=(1, 5, 10)):
        self.loader = loader
        self.ks = ks

    @torch.no_grad()
    def __call__(self, model, device):
        model.eval()
        imgs, txts = [], []
        for feats, ids in self.loader:
            imgs.append(model.encode_image(feats.to(device)))
            txts.append(model.encode_text(ids.to(device)))
        gallery, queries = torch.cat(imgs), torch.cat(txts)
        mine = torch.arange(hvd.rank(), queries.shape[0], hvd.size(), device=device)
        sims = queries[mine] @ gallery.t()
        gt_score = sims.gather(1, mine.unsqueeze(1))
        rank_of_gt = (sims > gt_score).sum(1)
        model.train()
        return {f"R@{k}": 100.0 * (rank_of_gt < k).float().mean().item() for k in self.ks}
