import torch
import torch.nn as nn


class FieldEmbeddingMLP(nn.Module):
    """embedding per (offset) field id -> concat -> MLP.  embeddings use sparse grads."""

    def __init__(self, field_sizes, embed_dim, hidden):
        super().__init__()
        self.n_fields = len(field_sizes)
        self.embedding = nn.Embedding(sum(field_sizes), embed_dim, sparse=True)
        nn.init.xavier_uniform_(self.embedding.weight)
        dims = [self.n_fields * embed_dim] + list(hidden)
        mlp = []
        for a, b in zip(dims[:-1], dims[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        mlp.append(nn.Linear(dims[-1], 1))
        self.mlp = nn.Sequential(*mlp)

    def forward(self, x):
        return self.mlp(self.embedding(x).flatten(1)).squeeze(-1)
