"""Tests for autograph.pyct.naming."""

from __future__ import annotations

import pytest

from autograph.pyct.naming import Namer


def test_a_free_base_name_is_returned_as_it_is():
    assert Namer(reserved={"x"}).new_symbol("if_body") == "if_body"


def test_a_taken_name_gets_the_first_free_numbered_suffix():
    namer = Namer(reserved={"loop_body", "loop_body_1"})
    assert namer.new_symbol("loop_body") == "loop_body_2"


def test_generated_names_are_remembered_and_not_handed_out_again():
    namer = Namer(reserved=())
    assert [namer.new_symbol("retval") for _ in range(3)] == [
        "retval",
        "retval_1",
        "retval_2",
    ]
    assert namer.generated == ("retval", "retval_1", "retval_2")


def test_keywords_and_builtins_are_never_returned():
    namer = Namer(reserved=())
    assert namer.new_symbol("if") == "if_1"
    assert namer.new_symbol("len") == "len_1"
    assert namer.new_symbol("print") == "print_1"


def test_extra_reserved_names_are_avoided_for_that_call_only():
    namer = Namer(reserved=())
    assert namer.new_symbol("state", extra_reserved=["state"]) == "state_1"
    assert namer.new_symbol("cond") == "cond"


def test_reserved_names_from_any_iterable_are_kept_free():
    namer = Namer(reserved=(name for name in ["a", "b"]))
    assert namer.new_symbol("a") == "a_1"
    assert namer.new_symbol("b") == "b_1"


def test_a_base_that_is_not_an_identifier_is_rejected():
    with pytest.raises(ValueError) as caught:
        Namer(()).new_symbol("loop body")
    assert str(caught.value) == "cannot make a name from 'loop body': not an identifier"


def test_new_symbols_of_one_base_skip_the_names_taken_before():
    namer = Namer({"if_body_2"})
    names = [namer.new_symbol("if_body") for _ in range(4)]
    assert names == ["if_body", "if_body_1", "if_body_3", "if_body_4"]
    assert namer.new_symbol("if_body", extra_reserved={"if_body_5"}) == "if_body_6"
    assert namer.is_generated("if_body_3") and not namer.is_generated("if_body_2")
