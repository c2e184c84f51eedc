import torch
from torch.utils.data import DataLoader
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          set_seed)

set_seed(42)
checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(examples):
    return tokenizer(examples["text"], truncation=True)


tokenized_datasets = raw_datasets.map(tokenize, batched=True, remove_columns=["text"])
tokenized_datasets = tokenized_datasets.rename_column("label", "labels")
train_dataloader = DataLoader(tokenized_datasets["train"], batch_size=16, shuffle=True,
                              collate_fn=DataCollatorWithPadding(tokenizer))

model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)

model.train()
for epoch in range(3):
    total_loss, total_norm = 0.0, 0.0
    for batch in train_dataloader:
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        total_norm += torch.norm(torch.stack([p.grad.norm() for p in model.parameters()
                                              if p.grad is not None])).item()
        optimizer.step()
        total_loss += loss.item()
    n = len(train_dataloader)
    print(f"epoch {epoch}: mean loss {total_loss / n:.4f} mean grad norm {total_norm / n:.3f}")
