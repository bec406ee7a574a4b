from personal_envs.llm.testing import ScriptedChatServer
from personal_envs.personalwab.users import LLMShopper, ProfileShopper
from personal_envs.simulators.users.base import UserContext
from tests.personalwab.tiny_data import PROFILE, product

TARGET = product(3)  # Panly Silicone Spatula Set, price "13.99"
CONTEXT = UserContext(profile=PROFILE, task={"type": "search", "instruction": "I need a spatula", "product": TARGET})


def test_profile_shopper_answers_from_profile_and_target():
    user = ProfileShopper()
    user.start(CONTEXT)
    assert "Panly" in user.reply("Which brand do you prefer?").text
    assert "$18" in user.reply("What's your budget?").text
    assert "Heat resistant" in user.reply("Any feature you need?").text
    assert "Home_and_Kitchen" in user.reply("What kind of product is it?").text
    assert len(user.dialogue) == 8


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
