"""tf-coreset-hvd"""
