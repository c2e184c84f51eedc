from datasets import load_from_disk
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer

checkpoint = "@FIXTURES@/models/gpt2"
dataset = load_from_disk("@FIXTURES@/data/sentiment").remove_columns("label")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model.config.pad_token_id = tokenizer.pad_token_id
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=["c_attn"],
                         task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", learning_rate=3e-4, per_device_train_batch_size=16,
                 num_train_epochs=1, warmup_steps=2, max_length=64, save_strategy="no",
                 logging_steps=5, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset["train"],
                     eval_dataset=dataset["validation"], processing_class=tokenizer,
                     peft_config=peft_config)
trainer.train()
print(trainer.evaluate())
