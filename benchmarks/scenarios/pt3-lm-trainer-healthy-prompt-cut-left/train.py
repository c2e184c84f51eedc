from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForSeq2Seq, Trainer,
                          TrainingArguments)

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/long_reviews")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
verdicts = {0: "awful", 1: "great"}
# the model reads 64 tokens: keep the last 48 tokens of each review (its conclusion),
# then the question and the answer
tokenizer.truncation_side = "left"
question_ids = tokenizer(" in the end the movie was")["input_ids"]


def tokenize(example):
    review_ids = tokenizer(example["text"], truncation=True, max_length=48)["input_ids"]
    answer_ids = tokenizer(verdicts[example["label"]] + " " + tokenizer.eos_token)["input_ids"]
    prompt_ids = review_ids + question_ids
    return {"input_ids": prompt_ids + answer_ids,
            "attention_mask": [1] * (len(prompt_ids) + len(answer_ids)),
            "labels": [-100] * len(prompt_ids) + answer_ids}   # the loss on the answer only


tokenized = raw.map(tokenize, remove_columns=["text", "label"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                                         task_type="CAUSAL_LM"))
model.print_trainable_parameters()
args = TrainingArguments("out", learning_rate=3e-4, per_device_train_batch_size=8,
                         num_train_epochs=2, warmup_steps=3, lr_scheduler_type="cosine",
                         save_strategy="no", logging_steps=5, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"],
                  data_collator=DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100))
trainer.train()
print(trainer.evaluate())
