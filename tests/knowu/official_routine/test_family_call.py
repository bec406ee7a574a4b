"""DailyFamilyCallTask reads calls as the official check does: the call log must hold the whole number; a call still
in progress (``dumpsys telecom``) matches on its last two digits.  Calls placed on the simulated phone are scored by
the project's rule and by the official ``is_successful`` (run here, its adb queries answered from the same phone:
the ended outgoing calls as ``content://call_log/calls`` rows, the call in progress as a DIALING telecom entry)."""

from __future__ import annotations

from typing import Any

import pytest

from personal_envs.knowu.official.routine.rules import facts_of, score_routine, setup_routine
from personal_envs.knowu.state import read_state
from personal_envs.simulators.phone.phone import Phone
from tests.knowu.official_routine.conftest import ANCHORS, ROLES, official_profile
from tests.knowu.official_runtime import Anything, official_runtime

pytestmark = pytest.mark.usefixtures("anchors")
MODULE = "knowu_bench.tasks.definitions.routine.daily_family_call"


def official_score(role: str, phone: Phone) -> float:
    ended = [c.number for c in phone.contacts.calls if c.outgoing]
    if phone.contacts.ongoing and ended:
        ended.remove(phone.contacts.ongoing)  # Android logs a call when it ends

    class Result:
        def __init__(self, output: str) -> None:
            self.success, self.output, self.error = True, output, ""

    def execute_adb(command: str, *args: Any, **kwargs: Any) -> Result:
        if "call_log" in command:
            return Result("\n".join(f"Row: {i} _id={i + 1}, number={n}, type=2, date=0" for i, n in enumerate(ended)))
        if "dumpsys telecom" in command and phone.contacts.ongoing:
            return Result(f"Call id=TC@1, state=DIALING, handle=tel:{phone.contacts.ongoing}")
        return Result("")

    with official_runtime(ANCHORS) as runtime:
        module = runtime.load(MODULE)
        module.execute_adb = execute_adb
        task = module.DailyFamilyCallTask(params={"profile_id": role, "profile_path": str(
            ANCHORS / "src/knowu_bench/user_profile" / f"{role}.yaml")})
        task.initialized = True
        controller = Anything()
        controller.user_agent_chat_history = []
        result = task.is_successful(controller, [])
    return float(result[0])


def test_a_wrong_number_with_the_right_last_digits_counts_only_while_the_call_is_in_progress() -> None:
    role = next(r for r in ROLES if setup_routine("DailyFamilyCallTask", official_profile(r)).should_act)
    setup = setup_routine("DailyFamilyCallTask", official_profile(role))
    target = str(setup.get("target_phone"))
    wrong = ("1" if target[-3] != "1" else "2").join([target[:-3], target[-2:]])  # same last two digits
    assert wrong != target and wrong[-2:] == target[-2:]
    cases = {"right number, ended": (target, True, 1.0), "right number, calling": (target, False, 1.0),
             "wrong number, calling": (wrong, False, 1.0), "wrong number, ended": (wrong, True, 0.0),
             "no call": ("", True, 0.0)}
    for case, (number, hang_up, expected) in cases.items():
        phone = Phone(now=setup.now)
        if number:
            phone.contacts.call(number)
            if hang_up:
                phone.contacts.handle("hangup", "", phone.route)  # type: ignore[arg-type]
        ours = score_routine(setup, facts_of(read_state(phone)), [], [])[0]
        assert (ours, official_score(role, phone)) == (expected, expected), case
