import numpy as np
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/distilbert"
raw_datasets = load_from_disk("@FIXTURES@/data/nli")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["premise"], examples["hypothesis"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    predictions = np.argmax(logits, axis=-1)
    return {"accuracy": float((predictions == labels).mean())}


args = TrainingArguments(
    "out", learning_rate=2e-5, per_device_train_batch_size=16, per_device_eval_batch_size=32,
    num_train_epochs=2, weight_decay=0.01, eval_strategy="epoch", save_strategy="no",
    logging_steps=5, report_to="none", use_cpu=True, remove_unused_columns=False)
trainer = Trainer(
    model=model, args=args, train_dataset=tokenized_datasets["train"],
    eval_dataset=tokenized_datasets["validation"], data_collator=DataCollatorWithPadding(tokenizer),
    compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
