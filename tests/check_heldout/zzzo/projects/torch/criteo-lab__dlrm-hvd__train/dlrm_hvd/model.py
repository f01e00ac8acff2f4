import torch
import torch.nn as nn


def mlp(spec, last_sigmoid=False):
    dims = [int(x) for x in spec.split("-")]
    layers = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, num_buckets, emb_dim, n_cat, bottom, top):
        super().__init__()
        # one big hashed table for all 26 features (offset per feature)
        self.n_cat = n_cat
        self.num_buckets = num_buckets
        self.emb = nn.EmbeddingBag(num_buckets * n_cat, emb_dim, mode="sum")
        nn.init.uniform_(self.emb.weight, -0.01, 0.01)
        self.bot = mlp(bottom)
        n_feat = n_cat + 1
        n_int = n_feat * (n_feat - 1) // 2
        top_dims = top.split("-")
        self.top = mlp("-".join([str(n_int + emb_dim)] + top_dims))
        self.register_buffer("offsets", torch.arange(n_cat) * num_buckets)

    def forward(self, dense, cats):
        b = dense.shape[0]
        x = self.bot(dense)
        idx = (cats + self.offsets).reshape(-1)
        bag_off = torch.arange(0, idx.numel(), 1, device=idx.device)
        e = self.emb(idx, bag_off).view(b, self.n_cat, -1)
        t = torch.cat([x.unsqueeze(1), e], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        li, lj = torch.tril_indices(t.shape[1], t.shape[1], offset=-1)
        z = z[:, li, lj]
        return self.top(torch.cat([x, z], dim=1)).squeeze(1)

    def sparse_parameters(self):
        return [("emb.weight", self.emb.weight)]

    def dense_parameters(self):
        return [(n, p) for n, p in self.named_parameters() if not n.startswith("emb.")]
