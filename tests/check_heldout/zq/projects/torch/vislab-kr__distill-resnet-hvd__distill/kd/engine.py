import os

import torch
import horovod.torch as hvd


class DistillTrainer:
    """Trains `student` against a frozen `teacher`."""

    def __init__(self, teacher, student, optimizer, criterion, device):
        self.teacher = teacher.eval()
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.student = student
        self.optimizer = optimizer
        self.criterion = criterion
        self.device = device

    def sync_models(self):
        """Make every worker start from identical weights."""
        hvd.broadcast_parameters(self.teacher.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader):
        self.student.train()
        running, steps = 0.0, 0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            with torch.no_grad():
                t_logits = self.teacher(images)
            loss = self.criterion(self.student(images), t_logits, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            running += loss.item()
            steps += 1
        return running / max(steps, 1)

    def save(self, path, epoch, acc):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save({"epoch": epoch, "val_acc": acc,
                    "student": self.student.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
