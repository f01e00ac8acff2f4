"""LandCover.ai segmentation with DeepLabV3+ (keras 3) and horovod."""
