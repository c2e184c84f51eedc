"""Errors of fine-tuning diffusion models and loading their adapters (diffusers): LoRA files in
a layout the installed converter does not know, LyCORIS LoKr files given as LoRAs, and a textual
inversion initializer word the tokenizer splits."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_d = signature_maker(14)


def refine_converter_key(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A KeyError is the LoRA converter's only when its frames are in the paste."""
    if ev.get("incompatible") or re.search(r"_convert_non_diffusers_\w{1,60}_lora_to_diffusers|"
                                           r"lora_conversion_utils", parsed.text):
        return None
    return {"reject": True}


DIFFUSION_SIGNATURES: list[Signature] = [
    _d("caption-extension-mismatch",
       r"No caption file found for (?P<count>\d+) images",
       "The training run found none of the caption files: they carry another extension than "
       "the one the run looks for (caption_extension: kohya's default is .caption, BLIP and "
       "WD14 write .txt), or they are not beside the images with the same names.",
       "Captions are read from <image name><caption_extension> in the image folder.",
       ["data.batch-structure"],
       "--caption_extension=.txt   # the extension your caption files have (kohya_ss GUI: "
       "'Caption Extension')\n# img_001.png -> img_001.txt in the same folder",
       title="Captions not found for the images"),
    _d("lora-layout-not-converted",
       r"(?P<incompatible>Incompatible keys detected)|\bKeyError\b",
       "The LoRA file is in a layout of another trainer (kohya, ComfyUI, ai-toolkit, "
       "OneTrainer) that the installed diffusers' converter does not know, or that trains "
       "other modules than the converter expects: keys are left over or missing.",
       "load_lora_weights converts non-diffusers LoRA keys model family by model family; each "
       "release recognises more layouts.", ["model.adapter"],
       "pip install -U diffusers peft   # newer converters read more layouts\n# else convert "
       "the file to diffusers (or kohya) key names, then pipe.load_lora_weights(path)",
       title="A LoRA layout diffusers does not convert", refine=refine_converter_key),
    _d("lokr-adapter-not-lora",
       r"state_dict`? should be empty at this point[^\n]{0,3000}?lokr_w",
       "The file is a LyCORIS LoKr adapter (lokr_w1 / lokr_w2 Kronecker factors), not a LoRA: "
       "diffusers' LoRA loaders map only lora_A/lora_B (lora_down/lora_up) weights.",
       "LoKr factors a weight update differently from LoRA.", ["model.adapter"],
       "# load it with PEFT's LoKr support (peft.LoKrConfig / PeftModel.from_pretrained on the "
       "denoiser),\n# or export the adapter as a plain LoRA from the trainer that made it",
       title="A LoKr file loaded as a LoRA"),
    _d("data-dir-points-to-wrong-level",
       r"No data found\. Please verify arguments \(train_data_dir must be the parent of folders "
       r"with images\)",
       "train_data_dir points at the folder that holds the images; kohya's sd-scripts read it as "
       "the parent of one or more <repeats>_<name> subfolders (10_mychar/) and find none.",
       "Each subfolder's number is how often its images repeat per epoch.",
       ["data.batch-structure"],
       "--train_data_dir=D:/training/img   # the parent of D:/training/img/10_mychar/\n"
       "# kohya_ss GUI: 'Image folder' = the parent folder, not the 10_mychar folder itself",
       title="train_data_dir is not the parent of the image folders"),
    _d("dataset-folder-naming-wrong",
       r"invalid literal for int\(\) with base 10: '\d+[ -][^'\n]{1,200}'",
       "An image subfolder is not named <repeats>_<name>: kohya reads the repeat count from the "
       "text before the first underscore, and this name has a space or dash there.",
       "10_mychar repeats its images 10 times per epoch; the number must stand alone.",
       ["data.batch-structure"], "mv \"100 mychar\" 100_mychar   # <repeats>_<name>, an "
       "underscore after the number", title="An image folder not named <repeats>_<name>",
       requires=r"kohya|sd-scripts|sd_scripts|train_data_dir|train_network|train_db|lora_gui|"
                r"dreambooth_gui"),
    _d("initializer-token-not-single",
       r"The initializer token must be a single token|maps to more than a single token",
       "--initializer_token is a word the CLIP tokenizer splits into several tokens; textual "
       "inversion initialises the new embedding from exactly one token.",
       "The new token's embedding starts as a copy of the initializer token's.",
       ["data.tokenizer-model-mismatch"],
       "--initializer_token=\"animal\"   # a word tokenizer.encode(word, "
       "add_special_tokens=False) gives as one id", title="A multi-token initializer word"),
]
