import torch.nn.functional as F


def kd_loss(student_logits, teacher_logits, targets, T=4.0, alpha=0.9):
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1),
                    F.softmax(teacher_logits / T, dim=1), reduction="batchmean") * (T * T)
    hard = F.cross_entropy(student_logits, targets)
    return alpha * soft + (1.0 - alpha) * hard
