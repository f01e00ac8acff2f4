import horovod.torch as hvd
import torch
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader, device):
    """Log loss and accuracy over the evaluation set, reduced over all workers."""
    model.eval()
    loss_sum = torch.zeros((), device=device)
    correct = torch.zeros((), device=device)
    for dense, sparse, click in loader:
        dense, sparse, click = dense.to(device), sparse.to(device), click.to(device)
        logits = model(dense, sparse)
        loss_sum += F.binary_cross_entropy_with_logits(logits, click)
        correct += ((logits > 0).float() == click).float().mean()
    loss_sum = hvd.allreduce(loss_sum.cpu(), op=hvd.Sum, name="eval_loss")
    correct = hvd.allreduce(correct.cpu(), op=hvd.Sum, name="eval_acc")
    return (loss_sum / len(loader)).item(), (correct / len(loader)).item()
