"""Doctests see `ek` and `np`, like a notebook with the Eager kernel; every test leaves the
main thread's runtime state (scopes, recorders, device scopes, the SIGINT handler) as it found
it, or fails, so that one test's leak is reported where it happens, not in a later test."""

import signal

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import context


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    doctest_namespace["ek"] = ek
    doctest_namespace["np"] = np


def _thread_state() -> dict:
    ctx = context.context()
    return {
        "scopes": ctx.scopes,
        "scope_name": ctx.scope_name,
        "recorders": ctx.recorders,
        "device scopes": ctx.devices,
        "SIGINT handler": signal.getsignal(signal.SIGINT),
    }


@pytest.fixture(autouse=True)
def _leaves_no_runtime_state_behind():
    before = _thread_state()
    yield
    after = _thread_state()
    leaked = [name for name in before if after[name] != before[name]]
    if not leaked:
        return
    ctx = context.context()  # put things back, so that later tests run in a clean thread
    for recorder in ctx.recorders:
        if recorder not in before["recorders"]:
            context.discard_recorder(recorder)
    ctx.scopes, ctx.scope_name = before["scopes"], before["scope_name"]
    signal.signal(signal.SIGINT, before["SIGINT handler"])
    pytest.fail(
        "the test left runtime state behind: "
        + "; ".join(f"{name} {before[name]!r} -> {after[name]!r}" for name in leaked)
    )
