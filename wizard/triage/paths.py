"""What a name in a paste is: a local path, a Hub repository id, or one that certainly exists on
the Hub (the checkpoints, datasets and metrics of tutorials and courses)."""
from __future__ import annotations

import re

# ./x, ../x, /x, ~/x, C:\x
LOCAL_PATH = r"(?:\.{1,2}[/\\]|[/~]|[A-Za-z]:[/\\])"
# a training run's folder: a Trainer checkpoint, or an output folder of a script ("outputs/x")
_RUN_FOLDER = re.compile(r"(?:^|[/\\])checkpoint-\d+[/\\]?$|^(?:outputs?|output_dir|results?|"
                         r"checkpoints?|ckpts?|runs|saved?_models?|tmp|logs?)[/\\]")


def is_local_path(name: str) -> bool:
    """Whether a name given to from_pretrained is a local path, not an org/name Hub id: it starts
    like a path, has more than one folder, or is a training run's folder."""
    return bool(re.match(LOCAL_PATH, name) or name.count("/") > 1 or _RUN_FOLDER.search(name))


# ids of public repositories that certainly exist (tutorials' and courses' checkpoints), exactly:
# a near miss of one (bert-base-uncasd) is a misspelt id, not an unreachable Hub
PUBLIC_MODELS = frozenset("""
bert-base-uncased bert-base-cased bert-large-uncased bert-large-cased bert-base-chinese
bert-base-multilingual-cased bert-base-multilingual-uncased roberta-base roberta-large
distilbert-base-uncased distilbert-base-cased distilbert-base-multilingual-cased distilroberta-base
gpt2 gpt2-medium gpt2-large gpt2-xl distilgpt2 t5-small t5-base t5-large t5-3b t5-11b
albert-base-v2 albert-large-v2 xlnet-base-cased xlnet-large-cased xlm-roberta-base
xlm-roberta-large openai-gpt
google-bert/bert-base-uncased google-bert/bert-base-cased FacebookAI/roberta-base
FacebookAI/roberta-large distilbert/distilbert-base-uncased openai-community/gpt2
google-t5/t5-small google-t5/t5-base google/flan-t5-small google/flan-t5-base
google/flan-t5-large google/vit-base-patch16-224 google/vit-base-patch16-224-in21k
google/gemma-2b google/gemma-7b google/gemma-2-2b google/gemma-2-9b google/electra-small-discriminator
google/mt5-small facebook/bart-base facebook/bart-large facebook/bart-large-cnn
facebook/opt-125m facebook/opt-350m facebook/opt-1.3b facebook/wav2vec2-base
facebook/wav2vec2-base-960h facebook/m2m100_418M facebook/nllb-200-distilled-600M
microsoft/deberta-v3-base microsoft/deberta-v3-small microsoft/deberta-v3-large
microsoft/phi-2 microsoft/Phi-3-mini-4k-instruct microsoft/DialoGPT-medium
openai/clip-vit-base-patch32 openai/clip-vit-large-patch14 openai/whisper-tiny
openai/whisper-small openai/whisper-base openai/whisper-medium openai/whisper-large-v2
openai/whisper-large-v3 meta-llama/Llama-2-7b-hf meta-llama/Llama-2-7b-chat-hf
meta-llama/Llama-2-13b-hf meta-llama/Meta-Llama-3-8B meta-llama/Meta-Llama-3-8B-Instruct
meta-llama/Llama-3.1-8B meta-llama/Llama-3.1-8B-Instruct meta-llama/Llama-3.2-1B
meta-llama/Llama-3.2-1B-Instruct meta-llama/Llama-3.2-3B meta-llama/Llama-3.2-3B-Instruct
mistralai/Mistral-7B-v0.1 mistralai/Mistral-7B-Instruct-v0.1 mistralai/Mistral-7B-Instruct-v0.2
mistralai/Mistral-7B-Instruct-v0.3 Qwen/Qwen2.5-0.5B Qwen/Qwen2.5-0.5B-Instruct
Qwen/Qwen2.5-1.5B-Instruct Qwen/Qwen2.5-7B-Instruct Qwen/Qwen2-7B-Instruct
EleutherAI/gpt-neo-125m EleutherAI/gpt-neo-1.3B EleutherAI/gpt-j-6b EleutherAI/pythia-70m
bigscience/bloom-560m bigscience/bloomz-560m tiiuae/falcon-7b TinyLlama/TinyLlama-1.1B-Chat-v1.0
HuggingFaceTB/SmolLM2-135M HuggingFaceTB/SmolLM2-135M-Instruct HuggingFaceH4/zephyr-7b-beta
sentence-transformers/all-MiniLM-L6-v2 sentence-transformers/all-mpnet-base-v2
stabilityai/stable-diffusion-2-1 runwayml/stable-diffusion-v1-5 CompVis/stable-diffusion-v1-4
""".split())
# datasets and evaluate metrics of tutorials and courses that certainly exist on the Hub
PUBLIC_DATASETS = frozenset("""
glue super_glue imdb squad squad_v2 ag_news yelp_review_full emotion dair-ai/emotion
rotten_tomatoes sst2 stanfordnlp/imdb stanfordnlp/sst2 nyu-mll/glue conll2003 wikitext
cnn_dailymail xsum samsum wmt16 opus_books billsum tweet_eval amazon_polarity mnist cifar10
common_voice mozilla-foundation/common_voice_11_0 librispeech_asr tatsu-lab/alpaca
yahma/alpaca-cleaned databricks/databricks-dolly-15k timdettmers/openassistant-guanaco
HuggingFaceH4/ultrachat_200k openai/gsm8k gsm8k
""".split())
PUBLIC_METRICS = frozenset("""
accuracy f1 precision recall exact_match glue squad squad_v2 seqeval bleu sacrebleu rouge meteor
wer cer bertscore perplexity matthews_correlation pearsonr spearmanr mse mae chrf google_bleu
""".split())
