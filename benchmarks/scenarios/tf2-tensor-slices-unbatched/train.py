import tensorflow as tf
import tf_keras
from datasets import load_from_disk
from transformers import AutoTokenizer, TFAutoModelForSequenceClassification

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)

train_texts = list(raw_datasets["train"]["text"])
train_labels = list(raw_datasets["train"]["label"])
val_texts = list(raw_datasets["validation"]["text"])
val_labels = list(raw_datasets["validation"]["label"])

train_encodings = tokenizer(train_texts, truncation=True, padding=True)
val_encodings = tokenizer(val_texts, truncation=True, padding=True)

train_dataset = tf.data.Dataset.from_tensor_slices((dict(train_encodings), train_labels))
val_dataset = tf.data.Dataset.from_tensor_slices((dict(val_encodings), val_labels))

model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5),
              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
model.fit(train_dataset, validation_data=val_dataset, epochs=2)
