import numpy as np
import torch
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/topics")
label_names = raw_datasets["train"].features["label"].names
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
model = AutoModelForSequenceClassification.from_pretrained(
    checkpoint, num_labels=len(label_names),
    id2label=dict(enumerate(label_names)), label2id={n: i for i, n in enumerate(label_names)})

# inverse-frequency class weights ("balanced"), one per class
counts = np.bincount(raw_datasets["train"]["label"], minlength=len(label_names))
class_weights = torch.tensor(len(raw_datasets["train"]) / (len(label_names) * counts),
                             dtype=torch.float32)


class WeightedLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits
        loss_fct = torch.nn.CrossEntropyLoss(weight=class_weights.to(logits.device))
        loss = loss_fct(logits.view(-1, model.config.num_labels), labels.view(-1))
        return (loss, outputs) if return_outputs else loss


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    predictions = np.argmax(logits, axis=-1)
    return {"accuracy": float((predictions == labels).mean())}


args = TrainingArguments(
    "out", learning_rate=5e-5, per_device_train_batch_size=16, per_device_eval_batch_size=32,
    num_train_epochs=2, eval_strategy="epoch", save_strategy="no", report_to="none",
    logging_steps=5, use_cpu=True)
trainer = WeightedLossTrainer(
    model=model, args=args, train_dataset=tokenized_datasets["train"],
    eval_dataset=tokenized_datasets["validation"], data_collator=DataCollatorWithPadding(tokenizer),
    compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
