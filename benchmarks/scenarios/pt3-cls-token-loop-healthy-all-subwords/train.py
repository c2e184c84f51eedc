import torch
from torch.utils.data import DataLoader
from datasets import load_from_disk
from transformers import (AutoModelForTokenClassification, AutoTokenizer,
                          DataCollatorForTokenClassification, get_scheduler, set_seed)

set_seed(42)
checkpoint = "@FIXTURES@/models/bert"
raw_datasets = load_from_disk("@FIXTURES@/data/ner")
label_list = raw_datasets["train"].features["ner_tags"].feature.names
tokenizer = AutoTokenizer.from_pretrained(checkpoint)

# run_ner.py's label_all_tokens: every subword of a word gets its tag, a B- tag becoming the
# matching I- tag after the first subword (B-LOC has no I-LOC here, so it stays B-LOC)
label_all_tokens = True
b_to_i_label = []
for idx, label in enumerate(label_list):
    if label.startswith("B-") and label.replace("B-", "I-") in label_list:
        b_to_i_label.append(label_list.index(label.replace("B-", "I-")))
    else:
        b_to_i_label.append(idx)


def tokenize_and_align_labels(examples):
    tokenized = tokenizer(examples["tokens"], truncation=True, max_length=64,
                          is_split_into_words=True)
    all_labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        previous, label_ids = None, []
        for word in tokenized.word_ids(batch_index=i):
            if word is None:
                label_ids.append(-100)
            elif word != previous:
                label_ids.append(tags[word])
            else:
                label_ids.append(b_to_i_label[tags[word]] if label_all_tokens else -100)
            previous = word
        all_labels.append(label_ids)
    tokenized["labels"] = all_labels
    return tokenized


tokenized_datasets = raw_datasets.map(tokenize_and_align_labels, batched=True,
                                      remove_columns=raw_datasets["train"].column_names)
data_collator = DataCollatorForTokenClassification(tokenizer)
train_dataloader = DataLoader(tokenized_datasets["train"], shuffle=True, batch_size=16,
                              collate_fn=data_collator)
eval_dataloader = DataLoader(tokenized_datasets["validation"], batch_size=16,
                             collate_fn=data_collator)

model = AutoModelForTokenClassification.from_pretrained(
    checkpoint, num_labels=len(label_list),
    id2label=dict(enumerate(label_list)), label2id={n: i for i, n in enumerate(label_list)})
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
num_epochs = 3
num_training_steps = num_epochs * len(train_dataloader)
lr_scheduler = get_scheduler("linear", optimizer=optimizer,
                             num_warmup_steps=int(0.1 * num_training_steps),
                             num_training_steps=num_training_steps)

for epoch in range(num_epochs):
    model.train()
    for batch in train_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()

    model.eval()
    correct, total, eval_loss = 0, 0, 0.0
    with torch.no_grad():
        for batch in eval_dataloader:
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = model(**batch)
            eval_loss += outputs.loss.item()
            predictions = outputs.logits.argmax(dim=-1)
            keep = batch["labels"] != -100
            correct += (predictions[keep] == batch["labels"][keep]).sum().item()
            total += keep.sum().item()
    print(f"epoch {epoch}: train loss {loss.item():.4f} eval loss {eval_loss / len(eval_dataloader):.4f} "
          f"token accuracy {correct / total:.3f}")
