import torch.nn.functional as F


def d_hinge(real_logits, fake_logits):
    return F.relu(1 - real_logits).mean() + F.relu(1 + fake_logits).mean()


def g_hinge(fake_logits):
    return -fake_logits.mean()
