"""Every env id of the suite as a chat environment: messages in, messages out (see :class:`ChatEnv`).

The renderer (:class:`ChatRenderer`) and the reply reader (:func:`read_reply`) are the ones the LLM policy uses,
so a model trained on :class:`ChatEnv` is evaluated on exactly what it was trained on.
"""

from personal_envs.chat.env import ChatEnv, ChatReset, ChatStep, make
from personal_envs.chat.render import DEFAULT_SYSTEM_PROMPT, ChatRenderer
from personal_envs.chat.replies import ReadReply, read_reply

__all__ = ["DEFAULT_SYSTEM_PROMPT", "ChatEnv", "ChatRenderer", "ChatReset", "ChatStep", "ReadReply", "make",
           "read_reply"]
