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
