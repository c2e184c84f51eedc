import torch
from torch.utils.data import DataLoader, TensorDataset
from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_scheduler

checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def encode(split):
    texts, labels = list(raw_datasets[split]["text"]), list(raw_datasets[split]["label"])
    enc = tokenizer(texts, truncation=True, padding="max_length",
                    max_length=48, return_tensors="pt")
    return TensorDataset(enc["input_ids"], enc["attention_mask"],
                         torch.tensor(labels, dtype=torch.float32))


train_dataloader = DataLoader(encode("train"), batch_size=16, shuffle=True)
eval_dataloader = DataLoader(encode("validation"), batch_size=32)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=2).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
num_epochs = 2
lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0,
                             num_training_steps=num_epochs * len(train_dataloader))

for epoch in range(num_epochs):
    model.train()
    for input_ids, attention_mask, labels in train_dataloader:
        input_ids, attention_mask, labels = (t.to(device) for t in (input_ids, attention_mask, labels))
        outputs = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()

    model.eval()
    correct = 0
    with torch.no_grad():
        for input_ids, attention_mask, labels in eval_dataloader:
            logits = model(input_ids=input_ids.to(device), attention_mask=attention_mask.to(device)).logits
            correct += (logits.argmax(dim=-1).cpu() == labels.long()).sum().item()
    print(f"epoch {epoch}: loss {loss.item():.4f} accuracy {correct / len(eval_dataloader.dataset):.3f}")
