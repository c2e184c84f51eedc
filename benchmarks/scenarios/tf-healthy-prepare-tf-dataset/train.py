import tf_keras
from datasets import load_from_disk
from transformers import AutoTokenizer, TFAutoModelForSequenceClassification

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/topics")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True)
model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=4)
train_dataset = model.prepare_tf_dataset(tokenized_datasets["train"], batch_size=16, shuffle=True,
                                         tokenizer=tokenizer)
validation_dataset = model.prepare_tf_dataset(tokenized_datasets["validation"], batch_size=16,
                                              shuffle=False, tokenizer=tokenizer)
model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))
model.fit(train_dataset, validation_data=validation_dataset, epochs=2)
