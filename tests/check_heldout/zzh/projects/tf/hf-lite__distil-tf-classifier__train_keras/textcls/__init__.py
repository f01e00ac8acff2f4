"""Small Keras text classifiers trained with horovod.tensorflow.keras."""
