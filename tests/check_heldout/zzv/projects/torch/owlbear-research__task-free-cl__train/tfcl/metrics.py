import numpy as np
import torch


@torch.no_grad()
def accuracy_per_segment(learner, test, segs, upto, batch=500):
    """Accuracy on the full test data of each segment seen so far (same on every worker)."""
    x, y = test
    out = []
    for s in segs[: upto + 1]:
        m = np.isin(y, s)
        xs = torch.from_numpy(x[m]).float() / 255.0
        ys = torch.from_numpy(y[m]).long()
        pred = torch.cat([learner.logits(b.to(learner.device)).argmax(1).cpu() for b in xs.split(batch)])
        out.append((pred == ys).float().mean().item())
    return out


def forgetting(history):
    """Average forgetting: best earlier accuracy minus final accuracy, per segment."""
    final = history[-1]
    return float(np.mean([max(h[k] for h in history if len(h) > k) - final[k]
                          for k in range(len(final) - 1)])) if len(final) > 1 else 0.0
