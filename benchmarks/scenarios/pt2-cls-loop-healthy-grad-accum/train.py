import math

import torch
from torch.utils.data import DataLoader
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          get_scheduler)

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True, remove_columns=["text"])
tokenized_datasets = tokenized_datasets.rename_column("label", "labels")
# batches of 8 on the device, one optimizer update every 4 of them (effective batch 32)
train_dataloader = DataLoader(tokenized_datasets["train"], batch_size=8, shuffle=True,
                              collate_fn=DataCollatorWithPadding(tokenizer))
accumulation_steps = 4

model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)

num_epochs = 3
num_update_steps = num_epochs * math.ceil(len(train_dataloader) / accumulation_steps)
lr_scheduler = get_scheduler("linear", optimizer=optimizer,
                             num_warmup_steps=int(0.1 * num_update_steps),
                             num_training_steps=num_update_steps)

model.train()
optimizer.zero_grad()
for epoch in range(num_epochs):
    for step, batch in enumerate(train_dataloader):
        outputs = model(**batch)
        loss = outputs.loss / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_dataloader):
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: loss {outputs.loss.item():.4f} grad norm {grad_norm.item():.2f} "
          f"lr {lr_scheduler.get_last_lr()[0]:.2e}")
