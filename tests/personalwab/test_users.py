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
