def freeze_backbone(model):
    head = model.head_name.split(".")[0]
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith(head)


def unfreeze_all(model):
    for p in model.parameters():
        p.requires_grad_(True)
