import os

import torch


def save_checkpoint(out_dir, epoch, student, teacher, optimizer, best=False):
    os.makedirs(out_dir, exist_ok=True)
    state = {"epoch": epoch, "student": student.state_dict(), "teacher": teacher.state_dict(),
             "optimizer": optimizer.state_dict()}
    torch.save(state, os.path.join(out_dir, "last.pth"))
    if best:
        torch.save(state, os.path.join(out_dir, "best.pth"))
