import torch
from datasets import load_from_disk
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_linear_schedule_with_warmup

torch.manual_seed(0)
checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/lm_text")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
block_size = 32


def make_blocks(examples):
    ids = sum(tokenizer(examples["text"])["input_ids"], [])
    n = (len(ids) - 1) // block_size * block_size
    # next-token prediction: x = tokens[i : i + block], y = tokens[i + 1 : i + 1 + block]
    return {"input_ids": [ids[i:i + block_size] for i in range(0, n, block_size)],
            "labels": [ids[i + 1:i + 1 + block_size] for i in range(0, n, block_size)]}


blocks = raw.map(make_blocks, batched=True, remove_columns=["text"])
blocks.set_format("torch")
train_loader = DataLoader(blocks["train"], batch_size=8, shuffle=True)
eval_loader = DataLoader(blocks["validation"], batch_size=8)

model = AutoModelForCausalLM.from_pretrained(checkpoint)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
epochs = 3
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=2,
                                            num_training_steps=epochs * len(train_loader))
for epoch in range(epochs):
    model.train()
    total = 0.0
    for batch in train_loader:
        outputs = model(input_ids=batch["input_ids"], labels=batch["labels"])
        outputs.loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        total += outputs.loss.item()
    model.eval()
    with torch.no_grad():
        eval_loss = sum(model(input_ids=b["input_ids"], labels=b["labels"]).loss.item()
                        for b in eval_loader) / len(eval_loader)
    print(f"epoch {epoch}: train loss {total / len(train_loader):.4f}, eval loss {eval_loss:.4f}")
