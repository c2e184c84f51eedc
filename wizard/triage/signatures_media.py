"""Errors of fine-tuning vision, audio and vision-language models: image tokens cut from the
prompt by truncation, a prompt without the image token, images or mel features of the wrong size
for the encoder, Whisper's language detection on mixed batches, diffusers' LoRA backend and
dataset columns, and the processor warnings that are no error.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_v = signature_maker(12)


def refine_whisper_bins(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """128 against 80 channels is Whisper's mel bins only when the paste is about Whisper (or
    mel features): other convolutions can have those widths too."""
    said = re.search(r"whisper|\bmel\b|input_features|weight of size \[\d+, (?:80|128), 3\]",
                     parsed.text, re.I)       # Whisper's first convolution: kernel 3
    return None if said else {"reject": True}


MEDIA_SIGNATURES: list[Signature] = [
    _v("vlm-image-tokens-truncated",
       r"(?:Image|Video) features and (?:image|video) tokens do not match|Number of images does "
       r"not match number of special image tokens in the (?:input )?text",
       "The prompt holds fewer image (or video) placeholder tokens than the vision tower produced "
       "features: the processor expanded <image> into one token per patch, and truncation "
       "(max_length, max_prompt_length, cutoff_len) then cut part of them while the pixel "
       "values stayed.",
       "A vision-language model replaces each image token with one image feature; the counts "
       "must be equal.", ["data.text-lengths"],
       "batch = processor(text=texts, images=images, padding=True, truncation=False, "
       "return_tensors='pt')\n# or a max_length that keeps the image tokens: SFTConfig("
       "max_length=None), a larger cutoff_len / max_prompt_length",
       title="Image tokens cut from the prompt"),
    _v("vlm-prompt-without-image-token",
       r"The number of image tokens is 0 while the number of image given to the model is",
       "Images reached the model but the prompt has no <image> token: the text is not in the "
       "model's prompt format, or the chat template did not insert the image placeholder.",
       "The model puts each image's features where its image token stands.",
       ["data.chat-template-mismatch"],
       "prompt = 'USER: <image>\\nWhat is shown?\\nASSISTANT:'   # or processor.apply_chat_"
       "template(messages) with {'type': 'image'} in the content\n"
       "inputs = processor(text=prompt, images=image, return_tensors='pt')",
       title="A prompt without the image token"),
    _v("image-size-mismatch",
       r"Input image size \((?P<got_h>\d+)\*(?P<got_w>\d+)\) doesn't match model "
       r"\((?P<h>\d+)\*(?P<w>\d+)\)",
       "The images reach a ViT-style model at another size than the one its patch and position "
       "embeddings were built for: they were not resized by the model's image processor.",
       "The position embeddings have one entry per patch of the training image size.",
       ["data.batch-structure"],
       "processor = AutoImageProcessor.from_pretrained(checkpoint)   # resizes to the model's "
       "size\npixel_values = processor(images, return_tensors='pt').pixel_values\n"
       "# or keep the size: model(pixel_values, interpolate_pos_encoding=True)",
       title="Image size does not match the model"),
    _v("whisper-features-not-padded",
       r"Whisper expects the mel input features to be of length (?P<expected>\d+),\s+but found "
       r"(?P<found>\d+)",
       "Whisper's encoder takes 30-second log-mel inputs (3000 frames): the features were not "
       "padded to 30 s (the feature extractor called with padding='longest', or cropped), or raw "
       "waveform samples were passed instead of mel features.",
       "The encoder's position embeddings cover exactly 1500 positions (3000 frames).",
       ["data.batch-structure"],
       "features = processor.feature_extractor(audio, sampling_rate=16000, "
       "return_tensors='pt')   # default padding: 3000 frames\n"
       "model(input_features=features.input_features, labels=labels)",
       framework="pytorch", title="Whisper features not 30 seconds long"),
    _v("whisper-mel-bins-mismatch",
       r"to have 128 channels, but got 80 channels instead|to have 80 channels, but got 128 "
       r"channels instead",
       "The mel features have another number of bins than the checkpoint: whisper-large-v3 (and "
       "turbo) use 128 mel bins, the earlier checkpoints 80; the features come from another "
       "checkpoint's feature extractor, an older openai-whisper, or n_mels written into the "
       "data script.", "The encoder's first convolution takes one channel per mel bin.",
       ["data.batch-structure"],
       "fe = WhisperFeatureExtractor.from_pretrained(checkpoint)   # the model's own: 128 bins "
       "for large-v3\n# openai-whisper: whisper.log_mel_spectrogram(audio, n_mels="
       "model.dims.n_mels)", framework="pytorch", title="Mel bins of another Whisper",
       refine=refine_whisper_bins),
    _v("ctc-vocab-not-built-for-dataset",
       r"Label values must be <= vocab_size: (?P<vocab_size>\d+)",
       "The transcripts were encoded with a vocabulary the CTC head does not have: the "
       "vocabulary (vocab.json) was built for another language or dataset, or the model was "
       "created with another vocab_size than the tokenizer's.",
       "A CTC head has one output per character of its vocabulary; every label id must be one "
       "of them.", ["data.labels-out-of-range"],
       "# build vocab.json from your own transcripts' characters, then\n"
       "model = Wav2Vec2ForCTC.from_pretrained(base, vocab_size=len(processor.tokenizer),\n"
       "                                       pad_token_id=processor.tokenizer.pad_token_id)",
       title="CTC labels beyond the model's vocabulary"),
    _v("whisper-multiple-languages",
       r"Multiple languages detected when trying to predict the most likely target language",
       "Whisper's generate detects the language of each clip when none is set, and this batch "
       "holds clips detected as different languages (evaluation of a fine-tuned model, where "
       "the generation config names no language).",
       "A fine-tuned Whisper should be told its language and task rather than guess them.",
       ["hyperparameters.hidden-defaults"],
       "model.generation_config.language = 'hi'   # the language you fine-tune on\n"
       "model.generation_config.task = 'transcribe'",
       framework="pytorch", title="Whisper detected several languages in one batch"),
    _v("diffusers-dataset-column-missing",
       r"--(?P<option>caption|image)_column' value '(?P<column>[^'\n]{1,80})' needs to be one "
       r"of:",
       "The diffusers training script looks for its --image_column / --caption_column in the "
       "dataset, which has other columns: an imagefolder without metadata.jsonl has only "
       "'image' (and 'label'), so the default caption column 'text' is missing.",
       "The script reads the captions from the column named by --caption_column.",
       ["data.label-column-missing"],
       '# train_dir/metadata.jsonl, one line per image:\n{"file_name": "0001.png", "text": '
       '"a photo of ..."}\n# or name the real columns: --image_column=image '
       "--caption_column=caption", title="Dataset column the diffusers script needs"),
    _v("peft-backend-missing",
       r"PEFT backend is required for this method",
       "diffusers' LoRA methods need its PEFT backend, which is on only when peft >= 0.6 and "
       "transformers >= 4.34 are importable by the same Python that runs diffusers: peft is "
       "missing, too old, or installed for another interpreter.",
       "diffusers checks USE_PEFT_BACKEND when it is imported.",
       ["environment.package-versions"],
       "python -m pip install -U peft transformers   # with the Python that runs diffusers\n"
       "python -c \"from diffusers.utils import USE_PEFT_BACKEND; print(USE_PEFT_BACKEND)\"",
       title="diffusers without its PEFT backend", family="env-missing-package"),
    _v("chat-template-role-order",
       r"Conversation roles must alternate user/assistant|System role not supported",
       "The model's chat template accepts only strictly alternating user/assistant turns (the "
       "Mistral, Llama-2 and Gemma templates): the messages start with a system turn, or two "
       "turns of one role follow each other.",
       "Such templates raise on any other order instead of formatting it.",
       ["data.chat-template-mismatch"],
       "if messages[0]['role'] == 'system':   # fold it into the first user turn\n"
       "    system = messages.pop(0)['content']\n"
       "    messages[0]['content'] = system + '\\n\\n' + messages[0]['content']",
       title="The chat template refuses this order of roles"),
    _v("llava-processor-expansion-warning",
       r"Expanding inputs for image tokens in [\w-]+ should be done in processing",
       "Not an error: the processor saved with the checkpoint lacks patch_size and "
       "vision_feature_select_strategy, so the model expands the image token itself; "
       "generation works as before.",
       "The warning asks for the two values on the processor, not on the model.", [],
       "processor.patch_size = model.config.vision_config.patch_size\n"
       "processor.vision_feature_select_strategy = model.config.vision_feature_select_strategy",
       title="Image-token expansion warning (harmless)", priority=0, benign=True),
]
