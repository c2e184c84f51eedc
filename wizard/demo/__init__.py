"""The built-in offline demo: the course's broken DistilBERT-on-MNLI script, on tiny local fixtures."""
