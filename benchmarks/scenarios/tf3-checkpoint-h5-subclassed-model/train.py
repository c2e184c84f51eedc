import tf_keras
from datasets import load_from_disk
from transformers import (AutoTokenizer, DataCollatorWithPadding,
                          TFAutoModelForSequenceClassification)

checkpoint = "@FIXTURES@/models/distilbert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
data_collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
train_dataset = tokenized_datasets["train"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=True, collate_fn=data_collator)
validation_dataset = tokenized_datasets["validation"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=False, collate_fn=data_collator)

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5),
              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])

# keep the best epoch on disk and stop when the validation loss stops improving
callbacks = [
    tf_keras.callbacks.ModelCheckpoint("best_model.h5", monitor="val_loss", save_best_only=True),
    tf_keras.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True),
]
model.fit(train_dataset, validation_data=validation_dataset, epochs=3, callbacks=callbacks)
