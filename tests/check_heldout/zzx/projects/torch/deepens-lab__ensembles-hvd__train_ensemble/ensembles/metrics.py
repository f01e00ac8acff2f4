import torch
import torch.nn.functional as F


def calibration_stats(probs, targets, n_bins=15):
    """Sums (not means) so that they can be added up across workers."""
    conf, pred = probs.max(-1)
    correct = pred.eq(targets).double()
    bins = torch.clamp((conf * n_bins).long(), max=n_bins - 1)
    onehot = F.one_hot(targets, probs.shape[-1]).to(probs.dtype)
    return {
        "count": torch.tensor([float(targets.numel())]),
        "nll": -torch.log(probs.gather(1, targets[:, None]).clamp_min(1e-12)).sum().reshape(1),
        "brier": ((probs - onehot) ** 2).sum().reshape(1),
        "correct": correct.sum().reshape(1),
        "bin_count": torch.bincount(bins, minlength=n_bins).double(),
        "bin_conf": torch.zeros(n_bins, dtype=torch.double).index_add_(0, bins, conf.double()),
        "bin_acc": torch.zeros(n_bins, dtype=torch.double).index_add_(0, bins, correct),
    }


def merge(acc, new):
    if acc is None:
        return {k: v.clone() for k, v in new.items()}
    for k, v in new.items():
        acc[k] += v.to(acc[k].dtype)
    return acc


def summarize(s):
    n = s["count"].item()
    ece = (torch.abs(s["bin_acc"] - s["bin_conf"]).sum() / n).item()
    return {"acc": s["correct"].item() / n, "nll": s["nll"].item() / n,
            "brier": s["brier"].item() / n, "ece": ece}
