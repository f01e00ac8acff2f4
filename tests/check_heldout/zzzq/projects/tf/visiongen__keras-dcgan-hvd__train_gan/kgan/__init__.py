"""keras DCGAN components used by the training pipeline (pipelines/gan_pipeline.py imports train_gan.train)."""
