# Long calls release the GIL, run from several Python threads at once with the same
# answers as one at a time, and stop with KeyboardInterrupt soon after Ctrl-C (SIGINT).
import os
import signal
import threading
import time

import pytest

import seprank


def long_calls():
    """Calls that run for minutes uninterrupted (each polls for cancellation)."""
    big = seprank.attention(tokens=2, dim=4, depth=3, seed=2)  # rank 2380, degree 27
    return {
        "rank-evaluation": lambda: seprank.rank(big, method="evaluation", variant="plain", threads=2),
        "rank-evaluation-graded": lambda: seprank.rank(big, method="evaluation", variant="graded", threads=1),
        "generic": lambda: seprank.generic_rank(big, trials=50, method="evaluation"),
        "table": lambda: seprank.table(tokens=2, dim=4, depth=3, trials=20, dataframe=False),
    }


@pytest.mark.parametrize("name", list(long_calls()))
def test_ctrl_c_interrupts_a_long_call(name):
    call = long_calls()[name]
    sent = []

    def ctrl_c():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, ctrl_c)
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        call()
        time.sleep(30)  # not reached unless the call ended before the signal: then the sleep is interrupted
        pytest.fail("the call ended before Ctrl-C")
    latency = time.monotonic() - sent[0]
    print(f"{name}: KeyboardInterrupt {latency:.3f} s after SIGINT ({time.monotonic() - t0:.2f} s in all)")
    # Uninterrupted, each call runs for minutes; a generous bound for a loaded machine.
    assert latency < 10
    # the library is usable right after
    assert seprank.rank(seprank.attention(tokens=2, dim=1, depth=1)).value == 2


def test_two_threads_at_once_give_the_serial_answers():
    nets = [seprank.attention(tokens=2, dim=3, depth=2, seed=s) for s in (1, 2)]
    jobs = [lambda n=nets[0]: seprank.rank(n, method="evaluation", variant="plain").to_dict(),
            lambda n=nets[1]: seprank.generic_rank(n, trials=3, method="evaluation").to_dict(),
            lambda n=nets[0]: seprank.rank(n).to_dict()]
    serial = [job() for job in jobs]
    results = [None] * len(jobs)
    errors = []

    def run(i):
        try:
            for _ in range(3):
                results[i] = jobs[i]()
        except BaseException as e:  # noqa: BLE001 — reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    drop = ("seconds", "peak_mib", "phases")  # timings
    for got, want in zip(results, serial):
        assert {k: v for k, v in got.items() if k not in drop} == {k: v for k, v in want.items() if k not in drop}


def test_the_gil_is_released_during_a_long_call():
    big = seprank.attention(tokens=2, dim=2, depth=3, seed=1)
    exact = seprank.rank(big)
    done = threading.Event()
    answer = []

    def work():
        # one call is ~10 ms (batched evaluation): 50 calls make a window of ~0.5 s. Were the
        # GIL held during a call, the main thread could run about once per call boundary only.
        for _ in range(50):
            answer.append(seprank.rank(big, method="evaluation", variant="plain", threads=1))
        done.set()

    ticks = 0
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():  # runs only while the worker is outside the interpreter
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert all(a.value == exact.value for a in answer) and exact.certified
    spent = sum(a.seconds for a in answer)
    assert ticks > 2 * len(answer), f"the main thread ran {ticks} times during {len(answer)} calls of {spent:.2f} s in all"
