"""TRL's environment integration: tool methods that say what the env's schemas say, episodes that step the chat env,
the env's reward, and prompts that are the chat env's opening messages."""

from __future__ import annotations

import pytest

from personal_envs.chat import ChatEnv
from personal_envs.trainers.trl_grpo import ENDED, environment_class, prompt_dataset, template_messages

transformers_utils = pytest.importorskip("transformers.utils", reason="transformers is in the llmrl extra")
pytest.importorskip("trl", reason="trl is in the llmrl extra")

IDS = ["PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_the_tool_methods_describe_the_env_actions_as_its_schemas_do(env_id):
    tool_class = environment_class(env_id)
    with ChatEnv(env_id) as chat:
        schemas = chat.tools
    for schema in schemas:
        function = schema["function"]
        generated = transformers_utils.get_json_schema(getattr(tool_class, function["name"]))["function"]
        assert generated["name"] == function["name"] and generated["description"] == function["description"]
        assert set(generated["parameters"].get("required") or []) == set(function["parameters"]["required"])
        for name, prop in function["parameters"]["properties"].items():
            assert generated["parameters"]["properties"][name]["type"] == prop["type"]
            assert generated["parameters"]["properties"][name]["description"] == " ".join(prop["description"].split())


def test_a_rollout_environment_steps_the_chat_env_and_owns_the_reward():
    tool_class = environment_class("PersonalWAB-MultiTurn-v0")
    environment = tool_class()
    with ChatEnv("PersonalWAB-MultiTurn-v0") as reference:
        reference.reset(seed=4)
        expected = reference.step({"role": "assistant", "content": None, "tool_calls": [
            {"id": "x", "function": {"name": "search_product_by_query", "arguments": {"query": "hiking boots"}}}]})
        final = reference.step('{"action_type": "stop"}')
    try:
        assert environment.reset(seed=4, prompt=[{"role": "user", "content": "ignored"}], task_id="t") is None
        observation = environment.search_product_by_query(query="hiking boots")
        assert observation == expected.messages[0]["content"]
        assert environment.stop() and environment.chat.done
        assert environment.search_product_by_query("anything") == ENDED
        assert environment.get_reward() == expected.reward + final.reward
        with pytest.raises(TypeError):
            environment.search_product_by_query()  # the required argument, as the signature says
    finally:
        environment.chat.close()


def test_the_prompts_are_the_chat_env_opening_messages_of_each_seed():
    rows = prompt_dataset("PersonalWAB-SingleTurn-v0", [3, 8], env_kwargs={"split": "train"})
    assert rows.num_rows == 2 and rows["seed"] == [3, 8]
    with ChatEnv("PersonalWAB-SingleTurn-v0", env_kwargs={"split": "train"}) as chat:
        opening = chat.reset(seed=8)
    assert rows[1]["prompt"] == opening.messages and rows[1]["task_id"] == opening.info["task_id"]
    assert rows[1]["task_id"].startswith("train")


def test_template_messages_turn_json_arguments_into_objects():
    messages = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"q": 1}'}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "not json"}}]}]
    converted = template_messages(messages)
    assert converted[0]["tool_calls"][0]["function"]["arguments"] == {"q": 1}
    assert converted[0]["tool_calls"][1]["function"]["arguments"] == {"_raw": "not json"}
    assert messages[0]["tool_calls"][0]["function"]["arguments"] == '{"q": 1}'  # the input is left alone


def test_the_wall_clock_budget_stops_training_at_the_first_step_end_past_it(tmp_path):
    import transformers

    from personal_envs.trainers.trl_grpo import wall_clock_budget

    arguments = transformers.TrainingArguments(output_dir=str(tmp_path), use_cpu=True, report_to=[])
    for minutes, stops in ((0.0, True), (60.0, False)):
        budget = wall_clock_budget(minutes)
        state, control = transformers.TrainerState(), transformers.TrainerControl()
        assert budget.stopped_at_step is None  # before training begins nothing is stopped, whatever the budget
        budget.on_train_begin(arguments, state, control)
        state.global_step = 3
        budget.on_step_end(arguments, state, control)
        assert control.should_training_stop is stops
        assert budget.stopped_at_step == (3 if stops else None)
    # training that ends by itself (max_steps) at that step is not reported as stopped by the budget
    budget = wall_clock_budget(0.0)
    state, control = transformers.TrainerState(global_step=5), transformers.TrainerControl(should_training_stop=True)
    budget.on_train_begin(arguments, state, control)
    budget.on_step_end(arguments, state, control)
    assert budget.stopped_at_step is None


