"""{Tagged: t} and {Optional: Name} from Python (issue 16): a create callback receives a list of
objects (ordered by entry name, each by its own lifestyle) and None for an absent optional."""

from __future__ import annotations

from typing import Any, Dict, List

import controllerreg as cr

Args = Dict[str, Any]


class Screen:
    def __init__(self, name: str) -> None:
        self.name = name


class Menu:
    def __init__(self, args: Args) -> None:
        self.screens: List[Screen] = args["screens"]
        self.help = args["help"]
        self.keys = sorted(args)


def test_a_create_receives_a_list_of_objects_and_none_for_an_absent_optional() -> None:
    reg = cr.Registry()
    reg.register_class("Home", lambda args: Screen("home"))
    reg.register_class("About", lambda args: Screen("about"))
    reg.register_class("Menu", Menu)
    reg.load_string(
        "Zed: {ClassName: Home, Tag: screen, Lifestyle: singleton}\n"
        "About: {ClassName: About, Tag: [screen, 5]}\n"
        "Menu: {ClassName: Menu, Dependencies: {screens: {Tagged: screen}, help: {Optional: Help}}}\n"
    )
    menu = reg.create("Menu")
    assert [s.name for s in menu.screens] == ["about", "home"]  # About before Zed
    assert menu.help is None
    assert menu.keys == ["help", "screens"]  # the key is there, its value null
    again = reg.create("Menu")
    assert again.screens[1] is menu.screens[1]  # the singleton
    assert again.screens[0] is not menu.screens[0]  # a new transient
    # The optional entry added later is used from then on; removing it makes it None again.
    reg.register_class("Help", lambda args: Screen("help"))
    reg.add_entry("Help", "Help")
    assert reg.create("Menu").help.name == "help"
    reg.remove_entry("Help")
    assert reg.create("Menu").help is None
    reg.close()


def test_membership_follows_entries_added_from_code() -> None:
    reg = cr.Registry()
    reg.register_class("S", lambda args: Screen("s"))
    reg.register_class("L", lambda args: args["all"])
    reg.add_entry("L", "L", dependencies={"all": {"Tagged": 7}})
    assert reg.create("L") == []
    reg.load_string("A: {ClassName: S, Tag: '7'}\n")
    assert [s.name for s in reg.create("L")] == ["s"]
    reg.close()


def test_a_tagged_cycle_is_an_error_with_the_path() -> None:
    reg = cr.Registry()
    try:
        reg.load_string("A: {ClassName: S, Tag: t, Dependencies: {all: {Tagged: t}}}\n")
    except cr.CycleError as e:
        assert "A -> A" in str(e)
    else:
        raise AssertionError("expected a CycleError")
    reg.close()
