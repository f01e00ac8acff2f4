class CharTokenizer:
    def __init__(self, chars):
        self.blank = 0
        self.chars = sorted(chars)
        self.index = {c: i + 1 for i, c in enumerate(self.chars)}

    @classmethod
    def from_transcripts(cls, transcripts):
        return cls({c for t in transcripts for c in t.lower()})

    def encode(self, text):
        return [self.index[c] for c in text.lower() if c in self.index]

    def ctc_decode(self, ids):
        out, prev = [], self.blank
        for i in ids:
            if i != prev and i != self.blank:
                out.append(self.chars[i - 1])
            prev = i
        return "".join(out)

    def __len__(self):
        return len(self.chars) + 1


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]
