from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from transformers import (AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments,
                          default_data_collator)

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/sentiment").remove_columns("label")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
block_size = 32


def tokenize(examples):
    return tokenizer(examples["text"])


def group_texts(examples):
    # concatenate all texts and cut them into blocks of block_size tokens (as in run_clm.py)
    concatenated = {k: sum(examples[k], []) for k in examples.keys()}
    total_length = len(concatenated["input_ids"]) // block_size * block_size
    result = {k: [t[i:i + block_size] for i in range(0, total_length, block_size)]
              for k, t in concatenated.items()}
    result["labels"] = result["input_ids"].copy()
    return result


tokenized = raw.map(tokenize, batched=True, remove_columns=["text"])
lm_datasets = tokenized.map(group_texts, batched=True)
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                                         task_type="CAUSAL_LM"))
args = TrainingArguments("out", learning_rate=2e-4, per_device_train_batch_size=8,
                         num_train_epochs=1, warmup_steps=2, save_strategy="no",
                         logging_steps=4, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=lm_datasets["train"],
                  eval_dataset=lm_datasets["validation"], data_collator=default_data_collator)
trainer.train()
print(trainer.evaluate())
