import torch


@torch.no_grad()
def predict_ensemble(make_model, ckpt_paths, loader, device):
    """Average softmax over the fold models (test-time ensemble)."""
    total = None
    for path in ckpt_paths:
        model = make_model().to(device)
        model.load_state_dict(torch.load(path, map_location=device))
        model.eval()
        probs = torch.cat([model(x.to(device)).softmax(1).cpu() for x, _ in loader])
        total = probs if total is None else total + probs
    return total / len(ckpt_paths)
