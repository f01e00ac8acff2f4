import re
import zlib

_WORD = re.compile(r"\w+|[^\w\s]")


class HashTokenizer:
    """Cheap on-the-fly tokenizer: words hashed into a fixed vocabulary."""

    PAD, BOS, EOS = 0, 1, 2

    def __init__(self, vocab_size):
        self.vocab_size = vocab_size

    def encode(self, text):
        ids = [self.BOS]
        for tok in _WORD.findall(text.lower()):
            ids.append(3 + zlib.crc32(tok.encode()) % (self.vocab_size - 3))
        ids.append(self.EOS)
        return ids
