from datasets import load_from_disk
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

raw = load_from_disk("@FIXTURES@/data/long_reviews")
verdicts = {0: " awful", 1: " great"}


def to_prompt_completion(example):
    return {"prompt": example["text"] + " in the end the movie was",
            "completion": verdicts[example["label"]]}


dataset = raw.map(to_prompt_completion, remove_columns=["text", "label"])
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                         target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
# the model's context is 64 tokens
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=8,
                 num_train_epochs=1, warmup_steps=2, max_length=64, save_strategy="no",
                 logging_steps=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model="@FIXTURES@/models/llama", args=args, train_dataset=dataset["train"],
                     eval_dataset=dataset["validation"], peft_config=peft_config)
trainer.train()
print(trainer.evaluate())
