"""Models and datasets from the Hub, a local folder or data files: metadata first, clear errors.

Import from the module that says what you need:
- refs: what a reference is (Hub id, local folder, data files); ModelRef, DatasetRef
- resolve: a model from model_info / config.json / safetensors headers, never the weights
- dataset, dataset_info: a dataset from the dataset viewer or its card; a small sample of it
- download: which files fine-tuning needs, their size, and fetching them with progress
- safetensors: the one reader of safetensors headers (local files and the Hub)
- safety: remote code and pickle weights need an explicit yes
- errors: the HubError family and as_hub_error, the one translation of Hub exceptions
- auth, connection: the token sent; offline mode, timeouts, the HfApi client
"""
