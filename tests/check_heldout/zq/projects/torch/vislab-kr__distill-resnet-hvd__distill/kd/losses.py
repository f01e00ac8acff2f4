import torch.nn as nn
import torch.nn.functional as F


class DistillationLoss(nn.Module):
    """Hinton et al. soft-target loss mixed with the hard-label cross entropy."""

    def __init__(self, alpha=0.7, temperature=4.0):
        super().__init__()
        self.alpha = alpha
        self.T = temperature

    def forward(self, student_logits, teacher_logits, labels):
        soft = F.kl_div(F.log_softmax(student_logits / self.T, dim=1),
                        F.softmax(teacher_logits / self.T, dim=1),
                        reduction="batchmean") * (self.T ** 2)
        hard = F.cross_entropy(student_logits, labels)
        return self.alpha * soft + (1.0 - self.alpha) * hard
