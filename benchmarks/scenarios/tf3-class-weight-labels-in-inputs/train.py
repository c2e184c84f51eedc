import numpy as np
import tf_keras
from datasets import load_from_disk
from transformers import (AutoTokenizer, DataCollatorWithPadding,
                          TFAutoModelForSequenceClassification)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/topics")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
data_collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
# the labels ride in the input dict: the model computes its own loss
train_dataset = tokenized_datasets["train"].to_tf_dataset(
    columns=["input_ids", "attention_mask", "label"], batch_size=16,
    shuffle=True, collate_fn=data_collator)
validation_dataset = tokenized_datasets["validation"].to_tf_dataset(
    columns=["input_ids", "attention_mask", "label"], batch_size=16,
    shuffle=False, collate_fn=data_collator)

# class weights from the label counts (the TensorFlow imbalanced-data tutorial's formula)
labels = np.array(tokenized_datasets["train"]["label"])
counts = np.bincount(labels)
class_weight = {i: len(labels) / (len(counts) * c) for i, c in enumerate(counts)}
print("class weights:", class_weight)

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=4)
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))
model.fit(train_dataset, validation_data=validation_dataset, epochs=2, class_weight=class_weight)
