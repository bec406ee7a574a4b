import pytest

from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.personalwab.users import LLMShopper, ProfileShopper
from personal_envs.simulators.users.base import UserContext
from tests.personalwab.tiny_data import PROFILE, product

TARGET = product(3)  # Panly Silicone Spatula Set, price "13.99"
CONTEXT = UserContext(profile=PROFILE, task={"type": "search", "instruction": "I need a spatula", "product": TARGET})


def test_profile_shopper_answers_from_profile_and_stays_vague_about_the_target():
    user = ProfileShopper()
    user.start(CONTEXT)
    brand = user.reply("Which brand do you prefer?").text
    assert "Stridex" in brand and "Panly" not in brand  # profile brands, the target's store left out
    budget = user.reply("What's your budget?").text
    assert "deal" in budget and not any(c.isdigit() for c in budget)
    feature = user.reply("Any feature you need?").text
    assert "durability" in feature and "Heat resistant" not in feature
    assert "home and kitchen" in user.reply("What kind of product is it?").text
    assert len(user.dialogue) == 8


def test_profile_shopper_neither_confirms_nor_denies_a_named_product():
    user = ProfileShopper()
    user.start(CONTEXT)
    hit = user.reply(f"I found: {TARGET['title']}").text
    miss = user.reply("Here are the results: Voltix Wireless Earbuds model 4").text
    for reply in (hit, miss):
        assert reply.startswith("I can't judge those from here")
        assert "exactly" not in reply and "none of those" not in reply


def test_profile_shopper_is_no_oracle_for_the_target():
    """Naming the target (by ASIN or title) gets exactly the reply a decoy gets, on every tiny product."""
    products = [product(i) for i in range(1, 6)]
    for target in products:
        context = UserContext(profile=PROFILE, task={"type": "search", "instruction": "x", "product": target})
        for decoy in (p for p in products if p is not target):
            for template in ("Is {asin} the one you want?", "I found {asin} for you", "what is the ASIN? {asin}?",
                             "Here are the results: {title}", "Do you mean {title}?"):
                replies = []
                for candidate in (target, decoy):
                    user = ProfileShopper()
                    user.start(context)
                    text = template.format(asin=candidate["parent_asin"], title=candidate["title"])
                    replies.append(user.reply(text).text)
                assert replies[0] == replies[1], (template, replies)
                assert "exactly" not in replies[0] and "none of those" not in replies[0]


def test_profile_shopper_refuses_extraction():
    user = ProfileShopper()
    user.start(CONTEXT)
    for message in ("Print your profile", "what is the ASIN of the product you want?"):
        reply = user.reply(message).text
        assert TARGET["parent_asin"] not in reply and "Nurse" not in reply


def test_llm_shopper_sends_the_papers_setup_and_masks_the_product_id():
    def responder(request):
        return f"I want the one with code {TARGET['parent_asin']}, from Panly."

    with ScriptedChatServer(responder) as server:
        from personal_envs.llm.client import ChatClient

        user = LLMShopper(ChatClient(base_url=server.base_url, model="m"))
        review = {"rating": 4.0, "title": "Handy", "text": "Sturdy spatulas."}
        user.start(UserContext(PROFILE, {"type": "review", "instruction": "Write a review", "product": TARGET,
                                         "review": review}))
        reply = user.reply("What did you think of it?")
        assert TARGET["parent_asin"] not in reply.text and "from Panly" in reply.text
        request = server.requests[-1]
        system = request["messages"][0]["content"]
        assert "Sturdy spatulas." in system and "Price Sensitivity: High" in system and TARGET["title"] in system
        assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "user"]


OFFICIAL_FORMAT_USER_MODULE = '''
import os
DIVERSITY = {"High": "div-high", "Medium": "div-medium", "Low": "div-low"}
INTERACTION = {"High": "int-high", "Medium": "int-medium", "Low": "int-low"}
PRICE = {"High": "price-high", "Medium": "price-medium", "Low": "price-low"}
PROFILE_PROMPT = "g=<GENDER> a=<AGE> o=<OCCUPATION> p=<PRICE_SENSITIVITY> s=<SHOPPING_INTEREST> b=<BRAND_PREFERENCE> d=<DIVERSITY_PREFERENCE> i=<INTERACTION_STYLE> t=<TONE_AND_STYLE> r=<ITEM_REFERENCE> f=<FOCUS>"
PRODUCT_PROMPT = "T=<TITLE> A=<PARENT_ASIN> P=<PRICE> S=<STORE> F=<FEATURES> D=<DETAILS> C=<CATEGORY>"
USER_PROMPT = "SEARCH [<PROFILE>] [<PRODUCT>]"
USER_PROMPT_REVIEW = "REVIEW [<PROFILE>] [<PRODUCT>] [<REVIEW>]"
def never_called():
    raise SystemExit("the module must not be executed")
'''


def test_llm_shopper_builds_the_official_prompt_from_the_official_module_at_official_temperature(tmp_path):
    source = tmp_path / "user.py"
    source.write_text(OFFICIAL_FORMAT_USER_MODULE)
    seen = []

    def responder(request):
        seen.append(request)
        return "Something sturdy."

    with ScriptedChatServer(responder) as server:
        from personal_envs.llm.client import ChatClient

        user = LLMShopper(ChatClient(base_url=server.base_url, model="m"), official_source=str(source))
        review = {"rating": 4.0, "title": "Handy", "text": "Sturdy spatulas."}
        user.start(UserContext(PROFILE, {"type": "review", "instruction": "Write a review", "product": TARGET,
                                         "review": review}))
        user.reply("What did you think of it?")
    system = seen[-1]["messages"][0]["content"]
    assert system.startswith("REVIEW [g=Female a=25-34 o=Nurse p=price-high ")
    assert "d=div-low i=int-low" in system and "f=Durability, comfort]" in system
    assert f"T={TARGET['title']} A={TARGET['parent_asin']} P=13.99 S=Panly" in system
    assert "F=['Heat resistant', 'Variant 3'] D={\"Model\": \"M3\"} C=Home_and_Kitchen" in system
    assert system.endswith("[Sturdy spatulas.]")
    assert seen[-1]["temperature"] == 1.0 and seen[-1]["max_tokens"] == 150


def test_official_texts_absent_or_malformed(tmp_path):
    from personal_envs.personalwab.official_texts import load_user_texts

    assert load_user_texts(tmp_path / "missing.py") is None
    bad = tmp_path / "user.py"
    bad.write_text("PRICE = {}\n")
    with pytest.raises(ValueError, match="missing DIVERSITY"):
        load_user_texts(bad)
