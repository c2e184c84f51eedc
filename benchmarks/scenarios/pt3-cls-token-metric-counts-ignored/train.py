import numpy as np
from datasets import load_from_disk
from transformers import (AutoModelForTokenClassification, AutoTokenizer,
                          DataCollatorForTokenClassification, Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/ner")
label_names = raw_datasets["train"].features["ner_tags"].feature.names
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize_and_align_labels(examples):
    tokenized = tokenizer(examples["tokens"], truncation=True, is_split_into_words=True)
    all_labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        previous, labels = None, []
        for word in tokenized.word_ids(i):
            labels.append(-100 if word is None or word == previous else tags[word])
            previous = word
        all_labels.append(labels)
    tokenized["labels"] = all_labels
    return tokenized


tokenized_datasets = raw_datasets.map(tokenize_and_align_labels, batched=True,
                                      remove_columns=raw_datasets["train"].column_names)
model = AutoModelForTokenClassification.from_pretrained(
    checkpoint, num_labels=len(label_names),
    id2label=dict(enumerate(label_names)), label2id={n: i for i, n in enumerate(label_names)})


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    predictions = np.argmax(logits, axis=-1)
    return {"token_accuracy": float((predictions == labels).mean())}


args = TrainingArguments("out", learning_rate=5e-5, per_device_train_batch_size=16,
                         per_device_eval_batch_size=8, num_train_epochs=2, eval_strategy="epoch",
                         save_strategy="no", logging_steps=5, report_to="none", use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized_datasets["train"],
                  eval_dataset=tokenized_datasets["validation"],
                  data_collator=DataCollatorForTokenClassification(tokenizer),
                  compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
