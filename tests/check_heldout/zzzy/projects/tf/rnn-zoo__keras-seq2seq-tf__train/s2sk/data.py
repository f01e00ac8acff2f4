import io
import re
import unicodedata

import tensorflow as tf


def _norm(s):
    s = ''.join(c for c in unicodedata.normalize('NFD', s.lower().strip()) if unicodedata.category(c) != 'Mn')
    s = re.sub(r"([?.!,¿])", r" \1 ", s)
    s = re.sub(r"[^a-zA-Z?.!,¿]+", " ", s)
    return '<start> ' + s.strip() + ' <end>'


def load_pairs(path, num_examples=None):
    lines = io.open(path, encoding='UTF-8').read().strip().split('\n')
    pairs = [[_norm(w) for w in l.split('\t')[:2]] for l in lines[:num_examples]]
    # file is eng \t spa; translate spa -> eng
    return [(p[1], p[0]) for p in pairs if len(p) == 2]


class TextCodec(object):
    def __init__(self, tokenizer, max_len):
        self.tok = tokenizer
        self.max_len = max_len
        self.vocab_size = len(tokenizer.word_index) + 1
        self.start_id = tokenizer.word_index['<start>']
        self.end_id = tokenizer.word_index['<end>']

    @classmethod
    def fit(cls, texts):
        tok = {'<pad>': 0}
        for t in texts:
            for w in t.split():
                tok.setdefault(w, len(tok))
        t = _Tok(tok)
        return cls(t, max(len(x.split()) for x in texts))

    def encode(self, texts):
        seqs = [[self.tok.word_index.get(w, 0) for w in t.split()] for t in texts]
        return tf.keras.utils.pad_sequences(seqs, maxlen=self.max_len, padding='post')

    def decode(self, ids):
        return ' '.join(self.tok.index_word[i] for i in ids if i > 0)


class _Tok(object):
    def __init__(self, w2i):
        self.word_index = {w: i for w, i in w2i.items() if i > 0}
        self.index_word = {i: w for w, i in self.word_index.items()}


def make_dataset(pairs, src_codec, tgt_codec, batch_size, num_shards=1, index=0, shuffle=True):
    src = src_codec.encode([p[0] for p in pairs])
    tgt = tgt_codec.encode([p[1] for p in pairs])
    ds = tf.data.Dataset.from_tensor_slices((src, tgt)).shard(num_shards, index)
    n = (len(pairs) // num_shards) // batch_size
    if shuffle:
        ds = ds.shuffle(len(pairs), reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=True), n
