"""Errors of preparing images, boxes and audio for a model: boxes in another format than the
augmentation or the loss expects, grayscale images and file paths at the image processor,
normalised pixels turned back into images, raw columns the Trainer dropped before the transform,
a renamed processor option; and audio that no backend decodes, librosa's keyword-only arguments,
clips shorter than the encoder's window, stereo at a mono model, torchaudio's removed backend
switch; truncated, unreadable, oversized or RGBA images, a missing libsndfile, and too many
open files."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.env_answers import MISSING, NEW, OLD
from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_v = signature_maker(14)


def refine_librosa_call(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """mel, melspectrogram, mfcc are librosa's names; load, resample, stft are everyone's:
    those only beside librosa."""
    if ev.get("generic") and not re.search(r"librosa", parsed.text, re.I):
        return {"reject": True}
    return None


MEDIA_INPUT_SIGNATURES: list[Signature] = [
    _v("boxes-outside-image-or-format",
       r"Expected [xy]_(?:min|max) for bbox[^\n]{0,200}to be in the range \[0\.0, 1\.0\]",
       "The boxes given to the augmentation extend past the image, or are in another format "
       "than declared (COCO [x, y, w, h] read as [x_min, y_min, x_max, y_max], or pixels read "
       "as normalised).", "albumentations checks boxes against the format in BboxParams.",
       ["data.batch-structure"],
       "A.Compose([...], bbox_params=A.BboxParams(format='coco', label_fields=['category'], "
       "clip=True))   # the boxes' real format; clip to the image",
       title="Boxes outside the image or in another format"),
    _v("boxes-wrong-corner-order",
       r"All bounding boxes should have positive height and width|"
       r"[xy]_max is less than or equal to [xy]_min for bbox",
       "The target boxes are in another format than the loss expects: [x, y, w, h] given where "
       "corners [x0, y0, x1, y1] are read (so x1 < x0), or boxes of zero size.",
       "Box losses (GIoU) and detectors need x1 > x0 and y1 > y0.", ["data.batch-structure"],
       "boxes[:, 2:] += boxes[:, :2]   # COCO [x, y, w, h] -> [x0, y0, x1, y1]\n"
       "keep = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])   # drop empty boxes",
       title="Boxes in the wrong corner order"),
    _v("box-iou-assert",
       r"\bAssertionError\b",
       "The target boxes are in another format than the loss expects: [x, y, w, h] or "
       "unnormalised boxes where DETR's GIoU reads corners, so x1 < x0.",
       "generalized_box_iou asserts that every box has x1 >= x0 and y1 >= y0.",
       ["data.batch-structure"],
       "# DETR targets: normalised (cx, cy, w, h); COCO annotations: [x, y, w, h]\n"
       "boxes[:, 2:] += boxes[:, :2]   # [x, y, w, h] -> corners where corners are expected",
       title="Boxes in the wrong corner order (GIoU's assert)",
       family="boxes-wrong-corner-order", requires=r"boxes\d\[:, 2:\] >= boxes\d\[:, :2\]"),
    _v("grayscale-image-at-processor",
       r"Unsupported number of image dimensions: 2",
       "A grayscale (single-channel) image reached the image processor, which expects H x W x C.",
       "Datasets mix RGB and L (grayscale) images; PIL keeps their mode.",
       ["data.batch-structure"],
       "image = image.convert('RGB')   # in the transform, before the image processor",
       title="A grayscale image at the image processor"),
    _v("image-path-at-processor",
       r"Invalid image type\. Expected either PIL\.Image\.Image, numpy\.ndarray, torch\.Tensor, "
       r"tf\.Tensor or jax\.ndarray, but got <class 'str'>",
       "A file path (a string) was given to the image processor instead of the opened image.",
       "Image processors take pixels, not paths.", ["data.batch-structure"],
       "from PIL import Image\nimage_processor(Image.open(path).convert('RGB'), "
       "return_tensors='pt')", title="A file path given as an image"),
    _v("image-processor-option-renamed",
       r"'\w{0,40}ImageProcessor' object has no attribute 'reduce_labels'",
       "Code written for an older transformers reads image_processor.reduce_labels, which "
       "newer releases renamed do_reduce_labels.", "The image processors' options were "
       "renamed do_*.", ["environment.package-versions"],
       "reduce = image_processor.do_reduce_labels   # was .reduce_labels",
       family=NEW, title="reduce_labels renamed do_reduce_labels"),
    _v("normalized-pixels-to-image",
       r"The image to be converted to a PIL image contains values outside the range \[0, 1\]",
       "Pixels that were already normalised (mean/std: values below 0 and above 1) are turned "
       "back into a PIL image without undoing the normalisation.",
       "to_pil_image expects [0, 1] floats or [0, 255] integers.", ["data.batch-structure"],
       "img = pixel_values * std + mean   # undo the normalisation first\n"
       "to_pil_image(img.clip(0, 1))", title="Normalised pixels turned into an image"),
    _v("raw-media-column-dropped",
       r"KeyError: '(?:image|img|audio)'",
       "The Trainer dropped the raw image (or audio) column before the on-the-fly transform ran: "
       "remove_unused_columns removes every column the model's forward does not take.",
       "set_transform runs when a batch is read, after the Trainer removed the columns.",
       ["data.raw-text-columns"],
       "TrainingArguments(..., remove_unused_columns=False)   # keep 'image' for the transform",
       title="The raw image column dropped before the transform",
       requires=r"set_transform|with_transform|Trainer|trainer\.py"),
    _v("audio-backend-missing",
       r"Couldn't find appropriate backend to handle uri|audioread\.(?:exceptions\.)?"
       r"NoBackendError|\bNoBackendError\b|No audio I/O backend is available|Backend "
       r"\"?\w{1,20}\"? is not one of available backends|"
       # torchaudio 2.x on a compressed format its backend cannot decode
       r"Failed to load audio from \S+\.(?:mp3|m4a|aac|ogg|opus|webm|mp4|wma)\b",
       "No audio backend can decode the file: torchaudio finds neither soundfile nor FFmpeg, or "
       "librosa's audioread fallback finds no FFmpeg for the format (mp3, m4a).",
       "Audio loaders delegate decoding to soundfile or FFmpeg.",
       ["environment.package-versions"],
       "pip install soundfile   # and for mp3/m4a: FFmpeg (apt install ffmpeg / conda install "
       "ffmpeg)", family=MISSING, title="No audio backend to decode the file"),
    _v("ffmpeg-binary-missing",
       r"ffmpeg was not found but is required to (?:load|stream) audio",
       "The ffmpeg program is not installed (or not on PATH): transformers' audio pipelines "
       "run it to decode an audio file given by name.",
       "The pipeline calls the ffmpeg executable in a subprocess; pip packages do not bring it.",
       ["environment.package-versions"],
       "apt-get install -y ffmpeg   # or: conda install -c conda-forge ffmpeg; or pass the "
       "decoded array: pipe({'raw': array, 'sampling_rate': sr})", family=MISSING,
       title="The ffmpeg program is missing"),
    _v("soundfile-without-mp3",
       r"Error opening [^\n]{0,300}?\.mp3'?: Format not recogni[sz]ed",
       "The installed soundfile brings a libsndfile older than 1.1, which cannot decode MP3: "
       "soundfile 0.12 and later ship one that can.",
       "soundfile decodes with the libsndfile it finds or bundles.",
       ["environment.package-versions"],
       'pip install -U "soundfile>=0.12"   # bundles libsndfile 1.1+, which reads MP3\n'
       "python -c \"import soundfile; print(soundfile.__libsndfile_version__)\"",
       family=OLD, title="An MP3 that this libsndfile cannot read"),
    _v("librosa-keyword-only-arguments",
       r"(?:mel|melspectrogram|mfcc|chroma_stft|pitch_shift|time_stretch|pad_center|"
       r"(?P<generic>resample|"
       r"stft|istft|load))\(\) takes [01] positional arguments? but \d+ (?:positional arguments? )?"
       r"(?:\(and \d+ keyword-only arguments?\) )?(?:were|was) given",
       "librosa 0.10 made these functions' arguments keyword-only; the code passes them by "
       "position, as librosa 0.9 allowed.", "librosa 0.10 changed its signatures.",
       ["environment.package-versions"],
       "librosa.resample(y, orig_sr=sr, target_sr=16000)   # by name\n"
       "librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=80)\n# or: pip install \"librosa==0.9.2\"",
       family=NEW, title="librosa's keyword-only arguments", refine=refine_librosa_call),
    _v("audio-clip-too-short",
       r"Kernel size can't be greater than actual input size",
       "A clip is shorter than the encoder's first convolution window (an empty or very short "
       "segment).", "Convolutional feature encoders need at least one window of samples.",
       ["data.empty-text"],
       "ds = ds.filter(lambda a: len(a['audio']['array']) >= 16000 * 0.5)   # drop tiny clips\n"
       "# or pad short clips to the model's minimum length",
       title="A clip shorter than the encoder's window"),
    _v("input-shorter-than-cnn-filter",
       # torch < 1.0's wording of a convolution whose input is shorter than its kernel
       r"Calculated output size: \([^)\n]{0,40}\)\. Output size is too small|"
       r"Output size is too small",
       "An input is shorter than a convolution's kernel, so the convolution has no output: a "
       "word with fewer characters than a character CNN's widest filter, a text shorter than a "
       "text CNN's window, a clip or image smaller than the first layer's kernel.",
       "A convolution without padding needs at least one full kernel width of input.",
       ["data.empty-text"],
       "# pad every input to at least the widest kernel (e.g. AllenNLP's token_characters "
       "indexer: min_padding_length = the largest ngram filter size)\n"
       "# or filter out inputs shorter than it",
       title="An input shorter than the convolution's kernel", priority=12),
    _v("stereo-audio-at-mono-model",
       r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d, but got input of size: "
       r"\[[\d, ]{1,40}, 2\]",
       "Stereo audio (two channels) reaches a speech encoder that takes one channel.",
       "wav2vec2-style encoders read a mono waveform.", ["data.batch-structure"],
       "waveform = waveform.mean(axis=-1)   # mono\n# or load mono: librosa.load(path, sr=16000, "
       "mono=True)", title="Stereo audio at a mono model"),
    _v("torchaudio-backend-switch-removed",
       r"module 'torchaudio' has no attribute 'set_audio_backend'",
       "torchaudio 2.x removed set_audio_backend (the dispatcher picks the backend); the code "
       "was written for an older torchaudio.", "torchaudio moved to per-call backends.",
       ["environment.package-versions"],
       "# drop the call; pass the backend per call if needed:\ntorchaudio.load(path, "
       "backend='soundfile')", family=NEW, title="torchaudio.set_audio_backend removed"),
    _v("image-file-truncated",
       r"image file is truncated|broken data stream when reading image file|Premature end of "
       r"JPEG data",
       "An image of the dataset is corrupt or only partly written (a download or copy cut "
       "short): Pillow refuses an image whose data ends early.",
       "Pillow decodes images lazily, when the batch is built.", ["data.batch-structure"],
       "from PIL import ImageFile\nImageFile.LOAD_TRUNCATED_IMAGES = True   # or find and drop "
       "the file", title="A truncated image file"),
    _v("file-not-an-image",
       r"cannot identify image file|Not a JPEG file: starts with 0x|Expected image \(JPEG, PNG, "
       r"or GIF\)",
       "A file of the image dataset is not an image Pillow reads: an empty file, another format "
       "under an image extension, or macOS '._' metadata files the folder loader picked up.",
       "Folder loaders open every file with an image extension.", ["data.batch-structure"],
       "find data/ -name '._*' -delete   # and drop empty or unreadable files before loading",
       title="A file that is not an image"),
    _v("image-too-large-for-pillow",
       r"DecompressionBombError: Image size",
       "An image has more pixels than Pillow's safety limit, which refuses it as a possible "
       "decompression bomb.", "Pillow caps pixels per image (MAX_IMAGE_PIXELS).",
       ["data.batch-structure"],
       "from PIL import Image\nImage.MAX_IMAGE_PIXELS = None   # trusted data only; or downscale "
       "those images", title="An image over Pillow's size limit"),
    _v("rgba-saved-as-jpeg",
       r"cannot write mode RGBA as JPEG",
       "Images with an alpha channel (RGBA PNGs, screenshots) are written as JPEG, which has "
       "none.", "JPEG stores RGB or L only.", ["data.batch-structure"],
       "img = img.convert('RGB')   # before saving as JPEG; or save as PNG",
       title="RGBA saved as JPEG"),
    _v("libsndfile-missing",
       r"sndfile library not found|cannot load library '?libsndfile|find_library\(\) did not "
       r"manage to locate a library called '?sndfile",
       "soundfile (behind datasets' Audio feature and librosa) needs the native libsndfile, "
       "which is missing: an old soundfile, or a platform without a bundled wheel.",
       "soundfile wraps the C library libsndfile.", ["environment.package-versions"],
       "sudo apt-get install libsndfile1   # or: conda install -c conda-forge libsndfile; or "
       "pip install -U \"soundfile>=0.12.1\"", family=MISSING,
       title="libsndfile missing", priority=17),
    _v("too-many-open-files",
       r"\[Errno 24\] Too many open files|Too many open files\. Communication with the workers|"
       r"received 0 items of ancdata",
       "The process reached the limit of open files: DataLoader workers share tensors through "
       "file descriptors, or a dataset opens many files or cache shards at once.",
       "Each shared tensor or open file holds a descriptor; ulimit -n caps them.",
       ["data.batch-structure"],
       "import torch.multiprocessing as mp; mp.set_sharing_strategy('file_system')\n# or: "
       "ulimit -n 65535 before starting", title="Too many open files"),
]
