"""Shared pieces of the OLCF Horovod/TF2 hands-on."""
