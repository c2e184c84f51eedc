from datasets import load_from_disk
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

dataset = load_from_disk("@FIXTURES@/data/lm_text")
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                         task_type="CAUSAL_LM")
# the recipe's settings: batches of 4 with 8 accumulation steps (effective batch 32),
# 100 warmup steps, cosine decay
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=4,
                 gradient_accumulation_steps=8, num_train_epochs=3, warmup_steps=100,
                 lr_scheduler_type="cosine", max_length=48, save_strategy="no",
                 logging_steps=1, report_to=[], use_cpu=True)
trainer = SFTTrainer(model="@FIXTURES@/models/llama", args=args, train_dataset=dataset["train"],
                     peft_config=peft_config)
trainer.train()
