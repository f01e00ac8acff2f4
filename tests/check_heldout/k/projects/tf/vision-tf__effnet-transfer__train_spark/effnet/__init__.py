"""EfficientNet transfer learning for the product-image catalogue.

Modules:
    data      TFRecord reading and augmentation
    model     EfficientNet-B0 backbone with a new classification head
    evaluate  top-k accuracy over a whole dataset
"""
