import collections
import re

import horovod.tensorflow as hvd_tf

TOKEN_RE = re.compile(r"[a-z0-9']+")
SPECIALS = ["<pad>", "<unk>"]


def tokenize(text):
    return TOKEN_RE.findall(text.lower())


def _count(path, max_lines):
    counts = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= max_lines:
                break
            counts.update(tokenize(line.split("\t", 1)[-1]))
    return counts


def build_shared_vocab(path, size, rank, max_lines=200_000):
    """Rank 0 counts tokens, every rank receives the same vocabulary."""
    vocab = None
    if rank == 0:
        counts = _count(path, max_lines)
        vocab = SPECIALS + [w for w, _ in counts.most_common(size - len(SPECIALS))]
    return hvd_tf.broadcast_object(vocab, root_rank=0, name="vocab")
