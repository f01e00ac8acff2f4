"""PyTorch port of the helio-ads CTR pipeline (reads the .npz exports of the TFRecord logs)."""
