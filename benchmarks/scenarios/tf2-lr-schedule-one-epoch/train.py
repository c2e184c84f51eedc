import tf_keras
from datasets import load_from_disk
from tf_keras.optimizers.schedules import PolynomialDecay
from transformers import (AutoTokenizer, DataCollatorWithPadding,
                          TFAutoModelForSequenceClassification)

checkpoint = "@FIXTURES@/models/distilbert"
raw_datasets = load_from_disk("@FIXTURES@/data/nli")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["premise"], examples["hypothesis"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
data_collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
tf_train_dataset = tokenized_datasets["train"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=True, collate_fn=data_collator)
tf_validation_dataset = tokenized_datasets["validation"].to_tf_dataset(
    columns=["input_ids", "attention_mask"], label_cols=["label"], batch_size=16,
    shuffle=False, collate_fn=data_collator)

num_epochs = 3
# the number of training steps is the number of batches in the dataset
num_train_steps = len(tf_train_dataset)
lr_scheduler = PolynomialDecay(initial_learning_rate=5e-5, end_learning_rate=0.0,
                               decay_steps=num_train_steps)
optimizer = tf_keras.optimizers.Adam(learning_rate=lr_scheduler)

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)
model.compile(optimizer=optimizer,
              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
show_lr = tf_keras.callbacks.LambdaCallback(on_epoch_begin=lambda epoch, logs: print(
    f"epoch {epoch + 1}: learning rate {float(lr_scheduler(model.optimizer.iterations)):.2e}"))
model.fit(tf_train_dataset, validation_data=tf_validation_dataset, epochs=num_epochs,
          callbacks=[show_lr])
