from datasets import load_from_disk
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

dataset = load_from_disk("@FIXTURES@/data/lm_text")
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                         target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=8,
                 num_train_epochs=1, warmup_steps=2, max_length=48, save_strategy="no",
                 logging_steps=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model="@FIXTURES@/models/llama", args=args, train_dataset=dataset["train"],
                     peft_config=peft_config)
trainer.train()
