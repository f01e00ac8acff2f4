import re
import string

import tensorflow as tf
import keras

_PUNCT = re.escape(string.punctuation)


@keras.saving.register_keras_serializable(package="sentiment")
def standardize(text):
    text = tf.strings.lower(text)
    text = tf.strings.regex_replace(text, "<br\\s*/?>", " ")
    text = tf.strings.regex_replace(text, f"[{_PUNCT}]", " ")
    return tf.strings.regex_replace(text, "\\s+", " ")


def describe(vectorizer, n=20):
    vocab = vectorizer.get_vocabulary()
    return f"{len(vocab)} tokens, most frequent: {' '.join(vocab[2:2 + n])}"
