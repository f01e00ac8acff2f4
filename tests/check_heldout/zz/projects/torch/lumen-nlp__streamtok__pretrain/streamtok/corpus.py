import glob
import gzip
import itertools
import json
import random

import torch
from torch.utils.data import IterableDataset, get_worker_info

from .tokenizer import HashTokenizer


class PackedTextStream(IterableDataset):
    """Reads gzipped jsonl shards, tokenizes on the fly and packs into blocks."""

    def __init__(self, pattern, vocab_size, seq_len, shuffle=True, seed=0, repeat=True):
        self.files = sorted(glob.glob(pattern))
        self.tok = HashTokenizer(vocab_size)
        self.seq_len = seq_len
        self.shuffle, self.seed, self.repeat = shuffle, seed, repeat

    def _files_for_worker(self, rnd):
        files = list(self.files)
        if self.shuffle:
            random.Random(self.seed + rnd).shuffle(files)
        info = get_worker_info()
        if info is None:
            return files
        return files[info.id::info.num_workers]

    def _docs(self):
        for rnd in (itertools.count() if self.repeat else range(1)):
            for path in self._files_for_worker(rnd):
                with gzip.open(path, "rt", encoding="utf-8") as f:
                    for line in f:
                        text = json.loads(line).get("text", "")
                        if text:
                            yield text

    def __iter__(self):
        buf = []
        block = self.seq_len + 1
        for text in self._docs():
            buf.extend(self.tok.encode(text))
            while len(buf) >= block:
                chunk, buf = buf[:block], buf[block:]
                t = torch.tensor(chunk, dtype=torch.long)
                yield t[:-1], t[1:]
