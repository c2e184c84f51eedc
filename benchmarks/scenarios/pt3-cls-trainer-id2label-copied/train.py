import numpy as np
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/topics")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def preprocess_function(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(preprocess_function, batched=True)
data_collator = DataCollatorWithPadding(tokenizer=tokenizer)

id2label = {0: "NEGATIVE", 1: "POSITIVE"}
label2id = {"NEGATIVE": 0, "POSITIVE": 1}
model = AutoModelForSequenceClassification.from_pretrained(
    checkpoint, num_labels=4, id2label=id2label, label2id=label2id)


def compute_metrics(eval_pred):
    predictions, labels = eval_pred
    predictions = np.argmax(predictions, axis=1)
    return {"accuracy": float((predictions == labels).mean())}


training_args = TrainingArguments(
    output_dir="out", learning_rate=2e-5, per_device_train_batch_size=16,
    per_device_eval_batch_size=16, num_train_epochs=2, weight_decay=0.01,
    eval_strategy="epoch", save_strategy="no", report_to="none", logging_steps=5, use_cpu=True)
trainer = Trainer(
    model=model, args=training_args, train_dataset=tokenized_datasets["train"],
    eval_dataset=tokenized_datasets["validation"], processing_class=tokenizer,
    data_collator=data_collator, compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
