from .informer_lite import InformerLite
