from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/lm_text")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
tokenizer.pad_token = tokenizer.eos_token


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=48)


tokenized = raw.map(tokenize, batched=True, remove_columns=["text"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                         task_type="CAUSAL_LM"))
args = TrainingArguments("out", learning_rate=2e-4, per_device_train_batch_size=8,
                         num_train_epochs=1, warmup_steps=2, save_strategy="no",
                         logging_steps=2, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"],
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
print(trainer.evaluate())
