import torch
from datasets import load_from_disk
from peft import LoraConfig
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

checkpoint = "@FIXTURES@/models/llama"
raw = load_from_disk("@FIXTURES@/data/sentiment")
verdicts = {0: "awful", 1: "great"}


def to_prompt_completion(example):
    return {"prompt": example["text"] + " in the end the movie was",
            "completion": " " + verdicts[example["label"]]}


dataset = raw.map(to_prompt_completion, remove_columns=["text", "label"])
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                         task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=16,
                 num_train_epochs=1, warmup_steps=2, max_length=64, save_strategy="no",
                 logging_steps=5, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=checkpoint, args=args, train_dataset=dataset["train"],
                     eval_dataset=dataset["validation"], processing_class=tokenizer,
                     peft_config=peft_config)
trainer.train()
metrics = trainer.evaluate()

# accuracy of the generated answers, 16 validation prompts at a time
model = trainer.model.eval()
prompts = dataset["validation"]["prompt"]
references = [c.strip() for c in dataset["validation"]["completion"]]
answers = []
for start in range(0, len(prompts), 16):
    inputs = tokenizer(prompts[start:start + 16], padding=True, return_tensors="pt")
    with torch.no_grad():
        generated = model.generate(**inputs, max_new_tokens=3, do_sample=False)
    new_tokens = generated[:, inputs["input_ids"].shape[1]:]
    answers += [text.strip() for text in tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]
accuracy = sum(a.split()[:1] == [r] for a, r in zip(answers, references)) / len(references)
print({"eval_loss": metrics["eval_loss"], "generation_accuracy": accuracy, "answers": answers[:4]})
