import horovod.torch as hvd
import torch


def allreduce_mean(value, name):
    """Average a python scalar over all workers."""
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Sum).item()


@torch.no_grad()
def evaluate(model, x_num, x_cat, y, device, batch_size=2048):
    model.eval()
    loss_sum, correct = 0.0, 0
    for i in range(0, len(y), batch_size):
        xn = x_num[i:i + batch_size].to(device)
        xc = x_cat[i:i + batch_size].to(device)
        yy = y[i:i + batch_size].to(device)
        out = model(xn, xc)
        loss_sum += torch.nn.functional.cross_entropy(out, yy, reduction="sum").item()
        correct += (out.argmax(1) == yy).sum().item()
    n = max(len(y), 1)
    return allreduce_mean(loss_sum / n, "val_loss"), allreduce_mean(correct / n, "val_acc")