def _tiny_grpo_trainer(tmp_path):
    """The skipping trainer around a one-layer Llama with a word-level tokenizer (built here, no download)."""
    import datasets
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers
    from trl import GRPOConfig

    from personal_envs.trainers.trl_grpo import flat_group_skipping_trainer

    words = ["<pad>", "<eos>", "<unk>", *(f"w{i}" for i in range(29))]
    backend = Tokenizer(models.WordLevel({word: i for i, word in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>",
                                                     unk_token="<unk>")
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=1, pad_token_id=0, eos_token_id=1, bos_token_id=1))
    config = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, beta=0.0, per_device_train_batch_size=2,
                        num_generations=2, max_completion_length=4, report_to=[], activation_checkpointing=False,
                        save_strategy="no", disable_tqdm=True)
    trainer = flat_group_skipping_trainer()(
        model=model, processing_class=tokenizer, args=config, reward_funcs=lambda completions, **_: [0.0] * len(
            completions), train_dataset=datasets.Dataset.from_list([{"prompt": "w3 w4"}] * 2))
    trainer.current_gradient_accumulation_steps = 1  # set by Trainer.train for each step
    batch = {"prompt_ids": torch.tensor([[3, 4, 5], [0, 6, 7]]), "prompt_mask": torch.tensor([[1, 1, 1], [0, 1, 1]]),
             "completion_ids": torch.tensor([[8, 9, 1], [10, 1, 0]]),
             "completion_mask": torch.tensor([[1, 1, 1], [1, 1, 0]]), "num_items_in_batch": torch.tensor(5.0)}
    return trainer, batch


def _loss_and_gradients(compute, model, batch):
    model.zero_grad(set_to_none=True)
    loss = compute(model, batch)
    loss.backward()
    return float(loss.detach()), {name: parameter.grad for name, parameter in model.named_parameters()}


def test_a_batch_of_flat_groups_skips_the_passes_and_gives_trl_s_zero_loss_and_zero_gradients(tmp_path):
    import torch
    from trl import GRPOTrainer

    trainer, batch = _tiny_grpo_trainer(tmp_path)
    model = trainer.model
    model.train()
    flat = {**batch, "advantages": torch.zeros(2)}
    trl_loss, trl_gradients = _loss_and_gradients(lambda m, b: GRPOTrainer._compute_loss(trainer, m, b), model, flat)
    calls = []
    handle = model.register_forward_hook(lambda *_: calls.append(1))
    loss, gradients = _loss_and_gradients(trainer.compute_loss, model, flat)
    handle.remove()
    assert calls == [] and trainer.flat_groups_skipped == 1  # no forward pass
    assert loss == trl_loss == 0.0
    for name, gradient in gradients.items():  # every parameter has a gradient (AdamW steps it), zero as TRL's
        assert gradient is not None and torch.equal(gradient, torch.zeros_like(gradient)), name
        assert torch.equal(gradient, trl_gradients[name]), name
    assert trainer._metrics["train"]["flat_group_skipped"] == [1.0]


def test_a_batch_with_a_learning_signal_goes_through_trl_s_loss(tmp_path):
    import torch
    from trl import GRPOTrainer

    trainer, batch = _tiny_grpo_trainer(tmp_path)
    model = trainer.model
    model.train()
    signal = {**batch, "advantages": torch.tensor([0.7, -0.7])}
    trl_loss, trl_gradients = _loss_and_gradients(lambda m, b: GRPOTrainer._compute_loss(trainer, m, b), model,
                                                  signal)
    loss, gradients = _loss_and_gradients(trainer.compute_loss, model, signal)
    assert trainer.flat_groups_skipped == 0 and loss == pytest.approx(trl_loss)
    assert any(bool(torch.any(g != 0)) for g in gradients.values())
    for name, gradient in gradients.items():
        assert torch.allclose(gradient, trl_gradients[name]), name
    trainer.beta = 0.04  # a KL term: the loss is no longer 0 * log-probabilities, so nothing may be skipped
    assert not trainer._loss_is_exactly_zero({"advantages": torch.zeros(2)})
