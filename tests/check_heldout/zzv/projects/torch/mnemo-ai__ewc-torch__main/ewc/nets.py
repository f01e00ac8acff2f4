import torch.nn as nn


class MultiHeadMLP(nn.Module):
    """Shared trunk + one linear head per task (task-incremental setting)."""

    def __init__(self, n_tasks, n_out=2, in_dim=784, hidden=400, dropout=0.2):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
        )
        # all heads exist from the start so the optimizer sees every parameter
        self.heads = nn.ModuleList(nn.Linear(hidden, n_out) for _ in range(n_tasks))

    def forward(self, x, task_id):
        return self.heads[task_id](self.trunk(x))
