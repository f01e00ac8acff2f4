"""DeepSpeech-lite: small CTC models in TF2."""
