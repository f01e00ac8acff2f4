from .wrn import WideResNet


def build_model(name, num_classes):
    if name.startswith("wrn"):
        _, depth, width = name.split("-")
        return WideResNet(int(depth), int(width), num_classes)
    raise KeyError(name)
