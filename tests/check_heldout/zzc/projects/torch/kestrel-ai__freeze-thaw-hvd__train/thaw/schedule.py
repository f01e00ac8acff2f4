"""Freeze / thaw helpers for gradual unfreezing."""


def freeze_backbone(model, head_prefix="fc."):
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith(head_prefix)


def unfreeze(model, prefixes=None):
    """Thaw all parameters (or those under the given prefixes) in place."""
    for name, p in model.named_parameters():
        if prefixes is None or any(name.startswith(px) for px in prefixes):
            p.requires_grad = True
