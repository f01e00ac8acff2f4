from .classifier import HorovodClassifier, build_backbone


def get_model(name, num_classes):
    width = {"small_cnn": 32, "wide_cnn": 96}[name]
    inputs = HorovodClassifier.input_spec_shape()
    return HorovodClassifier(build_backbone(width), num_classes)
