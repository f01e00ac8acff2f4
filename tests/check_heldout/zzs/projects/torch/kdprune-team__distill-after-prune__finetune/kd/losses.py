import torch.nn as nn
import torch.nn.functional as F


class DistillLoss(nn.Module):
    """Hinton KD: alpha * T^2 * KL(student_T || teacher_T) + (1 - alpha) * CE."""

    def __init__(self, temperature=4.0, alpha=0.9):
        super().__init__()
        self.T, self.alpha = temperature, alpha

    def forward(self, s_logits, t_logits, target):
        kd = F.kl_div(F.log_softmax(s_logits / self.T, 1), F.softmax(t_logits / self.T, 1), reduction="batchmean")
        return self.alpha * self.T * self.T * kd + (1 - self.alpha) * F.cross_entropy(s_logits, target)
