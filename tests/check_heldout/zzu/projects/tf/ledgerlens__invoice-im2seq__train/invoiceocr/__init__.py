from .tokenizer import CharTokenizer  # noqa: F401
