"""RL wrappers: featurisation, discrete masked actions, SB3's check_env, and a short masked PPO run."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env

from personal_envs.browserarena.candidates import BrowserUseCandidates
from personal_envs.personalwab.candidates import PersonalWABCandidates
from personal_envs.wrappers.candidates import BrowserCandidates, PhoneCandidates
from personal_envs.wrappers.discrete import EMPTY_SLOT_ACTION, DiscreteActions
from personal_envs.wrappers.features import FeatureObservation, TextHasher, downsample_image
from personal_envs.wrappers.rl import make_rl_env
from tests.wrappers.conftest import gated_ids, lexical_similarity, make, small_kwargs

SINGLE = "PersonalWAB-SingleTurn-v0"
PWAB_KWARGS = {"review_similarity": lexical_similarity}


def test_text_hasher_is_stable_normalised_and_discriminative():
    hasher = TextHasher(64)
    a = hasher("Wireless earbuds with noise cancelling")
    assert a.shape == (64,) and a.dtype == np.float32
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(a, TextHasher(64)("wireless EARBUDS with noise cancelling"))
    assert float(a @ hasher("a leather wallet for men")) < 0.5
    assert float(a @ hasher("noise cancelling wireless earbuds")) > 0.5
    assert not hasher("").any()


def test_downsampled_screenshots_keep_the_coarse_picture():
    image = np.zeros((200, 100, 3), np.uint8)
    image[:100] = 255  # top half white
    features = downsample_image(image, (4, 2)).reshape(4, 2)
    assert features[:2].min() == pytest.approx(1.0) and features[2:].max() == pytest.approx(0.0)
    assert downsample_image(image, (4, 2), grayscale=False).shape == (24,)


def test_personalwab_discrete_actions_mask_and_map_to_rule_built_calls():
    env = DiscreteActions(make(SINGLE), max_actions=16)
    obs, info = env.reset(seed=0, options={"task_index": 0})
    provider = env.provider
    assert env.fixed_slots == provider.fixed_slots and len(env.fixed_slots) == 13  # every PersonalWAB call is fixed
    labels = env.candidate_labels()
    assert env.slots[env.fixed_slots.index("stop")].action == {"action_type": "stop"}
    assert info["action_mask"].tolist() == [bool(label) for label in labels]
    assert not info["action_mask"][13:].any() and info["candidates_dropped"] == 0
    assert np.array_equal(env.action_masks(), info["action_mask"])
    search = env.action(0)
    assert search["action_type"] == "search_product_by_query" and search["query"]
    assert search["query"].split()[0].lower() in obs["instruction"].lower()
    # an empty slot is rejected by the env like any malformed action: the step counts, nothing raises
    obs, reward, terminated, truncated, info = env.step(15)
    assert EMPTY_SLOT_ACTION in obs["last_action_error"] or "unknown action" in obs["last_action_error"]
    assert not terminated and env.unwrapped.steps == 1
    env.close()


def test_personalwab_slots_keep_their_meaning_on_every_task():
    env = DiscreteActions(make("PersonalWAB-MultiTurn-v0"), max_actions=13)
    for index in range(6):
        env.reset(seed=index, options={"task_index": index})
        for slot, key in enumerate(env.fixed_slots):
            candidate = env.slots[slot]
            if candidate is not None:
                assert candidate.slot == key and candidate.action["action_type"] == key.split("/")[0]
        assert env.slots[env.fixed_slots.index("respond/1")].action["content"] == "Do you have a preferred brand or price range?"
    env.close()


def test_multidiscrete_mode_selects_family_then_member():
    env = DiscreteActions(make("PersonalWAB-MultiTurn-v0"), mode="multidiscrete", max_per_family=4)
    assert isinstance(env.action_space, spaces.MultiDiscrete)
    env.reset(seed=0, options={"task_index": 0})
    families = PersonalWABCandidates.families
    respond = families.index("respond")
    assert env.action([respond, 1])["content"] == "Do you have a preferred brand or price range?"
    mask = env.action_masks()
    assert mask.shape == (len(families) + 4,) and mask[respond] and mask[len(families) + 2]
    assert not mask[len(families) + 3]  # no family has a fourth member
    assert env.candidate([respond, 3]) is None
    env.close()


class _ScreenProvider:
    """Phone candidates over a scripted list of screens with 0, 3 or 30 taps (the provider of a real phone)."""

    def __init__(self, taps: int) -> None:
        self.inner = PhoneCandidates(apps=("Clock", "Mastodon", "Settings"))
        self.families, self.fixed_slots, self.taps = self.inner.families, self.inner.fixed_slots, taps

    def __call__(self, observation):
        nodes = "".join(f'<node text="item {i}" clickable="true" bounds="[0,{10 * i}][100,{10 * i + 9}]"/>'
                        for i in range(self.taps))
        return self.inner({"ui_xml": f"<hierarchy>{nodes}</hierarchy>", "instruction": "set an alarm"})


@pytest.mark.parametrize("taps", [0, 3, 30])
def test_phone_control_actions_keep_fixed_slots_and_are_never_cut(taps):
    provider = _ScreenProvider(taps)
    candidates = provider({})
    env = DiscreteActions(make(SINGLE), provider=provider, max_actions=12)
    env.reset(seed=0, options={"task_index": 0})
    keys = env.fixed_slots
    assert keys[:3] == ("finished", "ask_user/0", "wait")
    assert [env.slots[i].action["action_type"] for i in range(3)] == ["finished", "ask_user", "wait"]
    room = 12 - len(keys)
    ordinary = [c for c in candidates if c.slot is None]
    assert env.dropped == max(0, len(ordinary) - room)
    assert env.action_masks().tolist() == [i < len(keys) + min(room, len(ordinary)) for i in range(12)]
    if taps == 30:  # the cut falls on the taps, and the step says so
        _, info = env.reset(seed=0, options={"task_index": 0})
        assert info["candidates_dropped"] == len(ordinary) - room > 0
        assert env.slots[-1] is not None and env.slots[-1].family in ("open_app", "click")
    env.close()


def test_too_small_a_space_for_the_fixed_slots_is_refused():
    with pytest.raises(ValueError, match="fixed slots"):
        DiscreteActions(make(SINGLE), max_actions=4)


def test_browser_and_phone_candidates_from_real_observation_text():
    axtree = "\n".join([
        "[12] link 'Shop 1'", "[13] button 'Add to cart'", "[14] searchbox 'Search products'",
        "[15] button 'Disabled thing' disabled", "[16] heading 'Welcome'",
    ])
    browser = BrowserCandidates(("click", "fill", "go_back", "scroll"))({"axtree": axtree})
    actions = [c.action for c in browser]
    assert {"action_type": "click", "bid": "12"} in actions and {"action_type": "click", "bid": "13"} in actions
    assert any(a["action_type"] == "fill" and a["bid"] == "14" for a in actions)
    assert all(a.get("bid") not in ("15", "16") for a in actions)
    xml = ('<hierarchy><node text="Settings" clickable="true" bounds="[0,0][100,100]"/>'
           '<node text="Mastodon" clickable="true" bounds="[100,0][200,100]"/>'
           '<node text="label" clickable="false" bounds="[0,100][100,200]"/></hierarchy>')
    phone = PhoneCandidates(apps=("Clock", "Mastodon"), top_k=1, system=False, questions=())(
        {"ui_xml": xml, "instruction": "In Mastodon, boost a post"})
    assert [c.action for c in phone] == [
        {"action_type": "finished"}, {"action_type": "open_app", "app_name": "Mastodon"},
        {"action_type": "click", "x": 150, "y": 50},
    ]
    assert PhoneCandidates()({"ui_xml": "<broken"})[0].family == "finished"  # bad XML: control actions only
    elements = ("[Start of page]\nThe Daily Herald\n[0]<a href=\"/world\">World</a>\n"
                "[1]<input type=\"search\" placeholder=\"Search\">\n[2]<button aria-label=\"Accept all\">Accept all</button>")
    browser_use = BrowserUseCandidates()({"elements": elements, "task": "Find the latest World headline"})
    assert [c.slot for c in browser_use[:5]] == ["done", "wait", "go_back", "scroll_down", "scroll_up"]
    assert [c.action for c in browser_use[5:8]] == [
        {"action_type": "click_element_by_index", "index": 0},
        {"action_type": "input_text", "index": 1, "text": "latest World headline"},
        {"action_type": "click_element_by_index", "index": 2},
    ]


@pytest.mark.parametrize("env_id", ["PersonalWAB-SingleTurn-v0", "PersonalWAB-MultiTurn-v0"])
def test_sb3_check_env_passes_on_personalwab(env_id):
    env = make_rl_env(env_id, env_kwargs=PWAB_KWARGS)
    check_env(env)
    assert isinstance(env.observation_space, spaces.Box) and env.observation_space.shape == (5 * 256,)  # five text fields
    env.close()


def test_sb3_check_env_passes_on_the_phone_with_screenshots():
    env = make_rl_env("KnowU-General-v0", env_kwargs={"max_steps": 4, "task": "DeepWorkGeneralTask"},
                      image_size=(16, 8))
    try:
        check_env(env)
        layout = env.layout
        assert layout["screenshot"][0] == "image" and layout["ui_xml"][0] == "text"
        observation, info = env.reset(seed=0)
        start, stop = layout["screenshot"][1:]
        assert observation[start:stop].max() > 0  # the rendered phone screen is not blank
        assert info["action_mask"].sum() == len(env.get_wrapper_attr("candidates")) > 5
    finally:
        env.close()


def test_sb3_check_env_passes_on_a_web_shop():
    env = make_rl_env("WebMall-Basic-v0", env_kwargs={"max_steps": 4})
    try:
        check_env(env)
        env.reset(seed=0, options={"task_index": 0})
        labels = env.get_wrapper_attr("candidate_labels")()
        # the solution page: the finishing messages, waiting, back and scrolling first, then its form and the shops
        assert labels[:6] == ["say 'I could not find what you asked for.'", "say 'Done.'", "wait", "go back",
                              "scroll down", "scroll up"]
        assert "click button 'Submit Final Result'" in labels and any(x.startswith("fill textbox") for x in labels)
        shop = next(i for i, label in enumerate(labels) if label.startswith("go to http://127.0.0.1:"))
        env.step(shop)
        after = env.get_wrapper_attr("candidate_labels")()
        assert after[:6] == labels[:6]  # the fixed slots stay put on the shop's page
        assert any(label.startswith("click link") for label in after)
    finally:
        env.close()


def test_feature_observation_rejects_unknown_fields():
    env = make(SINGLE)
    with pytest.raises(KeyError, match="unknown observation fields"):
        FeatureObservation(env, fields=("nope",))
    env.close()


def test_maskable_ppo_learns_through_the_mask_protocol():
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib (MaskablePPO) is not installed")
    env = make_rl_env(SINGLE, fields=("instruction",), max_actions=16, env_kwargs={**PWAB_KWARGS, "split": "train"})
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=2, seed=0, device="cpu")
    model.learn(32)
    observation, info = env.reset(seed=1, options={"task_index": 1})
    action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)]
    env.close()


@pytest.mark.parametrize("env_id", gated_ids())
def test_sb3_and_gymnasium_checkers_pass_on_every_registered_id(env_id):
    env = make_rl_env(env_id, env_kwargs=small_kwargs(env_id))
    try:
        check_env(env)
        gymnasium_check_env(env, skip_render_check=True)
        _, info = env.reset(seed=0)
        mask = info["action_mask"]
        assert mask.any()
        discrete = env.env
        for slot, key in enumerate(discrete.fixed_slots):  # a present control action sits in its own slot
            assert discrete.slots[slot] is None or discrete.slots[slot].slot == key
            assert bool(mask[slot]) == (discrete.slots[slot] is not None)
        names = set(getattr(env.unwrapped.action_space, "action_names", ()))
        for control in ("finished", "ask_user", "wait", "stop", "respond", "done"):
            if control in names:
                assert any(key.split("/")[0] == control for key in discrete.fixed_slots), control
    finally:
        env.close()


def test_no_repeat_masks_a_call_already_made_until_its_argument_changes():
    env = make_rl_env("PersonalWAB-MultiTurn-v0", env_kwargs=PWAB_KWARGS, max_actions=13, text_dim=16,
                      slot_history=True, no_repeat=True)
    slots = list(env.get_wrapper_attr("fixed_slots"))
    search, ask, stop = slots.index("search_product_by_query/top_store"), slots.index("respond/0"), slots.index("stop")
    env.reset(seed=0, options={"task_index": 0})
    assert env.action_masks()[search]
    first = env.step(search)[4]["chosen_action"]
    masks = env.action_masks()
    assert not masks[search] and masks[stop] and masks[ask]  # the same call again is masked, nothing else
    env.step(ask)
    masks = env.action_masks()
    assert not masks[ask]
    # the user's reply adds words to the query: a different call, offered again
    assert masks[search] and env.get_wrapper_attr("action")(search)["query"] != first["query"]
    env.reset(seed=0, options={"task_index": 0})
    assert env.action_masks()[search] and env.action_masks()[ask]  # a new episode forgets
    with pytest.raises(ValueError, match="no_repeat needs slot_history"):
        make_rl_env("PersonalWAB-MultiTurn-v0", env_kwargs=PWAB_KWARGS, no_repeat=True)
    env.close()


def test_a_saved_policy_with_no_repeat_never_makes_the_same_call_twice():
    from sb3_contrib import MaskablePPO

    from personal_envs.policies.sb3 import SB3Policy

    options = {"max_actions": 13, "text_dim": 16, "slot_history": True, "no_repeat": True}
    model = MaskablePPO("MlpPolicy", make_rl_env("PersonalWAB-MultiTurn-v0", env_kwargs=PWAB_KWARGS, **options),
                        seed=0, device="cpu")
    env = make("PersonalWAB-MultiTurn-v0")
    runs = {}
    for no_repeat in (False, True):
        policy = SB3Policy(env, model=model, rl_env={**options, "no_repeat": no_repeat})
        observation, info = env.reset(seed=0, options={"task_index": 0})
        policy.reset(observation, info)
        actions, done = [], False
        while not done:
            actions.append(policy.act(observation, info))
            observation, _, terminated, truncated, info = env.step(actions[-1])
            done = terminated or truncated
        runs[no_repeat] = [json.dumps(a, sort_keys=True) for a in actions]
    assert len(set(runs[True])) == len(runs[True])
    assert len(set(runs[False])) < len(runs[False])  # the untrained argmax repeats itself without the mask
    env.close()
