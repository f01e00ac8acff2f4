import numpy as np


def recall_at(model, tiles, texts, ks=(1, 5, 10)):
    """Text->tile retrieval over the whole val gallery (each worker computes the same numbers)."""
    g = model.embed_tile(tiles).numpy()
    q = model.embed_text(texts).numpy()
    order = np.argsort(-(q @ g.T), axis=1)
    hit = np.argmax(order == np.arange(len(q))[:, None], axis=1)
    return {k: float((hit < k).mean()) for k in ks}
