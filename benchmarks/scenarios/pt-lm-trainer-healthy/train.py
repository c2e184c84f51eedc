from datasets import load_from_disk
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/lm_text")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=48)


tokenized = raw.map(tokenize, batched=True, remove_columns=["text"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
args = TrainingArguments("out", learning_rate=5e-5, per_device_train_batch_size=8,
                         num_train_epochs=1, warmup_steps=2, save_strategy="no",
                         logging_steps=2, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"],
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
print(trainer.evaluate())
