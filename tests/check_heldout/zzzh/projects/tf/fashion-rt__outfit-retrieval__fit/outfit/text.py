import re
import string

import tensorflow as tf
import keras

_SIZE_TOKENS = re.compile(r"\b(xxs|xs|s|m|l|xl|xxl|\d+(cm|mm|in))\b")


def normalise_description(text):
    """Lower-case, drop punctuation and size tokens (they leak the SKU, not the look)."""
    text = tf.strings.lower(text)
    text = tf.strings.regex_replace(text, f"[{re.escape(string.punctuation)}]", " ")
    text = tf.strings.regex_replace(text, _SIZE_TOKENS.pattern, " ")
    return tf.strings.strip(text)


def build_vectorizer(corpus, max_tokens, seq_len=40):
    vec = keras.layers.TextVectorization(max_tokens=max_tokens, output_sequence_length=seq_len,
                                         standardize=normalise_description)
    vec.adapt(corpus)
    return vec


def vocabulary_report(vec, top=20):
    vocab = vec.get_vocabulary()
    return f"{len(vocab)} tokens; most frequent: {', '.join(vocab[2:2 + top])}"
