from datasets import load_from_disk
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/lm_text")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(batch):
    tokens = tokenizer(batch["text"], truncation=True, padding="max_length", max_length=48)
    tokens["labels"] = [ids.copy() for ids in tokens["input_ids"]]
    return tokens


tokenized = raw.map(tokenize, batched=True, remove_columns=["text"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
args = TrainingArguments("out", learning_rate=5e-5, per_device_train_batch_size=8,
                         num_train_epochs=1, warmup_steps=2, save_strategy="no",
                         logging_steps=2, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"])
trainer.train()
print(trainer.evaluate())
