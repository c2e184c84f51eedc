import numpy as np
import tf_keras
from datasets import load_from_disk
from transformers import (AutoTokenizer, DataCollatorWithPadding,
                          TFAutoModelForSequenceClassification)

checkpoint = "@FIXTURES@/models/distilbert"
raw_datasets = load_from_disk("@FIXTURES@/data/nli")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["premise"], examples["hypothesis"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
data_collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
# labels as fit()'s y, so that Keras can turn class_weight into per-example weights
train_dataset = tokenized_datasets["train"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=True, collate_fn=data_collator)
validation_dataset = tokenized_datasets["validation"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=False, collate_fn=data_collator)

labels = np.array(tokenized_datasets["train"]["label"])
counts = np.bincount(labels)
class_weight = {i: len(labels) / (len(counts) * c) for i, c in enumerate(counts)}
print("class weights:", class_weight)

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)
# no loss: the model's own (per-example) cross-entropy; transformers moves y into the inputs
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=3e-5), metrics=["accuracy"])
model.fit(train_dataset, validation_data=validation_dataset, epochs=2, class_weight=class_weight)
