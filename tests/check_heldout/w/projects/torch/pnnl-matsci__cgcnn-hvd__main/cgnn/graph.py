import torch


def collate_graphs(batch):
    """Concatenate a list of graphs into one disjoint graph with a batch vector."""
    xs, eis, ds, ys, bvec = [], [], [], [], []
    offset = 0
    for k, (x, ei, d, y) in enumerate(batch):
        xs.append(x)
        eis.append(ei + offset)
        ds.append(d)
        ys.append(y)
        bvec.append(torch.full((x.shape[0],), k, dtype=torch.long))
        offset += x.shape[0]
    return torch.cat(xs), torch.cat(eis, dim=1), torch.cat(ds), torch.stack(ys), torch.cat(bvec)
