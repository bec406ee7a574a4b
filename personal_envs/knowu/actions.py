"""The KnowU-Bench action set (Table 4 of the paper): absolute 1080x2400 screen pixels."""

from __future__ import annotations

import dataclasses

from personal_envs.core.actions import ActionSpec, Param
from personal_envs.simulators.phone.geometry import SCREEN_HEIGHT, SCREEN_WIDTH

_X = Param("integer", f"x in screen pixels, 0..{SCREEN_WIDTH - 1}", minimum=0, maximum=SCREEN_WIDTH - 1)
_Y = Param("integer", f"y in screen pixels, 0..{SCREEN_HEIGHT - 1}", minimum=0, maximum=SCREEN_HEIGHT - 1)

#: Every action of the phone envs, in the paper's order.
KNOWU_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec.make("click", "Tap the screen at (x, y).", x=_X, y=_Y),
    ActionSpec.make("double_tap", "Tap twice quickly at (x, y).", x=_X, y=_Y),
    ActionSpec.make("long_press", "Press and hold at (x, y).", x=_X, y=_Y),
    ActionSpec.make("drag", "Swipe from (start_x, start_y) to (end_x, end_y).", start_x=_X, start_y=_Y, end_x=_X, end_y=_Y),
    ActionSpec.make("input_text", "Type text into the focused text field.",
                    text=Param("string", "text to type", max_length=5000)),
    ActionSpec.make("scroll", "Scroll the screen; 'down' shows content further down.",
                    direction=Param("string", "scroll direction", enum=("up", "down", "left", "right"))),
    ActionSpec.make("swipe", "Swipe a finger from (x, y) (default: the screen centre) in a direction, as the official "
                    "server's swipe: 'up' moves the content up (shows what is further down).",
                    direction=Param("string", "finger direction", enum=("up", "down", "left", "right")),
                    x=dataclasses.replace(_X, required=False), y=dataclasses.replace(_Y, required=False)),
    ActionSpec.make("navigate_home", "Go to the home screen."),
    ActionSpec.make("navigate_back", "Go back."),
    ActionSpec.make("keyboard_enter", "Press the Enter key."),
    ActionSpec.make("open_app", "Launch an app by name.", app_name=Param("string", "the app's name, e.g. Messages")),
    ActionSpec.make("wait", "Wait a moment for the screen to update."),
    ActionSpec.make("answer", "Give the user a text answer; ends the episode.", text=Param("string", "the answer")),
    ActionSpec.make("status", "Declare the task complete or infeasible; ends the episode.",
                    goal_status=Param("string", "outcome", enum=("complete", "infeasible"))),
    ActionSpec.make("ask_user", "Ask the user a question; the reply arrives in the observation's user_reply.",
                    text=Param("string", "the question", max_length=5000)),
    ActionSpec.make("finished", "Declare the task finished; ends the episode."),
)

#: Actions that end the episode.
TERMINAL_ACTIONS: frozenset[str] = frozenset({"finished", "answer", "status"})
#: Actions that never change the device: the only ones allowed when staying silent or after a rejection.  Any
#: other action is "acting" (the proactive checks, metrics and shaping signals all read this one set).
PASSIVE_ACTIONS: frozenset[str] = frozenset({"wait", "finished", "ask_user", "answer", "status"})

#: Actions that take screen positions, and their position arguments in the official agents' convention.
OFFICIAL_COORDINATE_ARGS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "click": (("coordinate", "x", "y"),),
    "double_tap": (("coordinate", "x", "y"),),
    "long_press": (("coordinate", "x", "y"),),
    "drag": (("start_coordinate", "start_x", "start_y"), ("end_coordinate", "end_x", "end_y")),
    "swipe": (("coordinate", "x", "y"),),
}
#: Actions whose position may be left out (``swipe`` starts at the screen centre then).
OPTIONAL_POSITION: frozenset[str] = frozenset({"swipe"})
#: The official agents' relative scale: positions are 0..999 of the screenshot's width and height
#: (``general_e2e_agent.py``: ``int(relative * image_size / 1000)``).
OFFICIAL_COORDINATE_SCALE = 1000
_REL = Param("array", f"[x, y], each 0..{OFFICIAL_COORDINATE_SCALE - 1} relative to the screen (the official agents' "
                      "convention)", items="integer", max_items=2)


def official_coordinate_actions() -> tuple[ActionSpec, ...]:
    """:data:`KNOWU_ACTIONS` with positions as the official agents give them: ``click`` takes ``coordinate``
    ``[x, y]`` in 0..999 and ``drag`` ``start_coordinate`` / ``end_coordinate`` (``coords="official"``)."""
    specs = []
    for spec in KNOWU_ACTIONS:
        if spec.name == "drag":
            specs.append(ActionSpec.make("drag", "Swipe from start_coordinate to end_coordinate.",
                                         start_coordinate=_REL, end_coordinate=_REL))
        elif spec.name in OPTIONAL_POSITION:
            specs.append(ActionSpec.make(spec.name, spec.description.replace("(x, y)", "coordinate"),
                                         direction=spec.param_map["direction"],
                                         coordinate=dataclasses.replace(_REL, required=False)))
        elif spec.name in OFFICIAL_COORDINATE_ARGS:
            specs.append(ActionSpec.make(spec.name, spec.description.replace("(x, y)", "coordinate"),
                                         coordinate=_REL))
        else:
            specs.append(spec)
    return tuple(specs)


def official_to_pixels(name: str, arguments: dict[str, object]) -> dict[str, object]:
    """Arguments of an official-convention action in screen pixels, converted as the official agents convert them.

    Raises:
        ValueError: a position is not two numbers in 0..999.
    """
    converted = dict(arguments)
    for relative, x_key, y_key in OFFICIAL_COORDINATE_ARGS.get(name, ()):
        value = converted.pop(relative, None)
        if value is None and name in OPTIONAL_POSITION:
            continue
        if not (isinstance(value, list | tuple) and len(value) == 2
                and all(isinstance(v, int | float) and 0 <= v < OFFICIAL_COORDINATE_SCALE for v in value)):
            raise ValueError(f"{relative} must be [x, y] with each in 0..{OFFICIAL_COORDINATE_SCALE - 1}, "
                             f"got {value!r}")
        converted[x_key] = int(value[0] * SCREEN_WIDTH / OFFICIAL_COORDINATE_SCALE)
        converted[y_key] = int(value[1] * SCREEN_HEIGHT / OFFICIAL_COORDINATE_SCALE)
    return converted
