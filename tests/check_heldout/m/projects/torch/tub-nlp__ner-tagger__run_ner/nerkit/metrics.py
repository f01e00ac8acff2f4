import torch


def spans(tags):
    """BIO tag names -> set of (type, start, end)."""
    out, start, typ = set(), None, None
    for i, t in enumerate(list(tags) + ["O"]):
        if t == "O" or t.startswith("B-") or (t.startswith("I-") and t[2:] != typ):
            if start is not None:
                out.add((typ, start, i))
            start, typ = (i, t[2:]) if t != "O" else (None, None)
    return out


def count_batch(pred, gold, tag_vocab):
    """Returns a float tensor [tp, n_pred, n_gold] for one batch."""
    tp = n_pred = n_gold = 0
    for p_row, g_row in zip(pred.tolist(), gold.tolist()):
        keep = [i for i, g in enumerate(g_row) if g != -100]
        ps = spans([tag_vocab.itos[p_row[i]] for i in keep])
        gs = spans([tag_vocab.itos[g_row[i]] for i in keep])
        tp += len(ps & gs)
        n_pred += len(ps)
        n_gold += len(gs)
    return torch.tensor([tp, n_pred, n_gold], dtype=torch.float64)


def f1_from_counts(c):
    tp, n_pred, n_gold = c.tolist()
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
