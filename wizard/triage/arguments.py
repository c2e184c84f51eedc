"""The keyword arguments that the config classes fine-tuning code builds most accept in any
release: the union of their signatures in transformers 4.57 and 5.24 and peft 0.21, with the older
names that earlier releases dropped. A keyword outside it names nothing in any release (misspelt
or invented), which an upgrade cannot fix."""
from __future__ import annotations

ACCEPTED: dict[str, frozenset[str]] = {
    "LoraConfig": frozenset("""
        alora_invocation_tokens alpha_pattern arrow_config auto_mapping base_model_name_or_path
        bias corda_config enable_lora ensure_weight_tying eva_config exclude_modules
        fan_in_fan_out inference_mode init_lora_weights kasa_config layer_replication
        layers_pattern layers_to_transform loftq_config lora_alpha lora_bias lora_dropout
        lora_ga_config megatron_config megatron_core merge_weights modules_to_save
        monteclora_config peft_type peft_version qalora_group_size r rank_pattern revision
        runtime_config target_modules target_parameters task_type trainable_token_indices
        use_bdlora use_dora use_qalora use_rslora velora_config
    """.split()),
    "TrainingArguments": frozenset("""
        accelerator_config activation_checkpointing activation_checkpointing_kwargs adafactor
        adam_beta1 adam_beta2 adam_epsilon auto_find_batch_size average_tokens_across_devices
        batch_eval_metrics bf16 bf16_full_eval data_seed dataloader_drop_last
        dataloader_in_order dataloader_multiprocessing_context dataloader_num_workers
        dataloader_persistent_workers dataloader_pin_memory dataloader_prefetch_factor
        ddp_backend ddp_broadcast_buffers ddp_bucket_cap_mb ddp_find_unused_parameters
        ddp_static_graph ddp_timeout debug deepspeed disable_tqdm do_eval do_predict do_train
        enable_jit_checkpoint eval_accumulation_steps eval_delay eval_do_concat_batches
        eval_on_start eval_steps eval_strategy eval_use_gather_object evaluate_during_training
        evaluation_strategy fp16 fp16_backend fp16_full_eval fp16_opt_level fsdp fsdp_config
        fsdp_min_num_params fsdp_transformer_layer_cls_to_wrap full_determinism
        gradient_accumulation_steps gradient_checkpointing gradient_checkpointing_kwargs
        greater_is_better group_by_length half_precision_backend hub_always_push hub_model_id
        hub_private_repo hub_revision hub_strategy hub_token ignore_data_skip
        include_for_metrics include_inputs_for_metrics include_num_input_tokens_seen
        include_tokens_per_second jit_mode_eval label_names label_smoothing_factor learning_rate
        length_column_name liger_kernel_config load_best_model_at_end local_rank log_level
        log_level_replica log_on_each_node logging_dir logging_first_step logging_nan_inf_filter
        logging_steps logging_strategy lr_scheduler_kwargs lr_scheduler_type max_grad_norm
        max_steps metric_for_best_model mp_parameters neftune_noise_alpha no_cuda
        num_train_epochs optim optim_args optim_target_modules output_dir overwrite_output_dir
        parallelism_config past_index per_device_eval_batch_size per_device_train_batch_size
        per_gpu_eval_batch_size per_gpu_train_batch_size prediction_loss_only project
        push_to_hub push_to_hub_model_id push_to_hub_organization push_to_hub_token ray_scope
        remove_unused_columns report_to restore_callback_states_from_checkpoint
        resume_from_checkpoint run_name save_on_each_node save_only_model save_safetensors
        save_steps save_strategy save_total_limit seed sharded_ddp skip_memory_metrics tf32
        torch_compile torch_compile_backend torch_compile_mode torch_empty_cache_steps
        torchdynamo tpu_metrics_debug tpu_num_cores trackio_bucket_id trackio_space_id
        trackio_static_space_id train_sampling_strategy use_cache use_cpu
        use_legacy_prediction_loop use_liger_kernel use_mps_device warmup_ratio warmup_steps
        weight_decay xpu_backend
    """.split()),
    "Seq2SeqTrainingArguments": frozenset("""
        generation_config generation_max_length generation_num_beams predict_with_generate
        sortish_sampler
    """.split()),
}
ACCEPTED["Seq2SeqTrainingArguments"] |= ACCEPTED["TrainingArguments"]


def in_no_release(owner: str, arg: str) -> bool:
    """Whether `owner(..., arg=...)` names an argument that no release of the class takes (False
    for a class this table does not know)."""
    known = ACCEPTED.get(owner)
    return known is not None and arg not in known
