import io


class Charset:
    """Character set built from the transcriptions; index 0 is the CTC blank."""

    def __init__(self, chars):
        self.chars = sorted(set(chars))
        self.index = {c: i + 1 for i, c in enumerate(self.chars)}

    @classmethod
    def from_list_file(cls, list_file):
        chars = set()
        with io.open(list_file, encoding="utf-8") as fh:
            for line in fh:
                if "\t" in line:
                    chars.update(line.rstrip("\n").split("\t", 1)[1])
        return cls(chars)

    def __len__(self):
        return len(self.chars) + 1

    def encode(self, text):
        return [self.index[c] for c in text if c in self.index]

    def decode_greedy(self, ids):
        out, prev = [], 0
        for i in ids:
            if i != prev and i != 0:
                out.append(self.chars[i - 1])
            prev = i
        return "".join(out)
