from datasets import load_from_disk
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling,
                          Trainer, TrainingArguments)

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/sentiment")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
verdicts = {0: "awful", 1: "great"}
max_length = 32


def tokenize(example):
    # train on the answer only: the prompt's labels are -100
    prompt_ids = tokenizer(example["text"] + " in the end the movie was")["input_ids"]
    answer_ids = tokenizer(verdicts[example["label"]] + " " + tokenizer.eos_token)["input_ids"]
    input_ids = (prompt_ids + answer_ids)[:max_length]
    labels = ([-100] * len(prompt_ids) + answer_ids)[:max_length]
    pad = max_length - len(input_ids)
    return {"input_ids": input_ids + [tokenizer.pad_token_id] * pad,
            "attention_mask": [1] * len(input_ids) + [0] * pad,
            "labels": labels + [-100] * pad}


tokenized = raw.map(tokenize, remove_columns=["text", "label"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
args = TrainingArguments("out", learning_rate=5e-5, per_device_train_batch_size=16,
                         num_train_epochs=2, warmup_steps=3, weight_decay=0.01,
                         save_strategy="no", logging_steps=5, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"],
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
print(trainer.evaluate())
