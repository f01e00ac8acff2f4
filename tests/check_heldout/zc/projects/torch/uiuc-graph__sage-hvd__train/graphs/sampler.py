import torch


def sample_neighbors(graph, nodes, fanout, gen=None):
    """For each node keep up to `fanout` random neighbours; returns (src, dst) in global ids."""
    srcs, dsts = [], []
    for v in nodes.tolist():
        lo, hi = graph.indptr[v].item(), graph.indptr[v + 1].item()
        nbrs = graph.indices[lo:hi]
        if len(nbrs) > fanout:
            nbrs = nbrs[torch.randperm(len(nbrs), generator=gen)[:fanout]]
        srcs.append(nbrs)
        dsts.append(torch.full((len(nbrs),), v, dtype=torch.long))
    return torch.cat(srcs), torch.cat(dsts)


def sample_blocks(graph, seeds, fanouts, gen=None):
    """Layer-wise sampling from the output nodes back to the input frontier."""
    blocks, frontier = [], seeds
    for fanout in reversed(fanouts):
        src, dst = sample_neighbors(graph, frontier, fanout, gen)
        nodes = torch.unique(torch.cat([frontier, src]))
        blocks.insert(0, (nodes, frontier, src, dst))
        frontier = nodes
    return frontier, blocks
