import numpy as np
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment_gaps")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    predictions = np.argmax(logits, axis=-1)
    return {"accuracy": float((predictions == labels).mean())}


args = TrainingArguments(
    "out", learning_rate=5e-5, per_device_train_batch_size=16, per_device_eval_batch_size=32,
    num_train_epochs=2, eval_strategy="epoch", save_strategy="no", report_to="none",
    logging_steps=5)
trainer = Trainer(
    model=model, args=args, train_dataset=tokenized_datasets["train"],
    eval_dataset=tokenized_datasets["validation"], data_collator=DataCollatorWithPadding(tokenizer),
    compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
