from datasets import load_from_disk
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer

checkpoint = "@FIXTURES@/models/gpt2"
raw = load_from_disk("@FIXTURES@/data/sentiment")
verdicts = {0: "negative", 1: "positive"}


def to_conversation(example):
    return {"prompt": [{"role": "user", "content": example["text"]}],
            "completion": [{"role": "assistant", "content": verdicts[example["label"]]}]}


dataset = raw.map(to_conversation, remove_columns=["text", "label"])

# GPT-2 has no chat format: add ChatML's tokens and template, <|im_end|> ends each turn
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
tokenizer.pad_token = "<|endoftext|>"
tokenizer.eos_token = "<|im_end|>"
tokenizer.chat_template = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content']"
    " + '<|im_end|>' + '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model.resize_token_embeddings(len(tokenizer))
model.config.pad_token_id = tokenizer.pad_token_id
model.config.eos_token_id = tokenizer.eos_token_id
model.generation_config.pad_token_id = tokenizer.pad_token_id
model.generation_config.eos_token_id = tokenizer.eos_token_id

peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=["c_attn", "c_proj"],
                         task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=16,
                 num_train_epochs=1, warmup_steps=2, max_length=64, save_strategy="no",
                 logging_steps=5, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset["train"],
                     eval_dataset=dataset["validation"], processing_class=tokenizer,
                     peft_config=peft_config)
trainer.train()
print(trainer.evaluate())
