from .cropformer import CropFormer

MODELS = {
    "cropformer_tiny": dict(d_model=64, depth=2, heads=4),
    "cropformer_small": dict(d_model=128, depth=4, heads=4),
    "cropformer_base": dict(d_model=256, depth=6, heads=8),
}


def create_model(name, in_channels, num_classes, dropout=0.1):
    return CropFormer(in_channels=in_channels, num_classes=num_classes, dropout=dropout, **MODELS[name])
