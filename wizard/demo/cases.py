"""The demo cases: the course's script with its three faults, and the same script fixed."""
from __future__ import annotations

from pathlib import Path

from wizard.core.case import Case

COURSE_TRACEBACK = (
    "ValueError: No gradients provided for any variable: ['tf_distil_bert_for_sequence_"
    "classification/distilbert/embeddings/word_embeddings/weight:0', '...']"
)


def course_case(root: Path, framework: str = "tensorflow") -> Case:
    """The course chapter's script: labels in the inputs and a Keras loss, num_labels left at 2,
    optimizer="adam". In PyTorch the same faults are num_labels and a bare torch.optim.Adam."""
    data = {
        "model": str(demo_model(root, framework)),
        "framework": framework,
        "dataset": {"path": str(root / "dataset"), "train_split": "train",
                    "eval_split": "validation", "text_columns": ["premise", "hypothesis"],
                    "label_column": "label"},
        "preprocessing": {"truncation": True},
        "training": {"optimizer": "adam", "batch_size": 16, "epochs": 1, "labels": "inputs"},
        "symptom": "error",
        "notes": "The HF course, chapter 8: DistilBERT fine-tuned on MNLI.",
    }
    if framework == "tensorflow":
        data["training"]["loss"] = "sparse_categorical_crossentropy"
        data["training"]["trainer"] = "keras"
        data["traceback"] = COURSE_TRACEBACK
    else:
        data["training"]["trainer"] = "loop"
        data["traceback"] = "IndexError: Target 2 is out of bounds."
    return Case.from_dict(data)


def healthy_case(root: Path, framework: str = "tensorflow") -> Case:
    """The course's script after its three fixes."""
    case = course_case(root, framework)
    case.num_labels = 3
    case.training.loss = None
    case.training.optimizer = {"name": "Adam", "learning_rate": 5e-5}
    case.symptom = "none"
    case.traceback = ""
    case.validate()
    return case


def demo_model(root: Path, framework: str) -> Path:
    """The demo's model folder for `framework` (TensorFlow gets its TF-weights-only folder)."""
    tf_only = root / "model-tf"
    return tf_only if framework == "tensorflow" and tf_only.is_dir() else root / "model"
