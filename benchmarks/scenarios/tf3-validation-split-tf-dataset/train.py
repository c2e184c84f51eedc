import tf_keras
from datasets import load_from_disk
from transformers import (AutoTokenizer, DataCollatorWithPadding,
                          TFAutoModelForSequenceClassification)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_train = raw_datasets["train"].map(tokenize, batched=True)
data_collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
train_dataset = tokenized_train.to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=True, collate_fn=data_collator)

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5),
              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
# keep 20 % of the training data aside to watch the validation loss
model.fit(train_dataset, validation_split=0.2, epochs=3)
